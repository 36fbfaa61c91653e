package api

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"mdqs/internal/demo"
	"mdqs/internal/finance"
	"mdqs/internal/hotrank"
	"mdqs/internal/hotrank/hotranktest"
	"mdqs/internal/lhb"
	"mdqs/internal/market"
	"mdqs/internal/news"
	"mdqs/internal/upstream"
)

// infoHarness is the harness with hot rank, news and financial reports
// served from a small demo market, as demo mode runs them, and two
// clients: reader (hot_rank, news, finance) and admin (every scope).
type infoHarness struct {
	*harness
	demo   *demo.Market
	reader string
	admin  string
}

func newInfoHarness(t *testing.T) *infoHarness { return newInfoHarnessAt(t, t0) }

// newInfoHarnessAt sets the clock to now before the clients take tokens.
func newInfoHarnessAt(t *testing.T, now time.Time, opts ...harnessOpt) *infoHarness {
	t.Helper()
	h := newHarness(t, opts...)
	h.clock.Set(now)
	m := serveInfoFromDemo(t, h)
	h.addClient("reader", "secret-r", clientOpts{scopes: "hot_rank,news,finance"})
	h.addClient("admin", "secret-a", clientOpts{scopes: "*"})
	return &infoHarness{harness: h, demo: m, reader: h.token("reader", "secret-r"), admin: h.token("admin", "secret-a")}
}

// serveInfoFromDemo builds the hot-rank, news and report services on a
// small demo market of their own, as demo mode does, and puts them in
// the harness's server.
func serveInfoFromDemo(t testing.TB, h *harness) *demo.Market {
	t.Helper()
	m, err := demo.New(demo.Config{Seed: 5, Stocks: 400, Industries: 20, Concepts: 40}, h.clock)
	if err != nil {
		t.Fatal(err)
	}
	cal := market.DefaultCalendar()
	h.api.Info = InfoDeps{
		HotRank: hotrank.New(hotrank.Config{Source: demo.Source}, h.store, m, cal, h.clock, h.api.log),
		News:    news.New(news.Config{PageSize: 100, Pages: 2}, h.store, []news.Feed{{Name: demo.FeedDemo, Fetch: m.NewsPage}}, h.clock, h.api.log),
		Finance: finance.New(finance.Config{Source: demo.Source}, h.store, m, h.clock, h.api.log),
	}
	h.api.LHB = lhb.New(lhb.Config{Source: demo.Source}, h.store, m, cal, h.clock, h.api.log)
	return m
}

func (h *infoHarness) get(path string) response { return h.signed(http.MethodGet, path, h.reader, nil) }

func (h *infoHarness) importDays(t *testing.T, days ...string) {
	t.Helper()
	for _, d := range days {
		r := h.signed(http.MethodPost, "/v1/api/hot_rank/import", h.admin, []byte(`{"date":"`+d+`"}`))
		r.expect(t, 200, "OK")
	}
}

type hotRankAnswer struct {
	Items []hotRankItem `json:"items"`
	Total int           `json:"total"`
	Page  int           `json:"page"`
	Size  int           `json:"size"`
	Date  *string       `json:"date"`
}

func decode[T any](t *testing.T, r response) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(r.data, &v); err != nil {
		t.Fatalf("data %s: %v", r.data, err)
	}
	return v
}

func TestHotRankImportEndpoint(t *testing.T) {
	h := newInfoHarness(t)
	body := []byte(`{"date":"2026-11-23","size":50,"max_pages":0}`)
	r := h.signed(http.MethodPost, "/v1/api/hot_rank/import", h.admin, body)
	r.expect(t, 200, "OK")
	got := decode[hotRankImportData](t, r)
	// The demo ranks 100 stocks: pages of 50, 50 and an empty third.
	if got.Date != "2026-11-23" || got.Source != "demo" || got.Size != 50 || got.Pages != 3 || got.Fetched != 100 ||
		got.Inserted != 100 || !got.Complete || len(got.Failures) != 0 || got.StartedAt == "" {
		t.Fatalf("import %+v", got)
	}
	// Idempotent: the same list again changes nothing.
	r = h.signed(http.MethodPost, "/v1/api/hot_rank/import", h.admin, body)
	if again := decode[hotRankImportData](t, r); again.Inserted != 0 || again.Updated != 0 || again.Unchanged != 100 {
		t.Fatalf("second import %+v", again)
	}
	// An empty body imports today with the defaults.
	r = h.signed(http.MethodPost, "/v1/api/hot_rank/import", h.admin, nil)
	r.expect(t, 200, "OK")
	if d := decode[hotRankImportData](t, r); d.Date != "2026-11-23" || d.Size != 100 {
		t.Errorf("default import %+v", d)
	}
	for _, tc := range []struct {
		body, message string
	}{
		{`{"date":"2026-13-01"}`, "invalid date"},
		{`{"date":"2026-11-24"}`, "invalid date"},
		{`{"size":101}`, "missing or invalid params"},
		{`{"max_pages":-1}`, "missing or invalid params"},
		{`{"size":"ten"}`, "missing or invalid params"},
		{`{"pages":2}`, "missing or invalid params"},
		{`[1,2]`, "missing or invalid params"},
		{`{"size":10}{"size":20}`, "missing or invalid params"},
		{`not json`, "missing or invalid params"},
	} {
		r := h.signed(http.MethodPost, "/v1/api/hot_rank/import", h.admin, []byte(tc.body))
		r.expect(t, 400, tc.message)
		if r.detail == "" {
			t.Errorf("%s: no detail", tc.body)
		}
	}
	// Importing needs admin, reading needs hot_rank.
	h.signed(http.MethodPost, "/v1/api/hot_rank/import", h.reader, body).expect(t, 403, "forbidden")
	h.addClient("market-only", "secret-m", clientOpts{scopes: "market"})
	tok := h.token("market-only", "secret-m")
	for _, p := range []string{"/v1/api/hot_rank", "/v1/api/hot_rank/detail?stock_code=600519", "/v1/api/hot_rank_list"} {
		h.signed(http.MethodGet, p, tok, nil).expect(t, 403, "forbidden")
	}
	h.do(http.MethodGet, "/v1/api/hot_rank", nil, nil).expect(t, 401, "unauthorized")
}

func TestHotRankQueryModes(t *testing.T) {
	h := newInfoHarness(t)
	h.importDays(t, "2026-11-19", "2026-11-20", "2026-11-23")
	// Day list: the latest day by default, page 1 of 20.
	r := h.get("/v1/api/hot_rank")
	r.expect(t, 200, "OK")
	latest := decode[hotRankAnswer](t, r)
	if latest.Total != 100 || latest.Page != 1 || latest.Size != 20 || len(latest.Items) != 20 || *latest.Date != "2026-11-23" {
		t.Fatalf("default %+v", latest)
	}
	first := latest.Items[0]
	if first.Rank != 1 || first.Heat != 10000 || first.Date != "2026-11-23" || first.StockName == "" || !strings.Contains(first.StockCode, ".") ||
		first.Source != "demo" {
		t.Errorf("first item %+v", first)
	}
	if !strings.Contains(string(r.data), `"stock_code":"`) || !strings.Contains(string(r.data), `"heat":10000`) {
		t.Errorf("spec 2.5 field names missing: %s", r.data)
	}
	// A given day, paged; YYYYMMDD works too.
	p := decode[hotRankAnswer](t, h.get("/v1/api/hot_rank?date=20261120&page=2&size=10"))
	if p.Total != 100 || len(p.Items) != 10 || p.Items[0].Rank != 11 || p.Items[0].Date != "2026-11-20" || p.Page != 2 || p.Size != 10 {
		t.Errorf("day page 2: %+v", p)
	}
	// Past the end of a non-empty list: an empty page, the total kept.
	if p := decode[hotRankAnswer](t, h.get("/v1/api/hot_rank?date=2026-11-20&page=6&size=20")); len(p.Items) != 0 || p.Total != 100 {
		t.Errorf("past the end: %+v", p)
	}
	// Codes on the latest day, in rank order.
	two := latest.Items[5].StockCode + "," + strings.ToLower(strings.Replace(latest.Items[2].StockCode[7:]+latest.Items[2].StockCode[:6], ".", "", 1))
	c := decode[hotRankAnswer](t, h.get("/v1/api/hot_rank?stock_code="+url.QueryEscape(two)))
	if c.Total != 2 || c.Items[0].StockCode != latest.Items[2].StockCode || c.Items[1].StockCode != latest.Items[5].StockCode {
		t.Errorf("two codes (%s): %+v", two, c)
	}
	// A range of all stocks, newest day first; a range of one code.
	all := decode[hotRankAnswer](t, h.get("/v1/api/hot_rank?start_date=2026-11-19&end_date=2026-11-23&size=100&page=3"))
	if all.Total != 300 || all.Date != nil || all.Items[0].Date != "2026-11-19" || all.Items[0].Rank != 1 {
		t.Errorf("range page 3: total %d date %v first %+v", all.Total, all.Date, all.Items[0])
	}
	one := decode[hotRankAnswer](t, h.get("/v1/api/hot_rank?stock_code="+first.StockCode+"&start_date=2026-11-01&end_date=2026-11-30"))
	if one.Total < 1 || one.Items[0].StockCode != first.StockCode || one.Items[0].Date != "2026-11-23" {
		t.Errorf("range of one code: %+v", one)
	}
	for _, tc := range []struct {
		query   string
		status  int
		message string
	}{
		{"date=2026-02-30", 400, "invalid date"},
		{"date=yesterday", 400, "invalid date"},
		{"start_date=2026-11-19", 400, "invalid date"},
		{"end_date=2026-11-19", 400, "invalid date"},
		{"start_date=2026-11-23&end_date=2026-11-19", 400, "invalid date"},
		{"start_date=2024-01-01&end_date=2026-11-23", 400, "invalid date"},
		{"start_date=2026-1-1&end_date=2026-11-23", 400, "invalid date"},
		{"date=2026-11-20&start_date=2026-11-19&end_date=2026-11-20", 400, "missing or invalid params"},
		{"size=0", 400, "missing or invalid params"},
		{"size=101", 400, "missing or invalid params"},
		{"page=0", 400, "missing or invalid params"},
		{"stock_code=ABC", 400, "missing or invalid params"},
		{"stock_code=", 400, "missing or invalid params"},
		{"date=2026-11-21", 404, "hot rank not found"},
		{"date=2026-11-24", 404, "hot rank not found"},
		{"start_date=2026-10-01&end_date=2026-10-31", 404, "hot rank not found"},
		{"stock_code=000002.SZ&date=2026-11-23", 404, "hot rank not found"},
	} {
		r := h.get("/v1/api/hot_rank?" + tc.query)
		r.expect(t, tc.status, tc.message)
		if r.detail == "" {
			t.Errorf("%s: no detail", tc.query)
		}
	}
	// HEAD works like GET without a body.
	if r := h.do(http.MethodHead, "/v1/api/hot_rank", nil, h.signedHeader(h.reader, nil)); r.status != 200 || len(r.raw) != 0 {
		t.Errorf("HEAD: %d %q", r.status, r.raw)
	}
}

func TestHotRankEmptyStore(t *testing.T) {
	h := newInfoHarness(t)
	h.get("/v1/api/hot_rank").expect(t, 404, "hot rank not found")
	h.get("/v1/api/hot_rank_list").expect(t, 404, "hot rank not found")
	h.get("/v1/api/hot_rank/detail?stock_code=600519").expect(t, 404, "hot rank not found")
}

type detailAnswer struct {
	StockCode      string      `json:"stock_code"`
	StockName      string      `json:"stock_name"`
	Latest         *rankPoint  `json:"latest"`
	LatestListDate string      `json:"latest_list_date"`
	Current        bool        `json:"current"`
	Best           *rankPoint  `json:"best"`
	StartDate      string      `json:"start_date"`
	EndDate        string      `json:"end_date"`
	Days           int         `json:"days"`
	History        []rankPoint `json:"history"`
}

func TestHotRankDetailAndList(t *testing.T) {
	h := newInfoHarness(t)
	h.importDays(t, "2026-11-19", "2026-11-20", "2026-11-23")
	top := h.get("/v1/api/hot_rank_list?top=5")
	top.expect(t, 200, "OK")
	list := decode[hotRankListTop](t, top)
	if list.Date != "2026-11-23" || len(list.Items) != 5 || list.Total != 100 || list.Size != 5 || list.Items[4].Rank != 5 ||
		list.Items[0].Source != "demo" {
		t.Fatalf("top 5: %+v", list)
	}
	if l := decode[hotRankListTop](t, h.get("/v1/api/hot_rank_list?date=2026-11-19")); l.Date != "2026-11-19" || len(l.Items) != 20 {
		t.Errorf("default top of a day: %+v", l)
	}
	code := list.Items[0].StockCode
	r := h.get("/v1/api/hot_rank/detail?stock_code=" + code)
	r.expect(t, 200, "OK")
	d := decode[detailAnswer](t, r)
	if d.StockCode != code || d.StockName != list.Items[0].StockName || d.Latest == nil || d.Latest.Date != "2026-11-23" ||
		d.Latest.Heat != 10000 || !d.Current || d.LatestListDate != "2026-11-23" || d.EndDate != "2026-11-23" || d.StartDate != "2026-08-26" ||
		d.Days != len(d.History) || d.History[0].Date != "2026-11-23" || d.Best == nil || d.Best.Rank != 1 {
		t.Fatalf("detail %+v", d)
	}
	// A window without the stock: the latest row still, no best.
	r = h.get("/v1/api/hot_rank/detail?stock_code=" + code + "&start_date=2026-10-01&end_date=2026-10-31")
	if d := decode[detailAnswer](t, r); d.Days != 0 || d.Best != nil || d.Latest == nil || len(d.History) != 0 {
		t.Errorf("empty window %s", r.data)
	}
	for _, tc := range []struct {
		path    string
		status  int
		message string
	}{
		{"/v1/api/hot_rank/detail", 400, "missing or invalid params"},
		{"/v1/api/hot_rank/detail?stock_code=600519,000001", 400, "missing or invalid params"},
		{"/v1/api/hot_rank/detail?stock_code=" + code + "&start_date=2026-11-30&end_date=2026-11-01", 400, "invalid date"},
		{"/v1/api/hot_rank/detail?stock_code=000002.SZ", 404, "hot rank not found"},
		{"/v1/api/hot_rank_list?top=0", 400, "missing or invalid params"},
		{"/v1/api/hot_rank_list?top=101", 400, "missing or invalid params"},
		{"/v1/api/hot_rank_list?date=2026-11-22", 404, "hot rank not found"},
		{"/v1/api/hot_rank_list?date=2026.11.22", 400, "invalid date"},
	} {
		h.get(tc.path).expect(t, tc.status, tc.message)
	}
}

// Against EastMoney's shape (a fake on 127.0.0.1): a page that fails is
// reported and stores nothing; the first page failing is 503.
func TestHotRankImportPartialFailure(t *testing.T) {
	h := newInfoHarness(t)
	fake := hotranktest.New(t, hotranktest.Stocks(30))
	cfg := upstream.DefaultHotRankConfig()
	cfg.BaseURL, cfg.Names.BaseURL = fake.URL, fake.URL
	cfg.Retries, cfg.Names.Retries, cfg.Rate, cfg.Burst, cfg.Names.Rate, cfg.Names.Burst = -1, -1, 1000, 1000, 1000, 1000
	c, err := upstream.NewHotRank(cfg, upstream.NewLimiters(), h.clock)
	if err != nil {
		t.Fatal(err)
	}
	h.api.Info.HotRank = hotrank.New(hotrank.Config{}, h.store, hotrank.Live(c, h.clock), market.DefaultCalendar(), h.clock, h.api.log)
	fake.FailPage(2, 502)
	r := h.signed(http.MethodPost, "/v1/api/hot_rank/import", h.admin, []byte(`{"size":10}`))
	r.expect(t, 200, "OK")
	got := decode[hotRankImportData](t, r)
	if got.Complete || got.Inserted != 10 || got.Pages != 2 || len(got.Failures) != 1 || got.Failures[0].Page != 2 ||
		got.Failures[0].Kind != "http_status" || got.Source != "emappdata" {
		t.Fatalf("partial import %s", r.data)
	}
	if a := decode[hotRankAnswer](t, h.get("/v1/api/hot_rank")); a.Total != 10 {
		t.Errorf("stored %d rows, want the first page's 10", a.Total)
	}
	// EastMoney serves today's list only.
	h.signed(http.MethodPost, "/v1/api/hot_rank/import", h.admin, []byte(`{"date":"2026-11-20"}`)).expect(t, 400, "invalid date")
	fake.FailPage(1, 503)
	r = h.signed(http.MethodPost, "/v1/api/hot_rank/import", h.admin, nil)
	r.expect(t, 503, "service unavailable")
	if r.header.Get("Retry-After") == "" || strings.Contains(r.detail, fake.URL) {
		t.Errorf("503 %v %q", r.header, r.detail)
	}
}

func TestInfoEndpointsNotConfigured(t *testing.T) {
	h := newHarness(t)
	h.addClient("admin", "secret-a", clientOpts{scopes: "*"})
	tok := h.token("admin", "secret-a")
	for _, p := range []struct{ method, path string }{
		{"GET", "/v1/api/hot_rank"}, {"POST", "/v1/api/hot_rank/import"}, {"GET", "/v1/api/hot_rank/detail"},
		{"GET", "/v1/api/hot_rank_list"}, {"GET", "/v1/api/news/list"}, {"GET", "/v1/api/news/view"},
		{"POST", "/v1/api/update-news"}, {"GET", "/v1/api/financial-reports"}, {"GET", "/v1/api/lhb"}, {"GET", "/v1/api/lhb/seats"},
	} {
		h.signed(p.method, p.path, tok, nil).expect(t, 503, "service unavailable")
	}
}
