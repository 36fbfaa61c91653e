package mcpserver

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mdqs/internal/client"
	"mdqs/internal/market"
)

// tools are the server's tools over one API.
type tools struct {
	api   API
	clock market.Clock
}

// fetchFunc makes a tool's call of the API: the answer, and how to shape
// it into a Result. An error is the tool's error (bad input the tool
// itself found, or no answer from mdqs).
type fetchFunc[In any] func(ctx context.Context, t *tools, in In) (*client.Response, shape, error)

// readOnly: no tool changes data (none calls an admin endpoint), so a
// client may run them without asking.
var readOnly = &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true}

// addTool registers one tool: its input schema from In's tags, and a
// handler that calls the API and answers the shaped Result as structured
// content beside its text table, or the API's failure as a tool error.
func addTool[In any](s *mcp.Server, t *tools, name, description string, fetch fetchFunc[In]) {
	tool := &mcp.Tool{Name: name, Description: description, InputSchema: inputSchema[In](), Annotations: readOnly}
	mcp.AddTool(s, tool, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
		resp, sh, err := fetch(ctx, t, in)
		if err != nil {
			return nil, nil, err // the SDK makes it the tool's error (isError) with its text
		}
		if resp.Status >= 400 {
			return failed(errorOf(resp)), nil, nil
		}
		res, err := sh.result(resp.Body, t.clock.Now())
		if err != nil {
			return nil, nil, err
		}
		sc, err := res.encode()
		if err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: res.table(name, sh)}}, StructuredContent: json.RawMessage(sc)}, nil, nil
	})
}

// failed is the tool error of a failure answer: its text says the status,
// message and detail; its structured content holds them apart.
func failed(e *apiError) *mcp.CallToolResult {
	sc, _ := json.Marshal(map[string]any{"error": map[string]any{"status": e.Status, "message": e.Message, "detail": e.Detail, "retry_after": e.RetryAfter}})
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: e.Error()}}, StructuredContent: json.RawMessage(sc)}
}

// add registers every tool; each file of tools_*.go adds its own.
func (t *tools) add(s *mcp.Server) {
	t.addMarket(s)
	t.addStocks(s)
	t.addScreen(s)
	t.addInfo(s)
	t.addBreadth(s)
}
