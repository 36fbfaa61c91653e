package main

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mdqs/internal/auth"
	"mdqs/internal/client"
	"mdqs/internal/loadgen"
	"mdqs/internal/mcpserver"
)

// recordingAPI is the stdio path's API (a client of the server over
// HTTP, as mdqs mcp is) that remembers the last target a tool asked for.
type recordingAPI struct {
	c    *client.Client
	mu   sync.Mutex
	last string
}

func (r *recordingAPI) Do(ctx context.Context, method, target string, body []byte) (*client.Response, error) {
	r.mu.Lock()
	r.last = target
	r.mu.Unlock()
	return r.c.Do(ctx, method, target, body)
}

// benchServer serves the small demo with /mcp on, in-process, for a
// benchmark (startServerWith is the tests').
func benchServer(b *testing.B) string {
	b.Helper()
	dir := b.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	os.WriteFile(cfg, []byte(smallDemo+mcpDemo+"\n[log]\nlevel = \"warn\"\n[limits]\nclient_rate = 0.0\n"), 0o600)
	ctx, cancel := context.WithCancel(context.Background())
	addrc, done := make(chan string, 1), make(chan error, 1)
	hooks := serveHooks{onListen: func(a net.Addr) { addrc <- a.String() }, demoKDF: &auth.KDFParams{MemoryKiB: 64, Time: 1, Threads: 1}}
	logs := &loadgen.SyncBuffer{}
	go func() {
		done <- serve(ctx, testEnv(&loadgen.SyncBuffer{}, logs), []string{"-config", cfg, "-addr", "127.0.0.1:0", "-db", filepath.Join(dir, "mdqs.db")}, hooks)
	}()
	var addr string
	select {
	case addr = <-addrc:
	case err := <-done:
		b.Fatalf("serve: %v\n%s", err, logs)
	}
	b.Cleanup(func() { cancel(); <-done })
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if resp, err := http.Get("http://" + addr + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			b.Fatalf("not ready:\n%s", logs)
		}
	}
	return addr
}

// BenchmarkMCPToolCall sets a tool call against the API call it makes, on
// the demo market (issue 34's goal: at most the API call plus 1 ms):
//
//	api         the tool's own request, signed, over loopback HTTP, its
//	            JSON decoded (as the agent's client decodes the tool's)
//	tool-stdio  the tool through the server mdqs mcp runs, whose API is
//	            that same client (the stdio pipes left out: in-memory
//	            transports)
//	tool-http   the tool by URL: the SDK's client over Streamable HTTP to
//	            /mcp, whose tools call the API in-process as the caller
//
//	go test -run '^$' -bench MCPToolCall -benchtime 2s -count 5 .
func BenchmarkMCPToolCall(b *testing.B) {
	addr := benchServer(b)
	ctx := context.Background()
	c := client.New(addr, "demo", "demo-secret")
	api := &recordingAPI{c: c}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := mcpserver.New(api, mcpserver.Options{Version: "bench"}).Connect(ctx, st, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ss.Close()
	stdio, err := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer stdio.Close()
	tok, err := c.Token(ctx)
	if err != nil {
		b.Fatal(err)
	}
	tr := &mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp", HTTPClient: &http.Client{Transport: bearerTransport{token: tok}}}
	byURL, err := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer byURL.Close()

	for _, tc := range []struct {
		name string
		tool string
		args map[string]any
	}{
		{"quotes", "quotes", map[string]any{"codes": []string{"600519.SH"}}},
		{"sector_ranking", "sector_ranking", map[string]any{}},
		{"kline", "kline", map[string]any{"code": "600519.SH", "indicators": "ma5"}},
		{"kline-200", "kline", map[string]any{"code": "600519.SH", "indicators": "ma5", "limit": 200}},
	} {
		call := func(b *testing.B, cs *mcp.ClientSession) {
			// Params of their own each time: a client records the
			// protocol version it negotiated in them (the in-memory
			// session's is newer than the HTTP one's).
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
			if err != nil || res.IsError {
				b.Fatalf("%s: %v %s", tc.tool, err, toolText(res))
			}
		}
		call(b, stdio) // the target the tool asks for, and a warm cache for all three
		api.mu.Lock()
		target := api.last
		api.mu.Unlock()
		b.Run(tc.name+"/api", func(b *testing.B) {
			for b.Loop() {
				resp, err := c.Do(ctx, "GET", target, nil)
				if err != nil || resp.Status != http.StatusOK {
					b.Fatalf("GET %s: %v %v", target, err, resp)
				}
				// What the agent's client does with a tool's answer, a
				// script does with the API's: read its JSON.
				var v any
				if err := json.Unmarshal(resp.Body, &v); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(tc.name+"/tool-stdio", func(b *testing.B) {
			for b.Loop() {
				call(b, stdio)
			}
		})
		b.Run(tc.name+"/tool-http", func(b *testing.B) {
			for b.Loop() {
				call(b, byURL)
			}
		})
	}
}
