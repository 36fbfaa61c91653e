package api

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"mdqs/db"
	"mdqs/internal/alert"
	"mdqs/internal/kline"
	"mdqs/internal/market"
	"mdqs/internal/secmaster"
	"mdqs/internal/webhook/webhooktest"
)

// contract validates requests and responses against the served OpenAPI
// document with kin-openapi: the document must describe what the server
// really accepts and really answers, status codes included.
type contract struct {
	t        *testing.T
	doc      *openapi3.T
	router   routers.Router
	seen     map[string]bool            // "METHOD /path" validated with a 2xx answer
	examples map[string]json.RawMessage // the first JSON 200 answer of each
}

var updateExamples = flag.Bool("update-examples", false, "record real answers into openapi_examples.json")

func newContract(t *testing.T, h *harness) *contract {
	t.Helper()
	r := h.do(http.MethodGet, "/v1/openapi.json", nil, nil)
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(r.raw)
	if err != nil {
		t.Fatalf("openapi.json does not load: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("openapi.json is not a valid OpenAPI 3 document: %v", err)
	}
	closeObjects(doc)
	router, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	// The dashboard's files are text; kin-openapi decodes only the types
	// it knows.
	for _, ct := range []string{"text/html", "text/css", "text/javascript", "image/svg+xml", "text/event-stream", "text/csv"} {
		if openapi3filter.RegisteredBodyDecoder(ct) == nil {
			openapi3filter.RegisterBodyDecoder(ct, openapi3filter.PlainBodyDecoder)
		}
	}
	return &contract{t: t, doc: doc, router: router, seen: map[string]bool{}, examples: map[string]json.RawMessage{}}
}

// closeObjects makes every object schema that lists its properties refuse
// others, so a field the server sends and the document does not name fails
// the test: the document must be complete, not merely not wrong.
func closeObjects(doc *openapi3.T) {
	// An allOf member is one part of an object and must not refuse the
	// other parts' properties, wherever else it is used; only what it
	// contains is closed.
	members := map[*openapi3.Schema]bool{}
	eachSchema(doc, func(s *openapi3.Schema) {
		for _, x := range s.AllOf {
			if x.Value != nil {
				members[x.Value] = true
			}
		}
	})
	eachSchema(doc, func(s *openapi3.Schema) {
		if len(s.Properties) > 0 && !members[s] && s.AdditionalProperties.Has == nil && s.AdditionalProperties.Schema == nil {
			no := false
			s.AdditionalProperties.Has = &no
		}
	})
}

// eachSchema calls fn once for every schema reachable from a response.
func eachSchema(doc *openapi3.T, fn func(*openapi3.Schema)) {
	seen := map[*openapi3.Schema]bool{}
	var walk func(ref *openapi3.SchemaRef)
	walk = func(ref *openapi3.SchemaRef) {
		if ref == nil || ref.Value == nil || seen[ref.Value] {
			return
		}
		s := ref.Value
		seen[s] = true
		fn(s)
		for _, p := range s.Properties {
			walk(p)
		}
		walk(s.Items)
		walk(s.AdditionalProperties.Schema)
		for _, l := range [][]*openapi3.SchemaRef{s.AllOf, s.AnyOf, s.OneOf} {
			for _, x := range l {
				walk(x)
			}
		}
	}
	for _, path := range doc.Paths.Map() {
		for _, op := range path.Operations() {
			for _, r := range op.Responses.Map() {
				if r.Value == nil {
					continue
				}
				for _, mt := range r.Value.Content {
					walk(mt.Schema)
				}
			}
		}
	}
}

// check validates one exchange. The request is checked too: a parameter
// the server takes but the document does not allow is a lie of the
// document as much as a wrong answer is.
func (c *contract) check(method, target string, body []byte, header http.Header, r response) {
	c.t.Helper()
	req := httptest.NewRequest(method, "http://127.0.0.1:8080"+target, bytes.NewReader(body))
	for k, v := range header {
		req.Header[k] = v
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	route, params, err := c.router.FindRoute(req)
	if err != nil {
		c.t.Errorf("%s %s: not in the document: %v", method, target, err)
		return
	}
	opts := &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, IncludeResponseStatus: true, MultiError: true}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: opts}
	if r.status < 400 {
		// A request the server refuses may well break the document's
		// rules; that is why it was refused.
		if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
			c.t.Errorf("%s %s: the request the server accepted breaks the document: %v", method, target, err)
		}
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: r.status, Header: r.header,
		Body: io.NopCloser(bytes.NewReader(r.raw)), Options: opts}
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		c.t.Errorf("%s %s -> %d: the answer breaks the document: %v\n%.400s", method, target, r.status, err, r.raw)
	}
	if r.status < 300 {
		c.seen[method+" "+route.Path] = true
	}
	key := method + " " + route.Path
	if _, ok := c.examples[key]; !ok && r.status == 200 && strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
		c.examples[key] = r.raw
	}
}

// writeExamples records the answers as openapi_examples.json, every list
// cut to three entries so the document stays readable.
func (c *contract) writeExamples() {
	c.t.Helper()
	out := map[string]any{}
	for key, raw := range c.examples {
		if strings.HasSuffix(key, " /v1/openapi.json") {
			continue
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			c.t.Fatalf("%s: %v", key, err)
		}
		out[key] = cutLists(v, 3)
	}
	b, err := json.MarshalIndent(out, "", " ")
	if err != nil {
		c.t.Fatal(err)
	}
	if err := os.WriteFile("openapi_examples.json", append(b, '\n'), 0o644); err != nil {
		c.t.Fatal(err)
	}
	c.t.Logf("recorded %d examples in openapi_examples.json", len(out))
}

func cutLists(v any, n int) any {
	switch x := v.(type) {
	case []any:
		x = x[:min(len(x), n)]
		for i := range x {
			x[i] = cutLists(x[i], n)
		}
		return x
	case map[string]any:
		for k := range x {
			x[k] = cutLists(x[k], n)
		}
	}
	return v
}

// raw requests without the harness's JSON decoding, for answers that are
// not envelopes (dashboard files, metrics, 304s).
func (h *harness) raw(method, target string, body []byte, header http.Header) response {
	h.t.Helper()
	req, err := http.NewRequest(method, h.srv.URL+target, bytes.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	res, err := h.srv.Client().Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return response{status: res.StatusCode, header: res.Header, raw: b}
}

// TestResponsesMatchOpenAPI calls every endpoint, with a request that
// succeeds and with requests that fail in each documented way, and
// validates every answer against openapi.json.
func TestResponsesMatchOpenAPI(t *testing.T) {
	// The screener starts stopped, so that a screen stays queued to be
	// canceled; the test starts it after.
	// Webhooks may reach this machine: the alert with a webhook sends to a
	// local robot.
	h := newInfoHarnessAt(t, t0, withTerminal(t), withScreener(5, true), withAlerts(alert.Config{MaxPerClient: 5,
		Webhooks: alert.Webhooks{AllowPrivate: true, Timeout: 2 * time.Second,
			Resolve: func(context.Context, string, string) ([]netip.Addr, error) { return nil, nil }}}))
	c := newContract(t, h.harness)
	admin := h.admin
	h.addClient("market", "secret-m", clientOpts{scopes: "market"})
	marketTok := h.token("market", "secret-m")

	exchange := func(method, target string, body []byte, tok string) response {
		t.Helper()
		var hdr http.Header
		if tok != "" {
			hdr = h.signedHeader(tok, body)
		}
		r := h.raw(method, target, body, hdr)
		c.check(method, target, body, hdr, r)
		return r
	}
	// Every successful JSON answer of an endpoint that offers CSV is
	// asked again as CSV, validated too, and held to the JSON's rows.
	csvSeen := map[string]bool{}
	want := func(status int, method, target string, body []byte, tok string) response {
		t.Helper()
		r := exchange(method, target, body, tok)
		if r.status != status {
			t.Errorf("%s %s = %d, want %d: %.300s", method, target, r.status, status, r.raw)
		}
		path, _, _ := strings.Cut(target, "?")
		if _, offered := csvOf(path); offered && method == http.MethodGet && r.status == http.StatusOK &&
			strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
			checkCSVTwin(t, path, r, exchange(method, withParam(target, "format=csv"), nil, tok))
			csvSeen[path] = true
		}
		return r
	}
	dataOf := func(r response) map[string]any {
		var env struct {
			Data map[string]any `json:"data"`
		}
		json.Unmarshal(r.raw, &env)
		return env.Data
	}

	// Data the read endpoints need: a terminal import, a hot-rank day,
	// the day's news, the end-of-day signals and chips, a screen. The
	// index lists go first: the import's capped block_zs.dat list of
	// 沪深300 does not follow them.
	recordIndexDays(t, h.store)
	want(200, http.MethodPost, "/v1/api/refresh", []byte(`{}`), admin)
	want(200, http.MethodPost, "/v1/api/hot_rank/import", []byte(`{"date":"2026-11-20"}`), admin)
	want(200, http.MethodPost, "/v1/api/update-news", nil, admin)
	if err := h.api.Klines.EndOfDay(context.Background(), h.harness.demo, kline.EODConfig{SeedDays: 60}); err != nil {
		t.Fatal(err)
	}
	if err := h.api.Info.Finance.Job(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := h.api.LHB.Job(context.Background()); err != nil {
		t.Fatal(err)
	}
	lhbDay := want(200, http.MethodGet, "/v1/api/lhb?date=2026-11-20&seats=1", nil, admin)
	lhbCode, lhbSeat := "", ""
	if items, _ := dataOf(lhbDay)["items"].([]any); len(items) > 0 {
		it := items[0].(map[string]any)
		lhbCode, _ = it["code"].(string)
		if seats, _ := it["buy_seats"].([]any); len(seats) > 0 {
			lhbSeat, _ = seats[0].(map[string]any)["seat_name"].(string)
		}
	}
	if lhbCode == "" || lhbSeat == "" {
		t.Fatalf("no listed stock with seats on 2026-11-20: %.300s", lhbDay.raw)
	}
	recordSecurityDays(t, h.store)
	storeMinuteDays(t, h.harness, 20261120, "600519.SH", "000001.SZ")
	// Published limit pools of 2026-11-20 (constructed: the demo publishes
	// none), so the quality answer of that day holds a comparison.
	if err := h.store.ReplacePublishedPools(context.Background(), db.PublishedDay{Day: 20261120, Asked: 20261120, Source: "push2ex",
		ImportedAt: time.Date(2026, 11, 20, 15, 40, 0, 0, market.Shanghai()), Pools: []db.PublishedPool{
			{Kind: "up", Total: 1, Rows: []db.PublishedRow{{Code: market.MustCode("600198.SH"), Name: "大 唐电信", Price: 8.5, LimitPrice: math.NaN(),
				ChangePct: math.NaN(), Amount: math.NaN(), FloatCap: math.NaN(), Turnover: math.NaN(), SealFund: math.NaN(), Boards: 1,
				FirstSeal: 33900, LastSeal: 33900, CountDays: -1, CountUp: -1}}},
			{Kind: "down"}, {Kind: "broken"}, {Kind: "yesterday"}}}); err != nil {
		t.Fatal(err)
	}
	pending := want(200, http.MethodPost, "/v1/api/screener/queue/submit", []byte(`{"expression":"price > 1","idempotency_key":"k1"}`), admin)
	pendingID, _ := dataOf(pending)["id"].(string)
	want(200, http.MethodPost, "/v1/api/screener/queue/cancel", []byte(`{"id":"`+pendingID+`"}`), admin)
	want(409, http.MethodPost, "/v1/api/screener/queue/cancel", []byte(`{"id":"`+pendingID+`"}`), admin)
	if err := h.api.Screener.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.api.Screener.Stop)
	sub := want(200, http.MethodPost, "/v1/api/screener/queue/submit", []byte(`{"expression":"price > 10","sort":"-pct","limit":5}`), admin)
	screenID, _ := dataOf(sub)["id"].(string)
	h.waitScreen(t, admin, screenID)
	created := want(200, http.MethodPost, "/v1/api/alerts", []byte(`{"expression":"pct > -100","universe":{"codes":["600519.SH"]},"cooldown":"15m","name":"any move"}`), admin)
	alertID, _ := dataOf(created)["id"].(string)
	robot := webhooktest.NewReceiver(t, "dingtalk", "SECabc", h.clock.Now)
	hooked := want(200, http.MethodPost, "/v1/api/alerts", []byte(`{"expression":"pct > -100","universe":{"codes":["600519.SH"]},"name":"钉钉",`+
		`"webhook":{"url":"`+robot.URL()+`","format":"dingtalk","secret":"SECabc"}}`), admin)
	hookedID, _ := dataOf(hooked)["id"].(string)
	if _, err := h.api.Alerts.Evaluate(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n, err := h.api.Alerts.Deliver(context.Background()); err != nil || n != 1 {
		t.Fatalf("deliver: %d, %v", n, err)
	}
	doomed := want(200, http.MethodPost, "/v1/api/alerts", []byte(`{"expression":"pct > 0"}`), admin)
	doomedID, _ := dataOf(doomed)["id"].(string)
	canceled := want(200, http.MethodPost, "/v1/api/alerts", []byte(`{"expression":"pct > 0"}`), admin)
	canceledID, _ := dataOf(canceled)["id"].(string)
	list := want(200, http.MethodGet, "/v1/api/news/list?page_size=5", nil, admin)
	newsID := ""
	if items, _ := dataOf(list)["items"].([]any); len(items) > 0 {
		if f, ok := items[0].(map[string]any)["id"].(float64); ok {
			newsID = strconv.FormatInt(int64(f), 10)
		}
	}
	if newsID == "" {
		t.Fatalf("no news item to view: %s", list.raw)
	}

	for _, tc := range []struct {
		status         int
		method, target string
		body           string
	}{
		// Authentication and the health endpoints.
		{200, "POST", "/v1/auth/token", `{"client_id":"admin","client_secret":"secret-a"}`},
		{200, "POST", "/v1/api/token", `{"client_id":"admin","client_secret":"secret-a"}`},
		{400, "POST", "/v1/auth/token", `{"client_id":"admin"}`},
		{400, "POST", "/v1/auth/token", `not json`},
		{401, "POST", "/v1/auth/token", `{"client_id":"admin","client_secret":"wrong"}`},
		{200, "GET", "/v1/api/health/cache", ""},
		{200, "GET", "/v1/api/health/db", ""},
		{200, "GET", "/v1/api/health/sources", ""},
		{200, "GET", "/v1/api/health/instance", ""},
		{200, "GET", "/healthz", ""},
		{200, "GET", "/readyz", ""},
		{200, "GET", "/v1/api/whoami", ""},
		{200, "GET", "/v1/openapi.json", ""},

		// Sectors.
		{200, "GET", "/v1/api/boards/top50", ""},
		{200, "GET", "/v1/api/boards/top50?top=5&refresh=1", ""},
		{400, "GET", "/v1/api/boards/top50?day=2026-02-30", ""},
		{200, "GET", "/v1/api/strategy/auction/today", ""},
		{200, "GET", "/v1/api/market/stats/range?start=20261116&end=20261123&top=3", ""},
		{400, "GET", "/v1/api/market/stats/range?start=20261123&end=20261101", ""},
		{200, "GET", "/v1/api/boards/industry?sort=main_net&order=desc&top=5", ""},
		{200, "GET", "/v1/api/boards/concept?min_amount=0&name=" + url.QueryEscape("概念1"), ""},
		{400, "GET", "/v1/api/boards/industry?sort=bogus", ""},
		{404, "GET", "/v1/api/boards/industry?code=BK9999", ""},
		{200, "GET", "/v1/api/market/movements?type=concept&top=5", ""},
		{200, "GET", "/v1/api/market/movements/events?type=industry", ""},
		{400, "GET", "/v1/api/market/movements/events?since=yesterday", ""},
		{200, "GET", "/v1/api/quotes?codes=600519.SH,000001.SZ,000001.SH,399006.SZ", ""},
		{400, "GET", "/v1/api/quotes?codes=60051", ""},
		{404, "GET", "/v1/api/quotes?codes=600519.SH,399998.SZ", ""},
		{200, "GET", "/v1/api/etfs", ""},
		{200, "GET", "/v1/api/etfs?category=a_share&sort=premium&order=asc&limit=2", ""},
		{200, "GET", "/v1/api/etfs?category=gold", ""},
		{400, "GET", "/v1/api/etfs?sort=nav", ""},
		{400, "GET", "/v1/api/etfs?limit=0", ""},

		// K-lines and indicators.
		{200, "GET", "/v1/api/kline?code=600519.SH&freq=D&start=2026-11-02&end=2026-11-20&indicators=ma5,macd", ""},
		{200, "GET", "/v1/api/kline?code=600519.SH&freq=1m&start=2026-11-20&end=2026-11-23&fields=close,volume", ""},
		{400, "GET", "/v1/api/kline?code=600519.SH&freq=2h&start=2026-11-02&end=2026-11-20", ""},
		{200, "GET", "/v1/api/kline/with_realtime?code=000001.SZ&freq=D&page=1&page_size=50", ""},
		{200, "GET", "/v1/api/kline/adjusted?code=600519.SH&freq=D&start=2025-06-20&end=2025-07-03&mode=qfq&indicators=ma5", ""},
		{200, "GET", "/v1/api/kline/adjusted?code=000001.SZ&freq=D&start=2026-11-16&end=2026-11-20&mode=hfq&fields=close,adj_factor,adj_offset", ""},
		{400, "GET", "/v1/api/kline/adjusted?code=600519.SH&freq=D&start=2025-06-20&end=2025-07-03", ""},
		{200, "GET", "/v1/api/kline?code=600519.SH&freq=D&start=2025-06-20&end=2025-07-03&fields=close,adj_factor,adj_offset", ""},
		{200, "GET", "/v1/api/corporate_actions?code=000001.SZ", ""},
		{400, "GET", "/v1/api/corporate_actions?code=000001.SZ&start=2026-13-01", ""},
		{200, "GET", "/v1/api/intraday/kline?code=300750.SZ&freq=5m", ""},
		{200, "GET", "/v1/api/indicators/macd_bs?code=600519.SH&freq=D&start=2026-06-01&end=2026-11-20", ""},
		{200, "GET", "/v1/api/indicators/micro_momentum?code=300750.SZ&freq=1m", ""},
		{200, "GET", "/v1/api/monitor/chip_metrics?sort=profit_ratio&order=desc&page_size=5", ""},
		{400, "GET", "/v1/api/monitor/chip_metrics?sort=color", ""},

		// The security master.
		{200, "GET", "/v1/api/securities", ""},
		{200, "GET", "/v1/api/securities?date=2026-11-20&type=stock&board=main&st=true", ""},
		{404, "GET", "/v1/api/securities?date=2026-11-02", ""},
		{400, "GET", "/v1/api/securities?board=gem", ""},
		{200, "GET", "/v1/api/securities/history?code=600001.SH", ""},
		{200, "GET", "/v1/api/bars/daily?date=2026-11-20", ""},
		{200, "GET", "/v1/api/bars/daily?date=2026-11-20&codes=600519.SH,600001.SH&type=stock&page=1&page_size=2", ""},
		{404, "GET", "/v1/api/bars/daily?date=2026-11-02", ""},
		{400, "GET", "/v1/api/bars/daily", ""},
		{200, "GET", "/v1/api/limit_pool?date=2026-11-20&kind=up", ""},
		{200, "GET", "/v1/api/limit_pool?date=2026-11-20&kind=yesterday", ""},
		{200, "GET", "/v1/api/limit_ladder?date=2026-11-20", ""},
		{400, "GET", "/v1/api/limit_pool?date=2026-11-21", ""},
		{200, "GET", "/v1/api/limit_pool?date=2026-11-20&kind=strong", ""},
		{400, "GET", "/v1/api/limit_pool?date=2026-11-20&kind=new", ""},
		{404, "GET", "/v1/api/limit_ladder?date=2025-01-02", ""},
		{200, "GET", "/v1/api/limit_ladder?date=2026-11-02", ""}, // before the security master's record: from the stored bars
		{200, "GET", "/v1/api/bars/minute?date=2026-11-20&time=10:30", ""},
		{200, "GET", "/v1/api/bars/minute?date=2026-11-20&time=09:31&codes=600519.SH,600001.SH&type=stock&page=1&page_size=2", ""},
		{404, "GET", "/v1/api/bars/minute?date=2026-11-02&time=10:30", ""},
		{400, "GET", "/v1/api/bars/minute?date=2026-11-20&time=09:30", ""},
		{400, "GET", "/v1/api/bars/minute?date=2026-11-20", ""},
		{404, "GET", "/v1/api/securities/history?code=600999.SH", ""},
		{200, "GET", "/v1/api/index/members?code=000300.SH", ""},
		{200, "GET", "/v1/api/index/members?code=000300&date=2026-11-22", ""},
		{200, "GET", "/v1/api/index/changes?code=000300.SH", ""},
		{200, "GET", "/v1/api/index/changes?code=%E6%B2%AA%E6%B7%B1300&start=2026-11-20&end=2026-11-20", ""},
		{400, "GET", "/v1/api/index/members?code=000300.SH&date=2026-13-01", ""},
		{400, "GET", "/v1/api/index/members", ""},
		{400, "GET", "/v1/api/index/changes?code=000300.SH&start=2026-11-21&end=2026-11-20", ""},
		{404, "GET", "/v1/api/index/members?code=000300.SH&date=2026-01-05", ""},
		{404, "GET", "/v1/api/index/members?code=000852.SH", ""},
		{404, "GET", "/v1/api/index/changes?code=000852.SH", ""},
		{200, "GET", "/v1/api/archive/status", ""},
		{200, "GET", "/v1/api/quality", ""},
		{200, "GET", "/v1/api/quality?date=2026-11-20", ""},
		{200, "GET", "/v1/api/quality?date=2026-11-02", ""}, // not recorded: the archive part says so, the pools compare
		{400, "GET", "/v1/api/quality?date=20261120x", ""},

		// The terminal bridge.
		{200, "GET", "/v1/api/calendar?start=2026-09-28&end=2026-10-09", ""},
		{200, "GET", "/v1/api/calendar?start=2026-12-28&end=2027-01-05", ""},
		{400, "GET", "/v1/api/calendar?start=2026-11-30&end=2026-11-01", ""},
		{200, "GET", "/v1/api/meta/stocks?market=SH&type=stock", ""},
		{200, "GET", "/v1/api/blocks?kind=industry", ""},
		{200, "GET", "/v1/api/block/members?kind=industry&block=" + url.QueryEscape("煤炭"), ""},
		{404, "GET", "/v1/api/block/members?block=" + url.QueryEscape("没有"), ""},
		{200, "GET", "/v1/api/minutes?code=600519&freq=5m&day=2026-11-20", ""},

		// Hot rank, news, reports.
		{200, "GET", "/v1/api/hot_rank?date=2026-11-20&page=1&size=10", ""},
		{200, "GET", "/v1/api/hot_rank/detail?stock_code=600519", ""},
		{200, "GET", "/v1/api/hot_rank_list?top=5", ""},
		{400, "GET", "/v1/api/hot_rank_list?top=101", ""},
		{200, "GET", "/v1/api/news/view?id=" + newsID, ""},
		{404, "GET", "/v1/api/news/view?id=999999999", ""},
		{200, "GET", "/v1/api/financial-reports?page_size=5", ""},

		// The dragon-tiger list.
		{200, "GET", "/v1/api/lhb?date=2026-11-19", ""},
		{200, "GET", "/v1/api/lhb?code=" + lhbCode + "&start=2026-11-16&end=2026-11-20", ""},
		{200, "GET", "/v1/api/lhb/seats?name=" + url.QueryEscape(lhbSeat) + "&start=2026-11-16&end=2026-11-20&page_size=5", ""},
		{400, "GET", "/v1/api/lhb", ""},
		{400, "GET", "/v1/api/lhb?date=2026-11-20&code=600519.SH", ""},
		{400, "GET", "/v1/api/lhb/seats?name=x", ""},
		{404, "GET", "/v1/api/lhb?date=2026-11-21", ""},
		{404, "GET", "/v1/api/lhb?date=2026-11-23", ""},

		// The screener.
		{200, "GET", "/v1/api/screener/fields", ""},
		{200, "GET", "/v1/api/alerts", ""},
		{200, "GET", "/v1/api/alerts?id=" + alertID, ""},
		{404, "GET", "/v1/api/alerts?id=nope", ""},
		{400, "POST", "/v1/api/alerts", `{"expression":"pct >"}`},
		{200, "GET", "/v1/api/alerts/events?since=0&limit=5", ""},
		{200, "GET", "/v1/api/alerts/deliveries?id=" + hookedID, ""},
		{400, "GET", "/v1/api/alerts/deliveries", ""},
		{404, "GET", "/v1/api/alerts/deliveries?id=nope", ""},
		{200, "POST", "/v1/api/alerts/webhook_test", `{"id":"` + hookedID + `"}`},
		{409, "POST", "/v1/api/alerts/webhook_test", `{"id":"` + alertID + `"}`},
		{400, "POST", "/v1/api/alerts/webhook_test", `{}`},
		{400, "POST", "/v1/api/alerts", `{"expression":"pct > 1","webhook":{"url":"ftp://x/y","format":"generic","secret":"s"}}`},
		{400, "GET", "/v1/api/alerts/events?since=x", ""},
		{200, "DELETE", "/v1/api/alerts?id=" + doomedID, ""},
		{404, "POST", "/v1/api/alerts/cancel", `{"id":"` + doomedID + `"}`},
		{200, "POST", "/v1/api/alerts/cancel", `{"id":"` + canceledID + `"}`},
		{200, "GET", "/v1/api/screener/queue/status?id=" + screenID, ""},
		{200, "GET", "/v1/api/screener/queue/result?id=" + screenID + "&page=1&page_size=5", ""},
		{404, "GET", "/v1/api/screener/queue/status?id=nope", ""},
		{400, "POST", "/v1/api/screener/queue/submit", `{"expression":"price >"}`},
		{409, "GET", "/v1/api/screener/queue/result?id=" + pendingID, ""},
	} {
		var body []byte
		if tc.body != "" {
			body = []byte(tc.body)
		}
		tok := admin
		if strings.Contains(tc.target, "/token") || strings.Contains(tc.target, "/health/") || tc.target == "/v1/openapi.json" {
			tok = ""
		}
		want(tc.status, tc.method, tc.target, body, tok)
	}

	// The failures every protected endpoint shares.
	want(401, http.MethodGet, "/v1/api/whoami", nil, "")
	want(403, http.MethodGet, "/v1/api/kline?code=600519.SH&freq=D&start=2026-11-02&end=2026-11-20", nil, marketTok)
	big := bytes.Repeat([]byte("x"), 2<<20)
	if r := h.raw(http.MethodPost, "/v1/api/screener/queue/submit", big, h.signedHeader(admin, big)); r.status != 413 {
		t.Errorf("a 2 MiB body = %d, want 413", r.status)
	} else {
		c.check(http.MethodPost, "/v1/api/screener/queue/submit", nil, nil, r)
	}

	// A stream runs until its client leaves: its opening is checked.
	stream := "/v1/api/stream?topics=ranking,movements,quotes&codes=600519.SH"
	if r, hdr := h.streamOpening(t, marketTok, stream); r.status != 200 {
		t.Errorf("GET %s = %d: %s", stream, r.status, r.raw)
	} else {
		c.check(http.MethodGet, stream, nil, hdr, r)
	}
	want(400, http.MethodGet, "/v1/api/stream?topics=nope", nil, marketTok)

	// /mcp speaks MCP past its door, which mcp_test.go and the MCP
	// conformance suite hold to the protocol; here, its answer while off.
	for _, method := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
		want(503, method, "/mcp", nil, "")
	}

	// Public GET routes without required parameters (the dashboard's
	// files, /metrics) are called as they are.
	for _, route := range h.api.Routes() {
		method, path, _ := strings.Cut(route, " ")
		if method != http.MethodGet || strings.HasPrefix(path, "/test/") || c.seen[route] {
			continue
		}
		if path == "/metrics" || path == "/" || strings.HasPrefix(path, "/assets/") {
			want(200, method, path, nil, "")
		}
	}
	for _, route := range h.api.Routes() {
		if strings.HasPrefix(route, "HEAD ") || strings.Contains(route, " /test/") || strings.Contains(route, " /debug/pprof/") {
			continue // the profiler's routes are not in the document: pprof_test.go
		}
		if strings.HasSuffix(route, " /mcp") {
			continue // MCP's own answers past the door: mcp_test.go, the root package's and the conformance suite
		}
		if !c.seen[route] {
			t.Errorf("%s was never validated with a successful answer", route)
		}
		if method, path, _ := strings.Cut(route, " "); method == http.MethodGet && !csvSeen[path] {
			if _, offered := csvOf(path); offered {
				t.Errorf("%s offers CSV, never validated with a successful answer", route)
			}
		}
	}
	if *updateExamples {
		c.writeExamples()
	}
}

// The rate limit's 429 is documented on every endpoint that can give it.
func TestRateLimitAnswerMatchesOpenAPI(t *testing.T) {
	h := newHarness(t, withLimits(Limits{Client: RateLimit{Rate: 1, Burst: 1}, Token: RateLimit{Rate: 1, Burst: 1}}))
	c := newContract(t, h)
	h.addClient("c", "secret-c", clientOpts{})
	tok := h.token("c", "secret-c")
	body := []byte(`{"client_id":"c","client_secret":"secret-c"}`)
	r := h.raw(http.MethodPost, "/v1/auth/token", body, nil)
	if r.status != 429 {
		t.Fatalf("second token request = %d", r.status)
	}
	c.check(http.MethodPost, "/v1/auth/token", body, nil, r)
	for i := range 2 {
		hdr := h.signedHeader(tok, nil)
		r := h.raw(http.MethodGet, "/v1/api/boards/industry", nil, hdr)
		if want := []int{200, 429}[i]; r.status != want {
			t.Fatalf("request %d = %d, want %d", i, r.status, want)
		}
		c.check(http.MethodGet, "/v1/api/boards/industry", nil, hdr, r)
	}
}

// recordSecurityDays records two days of a small universe: a stock put
// under a risk warning on the second and delisted after it, and one
// suspended on the first.
func recordSecurityDays(t *testing.T, store *db.Store) {
	t.Helper()
	c := market.MustCode
	days := []struct {
		day market.Day
		obs []db.SecurityObservation
	}{
		{20261119, []db.SecurityObservation{{Code: c("000001.SZ"), Name: "平安银行"}, {Code: c("600001.SH"), Name: "甲钢"}, {Code: c("600519.SH"), Name: "贵州茅台", Suspended: true}}},
		{20261120, []db.SecurityObservation{{Code: c("000001.SZ"), Name: "平安银行"}, {Code: c("600001.SH"), Name: "*ST甲钢", ST: "*ST"}, {Code: c("600519.SH"), Name: "贵州茅台"}}},
	}
	for _, d := range days {
		if _, err := store.RecordSecurityDay(context.Background(), secmaster.Source, d.day, d.obs, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	// SSE's list of delisted companies names 600001 after its last day.
	if err := store.ReplaceDelistings(context.Background(), "sse", []db.Delisting{{Code: c("600001.SH"), Name: "*ST甲钢", Listed: 19980122, Delisted: 20261123}}, time.Now()); err != nil {
		t.Fatal(err)
	}
}

// storeMinuteDays stores the demo's 1-minute bars of codes on day in the
// packed minute store, what bars/minute reads.
func storeMinuteDays(t *testing.T, h *harness, day market.Day, codes ...string) {
	t.Helper()
	var days []db.MinuteDay
	for _, c := range codes {
		bars, err := h.demo.Klines(context.Background(), market.MustCode(c), market.Min1, day, day)
		if err != nil || len(bars) == 0 {
			t.Fatalf("%s's minutes of %v: %d, %v", c, day, len(bars), err)
		}
		days = append(days, db.MinuteDay{Code: market.MustCode(c), Freq: market.Min1, Day: day, Bars: bars, Source: "demo"})
	}
	if err := h.store.PutMinuteDays(context.Background(), days); err != nil {
		t.Fatal(err)
	}
}

// recordIndexDays records three observations of 沪深300's member list
// (an in and an out on the third) for the index endpoints.
func recordIndexDays(t *testing.T, store *db.Store) {
	t.Helper()
	c := market.MustCode
	obs := func(day market.Day, codes ...string) db.IndexObservation {
		o := db.IndexObservation{Index: c("000300.SH"), Day: day, Source: "tdx", File: "spblock.dat", Block: "沪深300"}
		for _, x := range codes {
			o.Members = append(o.Members, c(x))
		}
		return o
	}
	if _, err := store.RecordIndexObservations(context.Background(), []db.IndexObservation{
		obs(20261118, "600519.SH", "000001.SZ", "601088.SH"),
		obs(20261119, "600519.SH", "000001.SZ", "601088.SH"),
		obs(20261120, "600519.SH", "000001.SZ", "300750.SZ"),
	}, t0); err != nil {
		t.Fatal(err)
	}
}
