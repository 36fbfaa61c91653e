package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mdqs/internal/loadgen"
	"mdqs/internal/market"
)

// The MCP server (issue 34) end to end, with the official Go SDK's own
// client: mdqs mcp, the built binary on stdio, in front of a demo server;
// and /mcp on the server, by URL with a bearer token.

// mcpDemo is the small demo with /mcp on.
const mcpDemo = "\n[mcp]\nhttp = true\n"

// mcpTools are every tool the server lists, each called here.
var mcpTools = []string{"block_members", "corporate_actions", "cross_section", "dragon_tiger", "etfs", "financial_reports", "hot_rank",
	"index_members", "kline", "limit_ladder", "limit_pool", "news_search", "quotes", "run_screen", "search_stocks", "sector_movements", "sector_ranking"}

// toolCall is one call of a tool with the arguments of a demo market.
type toolCall struct {
	tool string
	args map[string]any
	// want is what the text must say besides the tool's name.
	want string
}

// demoCalls are calls of every tool (some twice, another way) that a demo
// market answers; day is a trading day it has recorded.
func demoCalls(day string) []toolCall {
	return []toolCall{
		{"sector_ranking", map[string]any{"limit": 5}, "main_net"},
		{"sector_ranking", map[string]any{"family": "industry", "direction": "outflow", "day": day}, "sector_name"},
		{"sector_movements", map[string]any{"type": "concept", "sort": "main_net"}, "board_name"},
		{"kline", map[string]any{"code": "600519", "indicators": "ma5,macd", "limit": 30}, "macd_hist"},
		{"kline", map[string]any{"code": "sh600519", "adjust": "qfq", "start": day, "end": day}, "close"},
		{"quotes", map[string]any{"codes": []string{"600519.SH", "000001"}}, "600519.SH"},
		{"etfs", map[string]any{"sort": "premium", "limit": 3}, "iopv"},
		{"search_stocks", map[string]any{"query": "银行"}, "银行"},
		{"block_members", map[string]any{"kind": "index"}, "沪深300"},
		{"block_members", map[string]any{"block": "沪深300"}, ".S"},
		{"corporate_actions", map[string]any{"code": "600519.SH"}, "除权除息"},
		{"run_screen", map[string]any{"expression": "pct > -100", "sort": "-pct", "limit": 5}, "pct"},
		{"news_search", map[string]any{"limit": 3}, "published_at"},
		{"hot_rank", map[string]any{"limit": 5}, "heat"},
		{"financial_reports", map[string]any{"codes": []string{"600519.SH"}}, "net_profit"},
		{"limit_ladder", map[string]any{"date": day}, ""},
		{"limit_pool", map[string]any{"kind": "down", "date": day}, ""},
		{"dragon_tiger", map[string]any{"date": day}, ""},
		{"index_members", map[string]any{"index": "沪深300"}, "since"},
		{"index_members", map[string]any{"index": "000300.SH", "changes": true}, ""},
		{"cross_section", map[string]any{"date": day, "sort": "amount", "limit": 10}, "amount"},
	}
}

// exerciseEveryTool lists the tools and resources and calls every tool on
// the demo market: each answers rows with their source, as_of and units,
// and a text table; bad input is a tool error carrying the API's words.
func exerciseEveryTool(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	ctx := context.Background()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, mcpTools) {
		t.Errorf("tools/list = %v, want %v", names, mcpTools)
	}

	// The resources: the calendar gives the day the calls ask about.
	cal := readResource(t, cs, "mdqs://calendar")
	var days struct {
		TradingDays []string `json:"trading_days"`
		Today       string   `json:"today"`
		Source      string   `json:"source"`
	}
	if err := json.Unmarshal([]byte(cal), &days); err != nil || days.Source != "calendar" || len(days.TradingDays) < 3 {
		t.Fatalf("mdqs://calendar = %.300s (%v)", cal, err)
	}
	past := slices.DeleteFunc(slices.Clone(days.TradingDays), func(d string) bool { return d >= days.Today })
	day := past[len(past)-2] // a finished session the demo has recorded
	for uri, want := range map[string]string{"mdqs://codes": "600519.SH", "mdqs://screener": "main_net", "mdqs://calendar/2026": `"2026-10-01"`} {
		if got := readResource(t, cs, uri); !strings.Contains(got, want) {
			t.Errorf("%s does not say %q: %.300s", uri, want, got)
		}
	}

	called := map[string]bool{}
	for _, c := range demoCalls(day) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil {
			t.Errorf("%s(%v): %v", c.tool, c.args, err)
			continue
		}
		text := toolText(res)
		if res.IsError {
			t.Errorf("%s(%v) is a tool error: %s", c.tool, c.args, text)
			continue
		}
		called[c.tool] = true
		var r struct {
			Source string            `json:"source"`
			AsOf   string            `json:"as_of"`
			Rows   []json.RawMessage `json:"rows"`
			Count  int               `json:"count"`
		}
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &r)
		if r.Source == "" || r.AsOf == "" || r.Rows == nil || r.Count != len(r.Rows) || r.Count > 200 {
			t.Errorf("%s(%v): structured content without source, as_of or rows: %.400s", c.tool, c.args, b)
		}
		if !strings.HasPrefix(text, c.tool+" · source "+r.Source+" · as_of ") || !strings.Contains(text, c.want) {
			t.Errorf("%s(%v): text %q, want it to begin with its provenance and say %q", c.tool, c.args, cut(text, 400), c.want)
		}
	}
	for _, name := range mcpTools {
		if !called[name] {
			t.Errorf("tool %s was not called with success", name)
		}
	}

	// Bad input: the API's own refusal, as the tool's error.
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "kline", Arguments: map[string]any{"code": "nope"}})
	if err != nil || !res.IsError || !strings.Contains(toolText(res), "HTTP 400 missing or invalid params") || !strings.Contains(toolText(res), `"nope"`) {
		t.Errorf("kline of code nope = %v %v, want a tool error with the API's 400", toolText(res), err)
	}
}

func readResource(t *testing.T, cs *mcp.ClientSession, uri string) string {
	t.Helper()
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil || len(res.Contents) != 1 {
		t.Fatalf("read %s: %v %+v", uri, err, res)
	}
	return res.Contents[0].Text
}

func toolText(res *mcp.CallToolResult) string {
	if res == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func cut(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// mdqs mcp, the built binary on stdio as a desktop agent starts it, in
// front of a demo server: every tool, the resources, bad input; the
// server going away mid-session is a tool error saying how to start one,
// and the session goes on; started with no server, it says so on stderr.
func TestMCPOverStdio(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	bin := buildBinary(t)
	s := startServerWith(t, serveOptions{config: smallDemo, cheapHash: true})
	waitReady(t, s)

	ctx := context.Background()
	var stderr loadgen.SyncBuffer
	cmd := exec.Command(bin, "mcp", "-addr", s.addr)
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+filepath.Join(dir, "cache"), "HOME="+dir, "MDQS_CLIENT_ID=", "MDQS_CLIENT_SECRET=")
	cmd.Stderr = &stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "mdqs-test", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if init := cs.InitializeResult(); init.ServerInfo.Name != "mdqs" || !strings.Contains(init.Instructions, "as_of") {
		t.Errorf("initialize: %+v", init)
	}
	exerciseEveryTool(t, cs)
	if !strings.Contains(stderr.String(), "serving MCP on stdio for mdqs at http://"+s.addr+" as client demo") {
		t.Errorf("mdqs mcp's stderr: %q", stderr.String())
	}
	// The token is mdqs call's: one file in the cache, shared.
	if files, _ := filepath.Glob(filepath.Join(dir, "cache", "mdqs", "tokens", "*.json")); len(files) != 1 {
		t.Errorf("token cache files: %v, want one", files)
	}

	// The server goes away: a tool error that says how to start one; the
	// session itself stays.
	s.stop(t)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "quotes", Arguments: map[string]any{"codes": []string{"600519"}}})
	if err != nil || !res.IsError || !strings.Contains(toolText(res), "no mdqs answers at http://"+s.addr) || !strings.Contains(toolText(res), "mdqs serve") {
		t.Errorf("quotes with the server gone = %q %v, want a tool error saying how to start mdqs", toolText(res), err)
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Errorf("the session ended with the server: %v", err)
	}

	// Started with no server at all: stderr says how to start one.
	var none loadgen.SyncBuffer
	lone := exec.Command(bin, "mcp", "-addr", s.addr)
	lone.Env = cmd.Env
	lone.Stderr = &none
	cs2, err := mcp.NewClient(&mcp.Implementation{Name: "mdqs-test", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: lone}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs2.Close()
	if got := none.String(); !strings.Contains(got, "no mdqs answers at http://"+s.addr) || !strings.Contains(got, "mdqs serve") || !strings.Contains(got, "go run .") {
		t.Errorf("mdqs mcp without a server says on stderr: %q", got)
	}
}

// bearerTransport is an agent's HTTP client: a bearer token and the
// headers a browser would add.
type bearerTransport struct {
	token  string
	header http.Header
}

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	for k, v := range b.header {
		r.Header[k] = v
	}
	return http.DefaultTransport.RoundTrip(r)
}

func connectHTTP(t *testing.T, addr, token string, header http.Header) (*mcp.ClientSession, error) {
	t.Helper()
	tr := &mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp", HTTPClient: &http.Client{Transport: bearerTransport{token, header}}}
	return mcp.NewClient(&mcp.Implementation{Name: "mdqs-test", Version: "0"}, nil).Connect(context.Background(), tr, nil)
}

// tokenOf is a fresh token of a client of the server.
func tokenOf(t *testing.T, s *server, id, secret string) string {
	t.Helper()
	c := s.client()
	c.ID, c.Secret = id, secret
	tok, err := c.Token(context.Background())
	if err != nil {
		t.Fatalf("token of %s: %v", id, err)
	}
	return tok
}

// /mcp on the server, by URL with a bearer token: every tool; the scopes
// (a client without mcp is refused at the door, one without kline gets a
// tool error from the kline tool); a foreign Origin is 403; a client
// disabled mid-session has its next call refused.
func TestMCPOverHTTP(t *testing.T) {
	s := startServerWith(t, serveOptions{config: smallDemo + mcpDemo, cheapHash: true})
	waitReady(t, s)
	if !strings.Contains(s.logs.String(), "MCP (Streamable HTTP) at /mcp") {
		t.Errorf("the start log does not say /mcp is on:\n%s", s.logs)
	}
	ctx := context.Background()
	cs, err := connectHTTP(t, s.addr, tokenOf(t, s, "demo", "demo-secret"), nil)
	if err != nil {
		t.Fatal(err)
	}
	exerciseEveryTool(t, cs)
	cs.Close()

	for _, c := range [][]string{{"agent", "market,mcp"}, {"script", "*"}} {
		if _, errs, code := mdqs("client", "add", "-db", s.db, "-id", c[0], "-secret", "secret-"+c[0], "-scopes", c[1]); code != 0 {
			t.Fatal(errs)
		}
	}
	if _, err := connectHTTP(t, s.addr, tokenOf(t, s, "script", "secret-script"), nil); err == nil || !strings.Contains(err.Error(), "403") && !strings.Contains(err.Error(), "Forbidden") {
		t.Errorf("a client with \"*\" but not mcp connected: %v", err)
	}
	agent, err := connectHTTP(t, s.addr, tokenOf(t, s, "agent", "secret-agent"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer agent.Close()
	res, err := agent.CallTool(ctx, &mcp.CallToolParams{Name: "kline", Arguments: map[string]any{"code": "600519"}})
	if err != nil || !res.IsError || !strings.Contains(toolText(res), "HTTP 403 forbidden") || !strings.Contains(toolText(res), "needs scope kline") {
		t.Errorf("kline for a client without kline = %q %v, want the API's 403 as a tool error", toolText(res), err)
	}
	if res, err := agent.CallTool(ctx, &mcp.CallToolParams{Name: "quotes", Arguments: map[string]any{"codes": []string{"600519"}}}); err != nil || res.IsError {
		t.Errorf("quotes for a client with market = %q %v", toolText(res), err)
	}

	// A page of another origin, with a good token.
	req, _ := http.NewRequest(http.MethodPost, "http://"+s.addr+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Header = http.Header{"Authorization": {"Bearer " + tokenOf(t, s, "demo", "demo-secret")}, "Origin": {"http://evil.example.com"},
		"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("POST /mcp from a foreign Origin: %v %v, want 403", resp, err)
	} else {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !bytes.Contains(b, []byte("mcp.allowed_origins")) {
			t.Errorf("the 403 does not name mcp.allowed_origins: %s", b)
		}
	}

	// The client disabled mid-session: its next call is refused, within
	// auth.revocation_check.
	if _, errs, code := mdqs("client", "disable", "-db", s.db, "-id", "agent"); code != 0 {
		t.Fatal(errs)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		res, err := agent.CallTool(ctx, &mcp.CallToolParams{Name: "quotes", Arguments: map[string]any{"codes": []string{"600519"}}})
		if err != nil || res.IsError {
			if msg := strings.ToLower(errText(err) + toolText(res)); !strings.Contains(msg, "401") && !strings.Contains(msg, "unauthorized") {
				t.Errorf("the disabled client's call failed with %q, want an auth error", msg)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a disabled client's session still answers after 10 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if _, err := agent.ListTools(ctx, nil); err == nil {
		t.Error("the disabled client's session still lists tools")
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// A pinned clock reaches the tools: their default dates and the read time
// are the server's, as every answer's times are.
func TestMCPToolsUseTheServersClock(t *testing.T) {
	at := time.Date(2026, 11, 20, 16, 0, 0, 0, market.Shanghai())
	s := startServerWith(t, serveOptions{config: smallDemo + mcpDemo, at: at, cheapHash: true})
	waitReady(t, s)
	cs, err := connectHTTP(t, s.addr, tokenOf(t, s, "demo", "demo-secret"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "kline", Arguments: map[string]any{"code": "600519", "limit": 1}})
	if err != nil || res.IsError || !strings.Contains(toolText(res), "2026-11-20 | ") {
		t.Errorf("kline with the defaults on a server pinned to %s: %q %v, want that day's bar last", at, toolText(res), err)
	}
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search_stocks", Arguments: map[string]any{"query": "银行"}})
	if err != nil || res.IsError || !strings.Contains(toolText(res), "as_of 2026-11-20 16:00:00 (read time") {
		t.Errorf("search_stocks' read time on a server pinned to %s: %q %v", at, cut(toolText(res), 200), err)
	}
}
