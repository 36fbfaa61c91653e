package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// codeForms is resource mdqs://codes: what every code parameter takes.
const codeForms = `# Security codes in mdqs

Every code parameter takes any of these forms of one code; answers write the canonical one, CODE.EXCHANGE:

| form | example | note |
| --- | --- | --- |
| canonical | 600519.SH | six digits, a dot, the exchange |
| prefixed | sh600519, SZ000001, bj430047 | the exchange first, any case |
| EastMoney | 1.600519, 0.000001 | 1 Shanghai, 0 Shenzhen and Beijing |
| bare | 600519 | the exchange inferred from the digits |

Exchanges: SH Shanghai (上交所), SZ Shenzhen (深交所), BJ Beijing (北交所).
Bare codes: 6xxxxx SH (688xxx STAR 科创板), 0xxxxx and 3xxxxx SZ (300xxx/301xxx ChiNext 创业板), 4xxxxx, 8xxxxx and 920xxx BJ, 5xxxxx SH funds, 15xxxx/16xxxx SZ funds.
Indices share digits with stocks: 000001.SH is the SSE Composite (上证指数) while 000001.SZ is Ping An Bank; give the exchange for an index (000300.SH 沪深300, 399001.SZ 深证成指, 399006.SZ 创业板指).
To find a code from a name, use the tool search_stocks.
`

// addResources registers what an agent reads to write a good call: the
// screener's language and fields, the code forms, the trading calendar.
// The dynamic ones come through the API like the tools.
func addResources(s *mcp.Server, api API) {
	s.AddResource(&mcp.Resource{URI: "mdqs://codes", Name: "codes", Title: "Security code forms", MIMEType: "text/markdown",
		Description: "The forms of a security code every tool takes, and the exchanges."},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return text(req.Params.URI, "text/markdown", codeForms), nil
		})
	s.AddResource(&mcp.Resource{URI: "mdqs://screener", Name: "screener", Title: "The screener's language and fields", MIMEType: "text/markdown",
		Description: "What run_screen's expression may say: the operators and every field with its meaning and unit."},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			resp, err := get(ctx, api, "/v1/api/screener/fields", nil)
			if err != nil {
				return nil, err
			}
			if resp.Status >= 400 {
				return nil, errorOf(resp)
			}
			var env struct {
				Data struct {
					Syntax string `json:"syntax"`
					Fields []struct {
						Name, Type, Doc string
					} `json:"fields"`
				} `json:"data"`
			}
			if err := json.Unmarshal(resp.Body, &env); err != nil {
				return nil, err
			}
			var b strings.Builder
			b.WriteString("# The screener's language (run_screen)\n\n" + env.Data.Syntax + "\n\n| field | type | meaning |\n| --- | --- | --- |\n")
			for _, f := range env.Data.Fields {
				fmt.Fprintf(&b, "| %s | %s | %s |\n", f.Name, f.Type, strings.ReplaceAll(f.Doc, "|", "/"))
			}
			return text(req.Params.URI, "text/markdown", b.String()), nil
		})
	calendar := func(ctx context.Context, uri string, q url.Values) (*mcp.ReadResourceResult, error) {
		resp, err := get(ctx, api, "/v1/api/calendar", q)
		if err != nil {
			return nil, err
		}
		if resp.Status >= 400 {
			return nil, errorOf(resp)
		}
		var env struct {
			Data json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(resp.Body, &env); err != nil {
			return nil, err
		}
		return text(uri, "application/json", string(env.Data)), nil
	}
	s.AddResource(&mcp.Resource{URI: "mdqs://calendar", Name: "calendar", Title: "Trading calendar", MIMEType: "application/json",
		Description: "Today, its session phase, the last and next trading days, and the trading days and exchange holidays 30 days either side."},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return calendar(ctx, req.Params.URI, nil)
		})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "mdqs://calendar/{year}", Name: "calendar-year", Title: "Trading calendar of a year",
		MIMEType: "application/json", Description: "A year's trading days and exchange holidays, e.g. mdqs://calendar/2026."},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			y, err := strconv.Atoi(strings.TrimPrefix(req.Params.URI, "mdqs://calendar/"))
			if err != nil || y < 1990 || y > 2100 {
				return nil, mcp.ResourceNotFoundError(req.Params.URI)
			}
			return calendar(ctx, req.Params.URI, url.Values{"start": {fmt.Sprintf("%d-01-01", y)}, "end": {fmt.Sprintf("%d-12-31", y)}})
		})
}

func text(uri, mime, s string) *mcp.ReadResourceResult {
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mime, Text: s}}}
}
