package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mdqs/internal/client"
	"mdqs/internal/market"
)

// t0 is a Monday evening in Shanghai, after the close.
var t0 = time.Date(2026, 11, 23, 18, 0, 0, 0, market.Shanghai())

// fakeAPI answers the tools' calls from a table of targets, and records
// what they asked for.
type fakeAPI struct {
	mu      sync.Mutex
	calls   []string
	answers map[string]string // "GET /path" (without the query) -> body; absent: {"code":1,"message":"OK","data":{}}
	status  map[string]int
	err     error
}

func (f *fakeAPI) Do(ctx context.Context, method, target string, body []byte) (*client.Response, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	call := method + " " + target
	if body != nil {
		call += " " + string(body)
	}
	f.calls = append(f.calls, call)
	if f.err != nil {
		return nil, f.err
	}
	path, _, _ := strings.Cut(target, "?")
	key := method + " " + path
	b, ok := f.answers[key]
	if !ok {
		b = `{"code":1,"message":"OK","data":{}}`
	}
	return &client.Response{Status: cmpStatus(f.status[key]), Header: http.Header{}, Body: []byte(b)}, nil
}

func (f *fakeAPI) last() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.calls) == 0 {
		return ""
	}
	return f.calls[len(f.calls)-1]
}

// connect is a client session with the server over api, through the SDK's
// in-memory transports; wire, when given, receives every message the
// client reads, one JSON-RPC message a line ("read: ..."), before the
// call that awaits it returns.
func connect(t testing.TB, api API, wire *bytes.Buffer) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	srv := New(api, Options{Version: "test", Clock: market.NewFixedClock(t0)})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	var clientSide mcp.Transport = ct
	if wire != nil {
		clientSide = &mcp.LoggingTransport{Transport: ct, Writer: wire}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(ctx, clientSide, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return cs
}

// requiredTools are the names agents and tests rely on (issue 34).
var requiredTools = []string{"sector_ranking", "sector_movements", "kline", "quotes", "search_stocks", "block_members", "run_screen",
	"news_search", "hot_rank", "financial_reports", "corporate_actions", "limit_ladder", "dragon_tiger", "index_members", "cross_section"}

// ToolsListGoal bounds the whole tools/list answer: about 6,000 tokens
// of an agent's context, which every session spends before its first
// question.
const ToolsListGoal = 24 << 10

// The whole tools/list answer, as the server writes it, stays under the
// goal, with at most 20 tools and every required name.
func TestToolsListIsSmall(t *testing.T) {
	var wire bytes.Buffer
	cs := connect(t, &fakeAPI{}, &wire)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
			t.Errorf("tool %s is not marked read-only", tool.Name)
		}
	}
	if len(names) > 20 {
		t.Errorf("%d tools, want at most 20: %v", len(names), names)
	}
	for _, want := range requiredTools {
		if !slices.Contains(names, want) {
			t.Errorf("no tool %s among %v", want, names)
		}
	}
	size := 0
	sc := bufio.NewScanner(&wire)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if line := sc.Text(); strings.HasPrefix(line, "read: ") && strings.Contains(line, `"tools":[`) {
			size = len(line) - len("read: ")
		}
	}
	if size == 0 {
		t.Fatal("the tools/list answer was not seen on the wire")
	}
	t.Logf("tools/list: %d tools, %d bytes", len(names), size)
	if size > ToolsListGoal {
		t.Errorf("the tools/list answer is %d bytes, over the goal of %d: shorten the descriptions", size, ToolsListGoal)
	}
}

// closedSets are the parameters that take a closed set of values: each
// must list it (enum), so an agent never guesses one.
var closedSets = map[string][]string{
	"sector_ranking":   {"family", "direction"},
	"sector_movements": {"type", "sort", "order"},
	"kline":            {"freq", "adjust"},
	"search_stocks":    {"market", "type"},
	"block_members":    {"kind"},
	"run_screen":       {"market"},
	"news_search":      {"type"},
	"limit_pool":       {"kind"},
	"cross_section":    {"type", "sort", "order"},
	"etfs":             {"category", "sort", "order"},
}

// Every parameter with a closed set of values has an enum, every required
// parameter (and every example-worthy free-form one) has a default or
// examples an agent can copy, and every parameter says what it is.
func TestEveryParameterCanBeCopied(t *testing.T) {
	cs := connect(t, &fakeAPI{}, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		b, _ := json.Marshal(tool.InputSchema)
		var s struct {
			Properties map[string]struct {
				Description string `json:"description"`
				Enum        []any  `json:"enum"`
				Default     any    `json:"default"`
				Examples    []any  `json:"examples"`
				Items       *struct {
					Enum []any `json:"enum"`
				} `json:"items"`
			} `json:"properties"`
			Required             []string `json:"required"`
			AdditionalProperties *bool    `json:"additionalProperties"`
		}
		json.Unmarshal(b, &s)
		if tool.Description == "" {
			t.Errorf("%s has no description", tool.Name)
		}
		if s.AdditionalProperties == nil || *s.AdditionalProperties {
			t.Errorf("%s takes parameters it does not know (additionalProperties): a misspelt one would be ignored", tool.Name)
		}
		for name, p := range s.Properties {
			if p.Description == "" {
				t.Errorf("%s.%s has no description", tool.Name, name)
			}
		}
		for _, name := range s.Required {
			if p := s.Properties[name]; p.Default == nil && len(p.Examples) == 0 {
				t.Errorf("%s.%s is required and has neither a default nor examples", tool.Name, name)
			}
		}
		for _, name := range closedSets[tool.Name] {
			p, ok := s.Properties[name]
			if !ok || (len(p.Enum) == 0 && (p.Items == nil || len(p.Items.Enum) == 0)) {
				t.Errorf("%s.%s takes a closed set of values but lists no enum", tool.Name, name)
			}
		}
	}
}

// What each tool asks of the API, its defaults filled in: the tools are
// the API's, so their requests are the contract here.
func TestToolsCallTheAPI(t *testing.T) {
	for _, tt := range []struct {
		tool string
		args string
		want string // the last call
	}{
		{"sector_ranking", `{}`, "GET /v1/api/boards/top50?top=20"},
		{"sector_ranking", `{"family":"concept","direction":"outflow","day":"2026-11-20","limit":5}`, "GET /v1/api/boards/top50?day=2026-11-20&top=5"},
		{"sector_movements", `{"type":"concept","sort":"main_net","name":"半导体"}`, "GET /v1/api/market/movements?name=%E5%8D%8A%E5%AF%BC%E4%BD%93&order=desc&sort=main_net&top=20&type=concept"},
		{"kline", `{"code":"600519"}`, "GET /v1/api/kline?code=600519&end=2026-11-23&freq=D&start=2026-08-21"},
		{"kline", `{"code":"600519","limit":200}`, "GET /v1/api/kline?code=600519&end=2026-11-23&freq=D&start=2026-02-06"},
		{"kline", `{"code":"600519","freq":"1m","end":"2026-11-20 14:00"}`, "GET /v1/api/kline?code=600519&end=2026-11-20+14%3A00&freq=1m&start=2026-11-09"},
		{"kline", `{"code":"600519","adjust":"qfq","start":"2026-01-05","end":"2026-11-20","indicators":"ma5,macd"}`,
			"GET /v1/api/kline/adjusted?code=600519&end=2026-11-20&freq=D&indicators=ma5%2Cmacd&mode=qfq&start=2026-01-05"},
		{"quotes", `{"codes":["600519.SH","sh000001"]}`, "GET /v1/api/quotes?codes=600519.SH%2Csh000001"},
		{"search_stocks", `{"query":"茅台"}`, "GET /v1/api/meta/stocks?keyword=%E8%8C%85%E5%8F%B0&page_size=20"},
		{"block_members", `{"kind":"index"}`, "GET /v1/api/blocks?kind=index"},
		{"block_members", `{"block":"沪深300"}`, "GET /v1/api/block/members?block=%E6%B2%AA%E6%B7%B1300"},
		{"corporate_actions", `{"code":"600519.SH"}`, "GET /v1/api/corporate_actions?code=600519.SH"},
		{"news_search", `{"query":"增持","type":"announcement"}`, "GET /v1/api/news/list?page_size=20&q=%E5%A2%9E%E6%8C%81&type=2"},
		{"news_search", `{"id":7}`, "GET /v1/api/news/view?id=7"},
		{"hot_rank", `{"codes":["600519.SH","000001.SZ"],"start":"2026-11-01","end":"2026-11-20"}`,
			"GET /v1/api/hot_rank?end_date=2026-11-20&size=20&start_date=2026-11-01&stock_code=600519.SH%2C000001.SZ"},
		{"financial_reports", `{"codes":["600519.SH"],"period":"2026Q3"}`, "GET /v1/api/financial-reports?page_size=20&period=2026Q3&stock_code=600519.SH"},
		{"limit_ladder", `{"date":"2026-11-20"}`, "GET /v1/api/limit_ladder?date=2026-11-20"},
		{"limit_pool", `{}`, "GET /v1/api/limit_pool?kind=up"},
		{"dragon_tiger", `{"date":"2026-11-20","seats":true}`, "GET /v1/api/lhb?date=2026-11-20&seats=true"},
		{"index_members", `{"index":"沪深300"}`, "GET /v1/api/index/members?code=%E6%B2%AA%E6%B7%B1300"},
		{"index_members", `{"index":"000300.SH","changes":true,"start":"2026-01-01"}`, "GET /v1/api/index/changes?code=000300.SH&start=2026-01-01"},
		{"cross_section", `{"date":"2026-11-20"}`, "GET /v1/api/bars/daily?date=2026-11-20&page_size=10000&type=stock"},
		{"cross_section", `{"date":"2026-11-20","minute":"10:30","codes":["600519.SH"]}`,
			"GET /v1/api/bars/minute?codes=600519.SH&date=2026-11-20&page_size=10000&time=10%3A30&type=stock"},
		{"etfs", `{}`, "GET /v1/api/etfs?limit=20&order=desc&sort=amount"},
	} {
		t.Run(tt.tool+" "+tt.args, func(t *testing.T) {
			api := &fakeAPI{}
			cs := connect(t, api, nil)
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tt.tool, Arguments: json.RawMessage(tt.args)})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError {
				t.Fatalf("%s(%s) is a tool error: %s", tt.tool, tt.args, textOf(res))
			}
			if got := api.last(); got != tt.want {
				t.Errorf("%s(%s) called\n%s\nwant\n%s", tt.tool, tt.args, got, tt.want)
			}
		})
	}
}

func textOf(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// structured is a result's structured content, decoded.
func structured(t *testing.T, res *mcp.CallToolResult) Result {
	t.Helper()
	b, _ := json.Marshal(res.StructuredContent)
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
	return r
}

// Bad input is a tool error (isError), never a protocol error: what the
// schema refuses, what the tool itself refuses, and the API's own
// refusals, whose status, message and detail the error carries.
func TestBadInputIsAToolError(t *testing.T) {
	api := &fakeAPI{
		answers: map[string]string{"GET /v1/api/kline": `{"code":0,"message":"missing or invalid params","detail":"code: code \"nope\": want a form such as 600519.SH"}`,
			"GET /v1/api/quotes": `{"code":0,"message":"forbidden","detail":"this endpoint needs scope market"}`},
		status: map[string]int{"GET /v1/api/kline": 400, "GET /v1/api/quotes": 403},
	}
	cs := connect(t, api, nil)
	for _, tt := range []struct {
		tool, args string
		want       []string
		status     int
	}{
		{"kline", `{"code":"nope"}`, []string{"HTTP 400 missing or invalid params", `code "nope"`}, 400},
		{"quotes", `{"codes":["600519"]}`, []string{"HTTP 403 forbidden", "needs scope market"}, 403},
		{"kline", `{"code":"600519","freq":"W"}`, []string{"freq", "W"}, 0},
		{"kline", `{}`, []string{"code"}, 0},
		{"kline", `{"code":"600519","limit":500}`, []string{"limit", "200"}, 0},
		{"kline", `{"code":"600519","colour":"red"}`, []string{"colour"}, 0},
		{"quotes", `{"codes":[]}`, []string{"codes"}, 0},
		{"kline", `{"code":"600519","end":"yesterday"}`, []string{"end", "yesterday"}, 0},
		{"run_screen", `{}`, []string{"expression"}, 0},
		{"nonexistent_tool", `{}`, nil, -1},
	} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tt.tool, Arguments: json.RawMessage(tt.args)})
		if tt.status == -1 {
			// An unknown tool is the one protocol error: the list says which exist.
			if err == nil {
				t.Errorf("%s: no error", tt.tool)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s(%s): a protocol error %v, want a tool error", tt.tool, tt.args, err)
			continue
		}
		text := textOf(res)
		if !res.IsError {
			t.Errorf("%s(%s) = %s, want a tool error", tt.tool, tt.args, text)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s(%s) error %q does not say %q", tt.tool, tt.args, text, w)
			}
		}
		if tt.status > 0 {
			var sc struct {
				Error struct {
					Status  int    `json:"status"`
					Message string `json:"message"`
					Detail  string `json:"detail"`
				} `json:"error"`
			}
			b, _ := json.Marshal(res.StructuredContent)
			json.Unmarshal(b, &sc)
			if sc.Error.Status != tt.status || sc.Error.Message == "" || sc.Error.Detail == "" {
				t.Errorf("%s(%s) error's structured content %s: want status %d, message and detail", tt.tool, tt.args, b, tt.status)
			}
		}
	}
	// No answer at all: the API's own words (the stdio command says how
	// to start mdqs) as the tool's error.
	down := &fakeAPI{err: errors.New("no mdqs answers at http://127.0.0.1:8080: start one with `mdqs serve`")}
	res, err := connect(t, down, nil).CallTool(context.Background(), &mcp.CallToolParams{Name: "quotes", Arguments: json.RawMessage(`{"codes":["600519"]}`)})
	if err != nil || !res.IsError || !strings.Contains(textOf(res), "mdqs serve") {
		t.Errorf("quotes with mdqs down = %v, %v; want a tool error saying how to start it", res, err)
	}
}

// A result holds at most its limit of rows (MaxRows at most), says how
// many the API had and how to narrow, names its source and as_of (the
// read time, said so, when the answer has none), and writes its units;
// the text table writes large amounts in 万 and 亿.
func TestResultsAreBoundedAndSayWhereFrom(t *testing.T) {
	var rows []string
	for i := range 300 {
		rows = append(rows, fmt.Sprintf(`{"trade_date":"bar %d","close":%d,"amount":123456789012,"volume":45678}`, i, i))
	}
	api := &fakeAPI{answers: map[string]string{
		"GET /v1/api/kline": `{"code":1,"message":"OK","data":{"code":"600519.SH","source":"store","final_through":"2026-11-20","realtime_as_of":null,"indicators":[],"rows":[` +
			strings.Join(rows, ",") + `]}}`,
		"GET /v1/api/meta/stocks":   `{"code":1,"message":"OK","data":{"items":[{"code":"600519.SH","name":"贵州茅台","source":"tdx"}],"total":1}}`,
		"GET /v1/api/block/members": `{"code":1,"message":"OK","data":{"name":"白酒","members":[{"code":"600519.SH","name":"贵州茅台"}],"total":1}}`,
		"GET /v1/api/news/view": `{"code":1,"message":"OK","data":{"id":7,"title":"标题","published_at":"2026-11-20 09:00:00","source":"demo","codes":["600519.SH"],"body":"` +
			strings.Repeat("正文", 100) + `"}}`,
		"GET /v1/api/limit_ladder": `{"code":1,"message":"OK","data":{"date":"2026-11-20","as_of":null,"source":"store","levels":[` +
			`{"boards":3,"count":1,"items":[{"code":"600001.SH","name":"甲","boards":3}]},{"boards":1,"count":2,"items":[{"code":"000002.SZ","name":"乙","boards":1},` +
			`{"code":"300003.SZ","name":"丙","boards":1}]}],"promotion":[{"from_boards":2,"to_boards":3,"yesterday":2,"promoted":1,"rate":0.5}]}}`,
		"GET /v1/api/boards/top50": `{"ts":1795399200,"day":"20261123","source":"demo","sectors":[{"sector_name":"A","main_net":150000000},{"sector_name":"B","main_net":-5000}],` +
			`"industry":[` + strings.Repeat(`{"sector_name":"x"},`, 40) + `{"sector_name":"x"}]}`,
	}}
	cs := connect(t, api, nil)
	call := func(tool, args string) (*mcp.CallToolResult, Result) {
		t.Helper()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
		if err != nil || res.IsError {
			t.Fatalf("%s(%s): %v %s", tool, args, err, textOf(res))
		}
		return res, structured(t, res)
	}

	res, r := call("kline", `{"code":"600519","limit":200}`)
	if r.Count != 200 || len(r.Rows) != 200 || r.Total != 300 || !strings.Contains(r.Note, "200 of 300 rows (the last 200)") ||
		cellOf(r, 0, "close") != "100" || r.Source != "store" || r.AsOf != "2026-11-20" || r.AsOfFrom != "final_through" ||
		r.Units["amount"] != "元" || r.Units["volume"] != "股" || r.Units["pct"] != "" { // units of the fields the rows have: these have no pct
		t.Errorf("kline of 300 bars: count %d total %d note %q source %q as_of %q (%s) units %v first %s",
			r.Count, r.Total, r.Note, r.Source, r.AsOf, r.AsOfFrom, r.Units, r.Rows[0])
	}
	if !slices.Equal(r.Columns, []string{"trade_date", "close", "amount", "volume"}) {
		t.Errorf("kline's columns %v, want the rows' fields in the API's order", r.Columns)
	}
	text := textOf(res)
	for _, want := range []string{"kline · source store · as_of 2026-11-20 · 200 rows of 300", "amount 元", "volume 股", "1234.57亿 ", "4.57万 ", "note: 200 of 300"} {
		if !strings.Contains(text, want) {
			t.Errorf("kline's text does not say %q:\n%.600s", want, text)
		}
	}
	if lines := strings.Count(text, "\n"); lines > 205 {
		t.Errorf("kline's text has %d lines for 200 rows", lines)
	}
	if _, r := call("kline", `{"code":"600519","limit":5}`); r.Count != 5 || cellOf(r, 4, "close") != "299" {
		t.Errorf("kline limit 5: %d rows, last %s; want the latest five", r.Count, r.Rows[len(r.Rows)-1])
	}
	if _, r := call("search_stocks", `{"query":"茅台"}`); r.Source != "tdx" || r.AsOfFrom != "read" || r.AsOf != market.FormatTime(t0) {
		t.Errorf("search_stocks: source %q as_of %q (%s); want the rows' source and the read time", r.Source, r.AsOf, r.AsOfFrom)
	}
	if res, r := call("block_members", `{"block":"白酒"}`); r.Source != "tdx" || !strings.Contains(textOf(res), "read time") {
		t.Errorf("block_members: source %q, text %q; want the terminal named and the read time said", r.Source, textOf(res))
	}
	res, r = call("sector_ranking", `{"limit":2}`)
	if r.Source != "demo" || r.AsOf != "2026-11-23 10:00:00" || r.AsOfFrom != "ts" || r.Count != 2 || r.Meta["industry"] != nil || r.Meta["day"] == nil {
		t.Errorf("sector_ranking: %+v; want source demo, as_of from ts, the other families' long lists left out of meta", r)
	}
	// One item read in full is whole in the text too; a list's cells are
	// cut to keep a row a line.
	if res, r := call("news_search", `{"id":7}`); r.Count != 1 || r.AsOf != "2026-11-20 09:00:00" || !strings.Contains(textOf(res), strings.Repeat("正文", 100)) {
		t.Errorf("news_search of one item: %+v\n%s", r, textOf(res))
	}
	// The ladder's rungs are flattened into one row a stock; its
	// promotion rates, a list of objects, stay in meta.
	if res, r := call("limit_ladder", `{}`); r.Count != 3 || cellOf(r, 2, "code") != `"300003.SZ"` || r.Meta["promotion"] == nil || r.AsOf != "2026-11-20" ||
		!strings.Contains(textOf(res), "3 | 600001.SH | 甲") {
		t.Errorf("limit_ladder: %+v\n%s", r, textOf(res))
	}
	if text := textOf(res); !strings.Contains(text, "| 1.50亿 |") || !strings.Contains(text, "| -5000 |") {
		t.Errorf("sector_ranking's text:\n%s", text)
	}
}

// cellOf is row i's value of col, as written.
func cellOf(r Result, i int, col string) string {
	j := slices.Index(r.Columns, col)
	if i >= len(r.Rows) || j < 0 || j >= len(r.Rows[i]) {
		return ""
	}
	return string(r.Rows[i][j])
}

// Rows that lack a field the others have hold null there; rows of one
// value (not objects) are a column "value".
func TestTabulate(t *testing.T) {
	// encode writes what json.Marshal of the Result would.
	body, err := os.ReadFile("testdata/kline-600519-120.json")
	if err != nil {
		t.Fatal(err)
	}
	sh := shape{rows: "rows", limit: 10, tail: true, asOf: []string{"final_through"}, units: barUnits, narrow: "less"}
	res, err := sh.result(body, t0)
	if err != nil {
		t.Fatal(err)
	}
	mine, err := res.encode()
	std, _ := json.Marshal(res)
	var x, y any
	if err != nil || json.Unmarshal(mine, &x) != nil || json.Unmarshal(std, &y) != nil || !reflect.DeepEqual(x, y) {
		t.Errorf("encode = %s (%v)\njson.Marshal = %s", mine, err, std)
	}

	cols, m := tabulate([]json.RawMessage{json.RawMessage(`{"a":1,"b":"x"}`), json.RawMessage(`{"b":"y","c":{"d":[1,2]}}`), json.RawMessage(`{}`)})
	b, _ := json.Marshal(Result{Columns: cols, Rows: m})
	if !strings.Contains(string(b), `"columns":["a","b","c"],"rows":[[1,"x",null],[null,"y",{"d":[1,2]}],[null,null,null]]`) {
		t.Errorf("tabulate: %s", b)
	}
	cols, m = tabulate([]json.RawMessage{json.RawMessage(`"600519.SH"`)})
	if b, _ := json.Marshal(Result{Columns: cols, Rows: m}); !strings.Contains(string(b), `"columns":["value"],"rows":[["600519.SH"]]`) {
		t.Errorf("tabulate of plain values: %s", b)
	}
}

// The scanner splits what encoding/json reads, escapes and nesting
// included, and refuses what is not JSON's shape.
func TestScan(t *testing.T) {
	ms, err := members([]byte(` { "a" : "x\"y\\" , "b\u0063":[1,{"c":"]}"}], "d":null,"e":-1.5e3 } `))
	if err != nil || len(ms) != 4 || string(ms[0].key) != "a" || string(ms[0].value) != `"x\"y\\"` || string(ms[1].key) != "bc" ||
		string(ms[1].value) != `[1,{"c":"]}"}]` || string(ms[2].value) != "null" || string(ms[3].value) != "-1.5e3" {
		t.Errorf("members = %q, %v", ms, err)
	}
	list, err := items([]byte(`[ "a\\", {"b":[]} ,3]`))
	if err != nil || len(list) != 3 || string(list[0]) != `"a\\"` || string(list[1]) != `{"b":[]}` || string(list[2]) != "3" {
		t.Errorf("items = %q, %v", list, err)
	}
	for _, bad := range []string{``, `{`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{"a":"x}`, `[1 2]`, `{"a":[1}`, `"x"`} {
		if _, err := members([]byte(bad)); err == nil {
			t.Errorf("members(%q) took it", bad)
		}
	}
	if got := string(field([]byte(`{"x":{"y":2},"z":3}`), "z")); got != "3" {
		t.Errorf("field z = %q", got)
	}
}
