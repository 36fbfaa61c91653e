// Package mcpserver is mdqs for AI agents: an MCP server (the official Go
// SDK) whose tools and resources are built once and served over two
// transports, stdio (mdqs mcp, for desktop agents) and Streamable HTTP
// (/mcp on the server). It is an edge like api, in front of it: every tool
// calls the HTTP API, never a service, so scopes, limits, validation,
// provenance and error envelopes are the API's own, whichever transport
// and however the agent phrases its call.
package mcpserver

import (
	"context"
	"log/slog"
	"net/url"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mdqs/internal/auth"
	"mdqs/internal/client"
	"mdqs/internal/market"
)

// API is how the tools reach mdqs: its HTTP API. Do sends one request
// (target: path and query) and returns the answer whatever its status; an
// error means there was no answer (the server is not reachable), which the
// tool reports as its error.
type API interface {
	Do(ctx context.Context, method, target string, body []byte) (*client.Response, error)
}

// Options are what the server needs besides its API.
type Options struct {
	// Version is mdqs's, announced at initialize.
	Version string
	// Clock dates the read time of answers without a time of their own
	// and the tools' default dates (today in Shanghai). nil: the system's.
	Clock market.Clock
	// Log receives the SDK's own messages; nil: none.
	Log *slog.Logger
}

// instructions reach the agent at initialize: what every result holds and
// the conventions every tool shares, said once instead of in each tool.
const instructions = `mdqs serves the Chinese A-share market (沪深京 A股): sectors, K-lines, quotes, screens, news, hot rank, reports, limit-up pools, the dragon-tiger list, index members.
Every tool is read-only. Its structured content is {source, as_of, as_of_from, units, columns, rows, count, total, note, meta}: rows are lists of values in the order of columns, at most 200 (note says how to narrow); source names where the numbers come from (demo is the offline demo market), as_of the time they are of (Asia/Shanghai). Its text is the same as a table.
Units: prices and amounts 元 (yuan), volumes 股 (shares; 1 手 = 100 股), pct and rates percent (1.5 = 1.5 %). The text table writes 万 (1e4) and 亿 (1e8).
Codes: 600519, 600519.SH, sh600519 all work (resource mdqs://codes). Dates: YYYY-MM-DD (or YYYYMMDD); trading days from resource mdqs://calendar.
A tool error carries mdqs's HTTP status, message and detail: fix the parameter it names; 403 means the client lacks the scope.`

// New builds the server: its tools and resources over api.
func New(api API, o Options) *mcp.Server {
	if o.Clock == nil {
		o.Clock = market.SystemClock{}
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "mdqs", Title: "mdqs: A-share market data", Version: o.Version},
		&mcp.ServerOptions{Instructions: instructions, Logger: o.Log})
	s.AddReceivingMiddleware(bearerInContext)
	t := &tools{api: api, clock: o.Clock}
	t.add(s)
	addResources(s, api)
	return s
}

// bearerExtra is the key of the verified bearer in an HTTP request's
// token info (see NewHTTP).
const bearerExtra = "mdqs.bearer"

// bearerInContext hands each request's verified bearer (HTTP only) to the
// tools' context, where the in-process API signs with it.
func bearerInContext(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if ex := req.GetExtra(); ex != nil && ex.TokenInfo != nil {
			if b, ok := ex.TokenInfo.Extra[bearerExtra].(auth.Bearer); ok {
				ctx = auth.WithBearer(ctx, b)
			}
		}
		return next(ctx, method, req)
	}
}

// get sends a GET of path with the query's non-empty values.
func get(ctx context.Context, api API, path string, q url.Values) (*client.Response, error) {
	for k, v := range q {
		if len(v) == 0 || v[0] == "" {
			delete(q, k)
		}
	}
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	return api.Do(ctx, "GET", path, nil)
}

// today is the day in Shanghai at now.
func today(now time.Time) market.Day { return market.DayOf(now) }
