package api

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"mdqs/internal/board"
	"mdqs/internal/config"
	"mdqs/internal/finance"
	"mdqs/internal/hotrank"
	"mdqs/internal/hotrank/hotranktest"
	"mdqs/internal/market"
	"mdqs/internal/movement"
	"mdqs/internal/news"
	"mdqs/internal/upstream"
)

// closedURL is the address of a server that has stopped: connecting to it
// is refused, as with an upstream that is down.
func closedURL(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	return srv.URL
}

// liveUpstream points an upstream's settings at base, without retries or
// waiting, with a breaker that opens after 3 failed calls for 30 s.
func liveUpstream(u *config.Upstream, base string) {
	u.BaseURL, u.Retries, u.Rate, u.Burst = base, 0, 1000, 1000
	u.BreakerFailures, u.BreakerCooldown = 3, config.Duration{Duration: 30 * time.Second}
}

// expectOutage checks a 503 whose detail names the source and the
// failure, with a Retry-After of retry seconds in the header and the body.
func expectOutage(t *testing.T, r response, retry string, names ...string) {
	t.Helper()
	r.expect(t, http.StatusServiceUnavailable, "service unavailable")
	for _, n := range names {
		if !strings.Contains(r.detail, n) {
			t.Errorf("503 detail %q does not name %q", r.detail, n)
		}
	}
	if got := r.header.Get("Retry-After"); got != retry || !strings.Contains(string(r.raw), `"retry_after":`+retry) {
		t.Errorf("Retry-After %q, body %s; want %s s", got, r.raw, retry)
	}
}

// An outage is an outage: with the hot-rank, news and report upstreams
// failing and nothing stored for the day asked, the answer is 503 naming
// the source and what failed, with Retry-After the time until data can
// appear; a day the source cannot give, or a source that is healthy,
// stays 404. Before, every one of these was 404 "hot rank not found" or
// "not found", which tells the user the data does not exist.
func TestInfoOutageIs503NamingTheCause(t *testing.T) {
	h := newInfoHarness(t) // Monday 10:00, inside the trading window
	ctx := context.Background()
	fake := hotranktest.New(t, hotranktest.Stocks(30))
	down := closedURL(t)
	cfg := config.Default()
	cfg.Sources.Default = "auto"
	liveUpstream(&cfg.HotRank.EastMoney, fake.URL)
	liveUpstream(&cfg.Sources.Push2.Upstream, fake.URL)
	liveUpstream(&cfg.News.EastMoney, down)
	liveUpstream(&cfg.News.Notices, down)
	liveUpstream(&cfg.Finance.DataCenter, down)
	lims, cal := upstream.NewLimiters(), market.DefaultCalendar()
	hot, err := hotrank.FromConfig(cfg, h.store, nil, lims, cal, h.clock, h.api.log)
	if err != nil {
		t.Fatal(err)
	}
	feeds, err := news.FromConfig(cfg, h.store, nil, lims, h.clock, h.api.log)
	if err != nil {
		t.Fatal(err)
	}
	reports, err := finance.FromConfig(cfg, h.store, nil, lims, h.clock, h.api.log)
	if err != nil {
		t.Fatal(err)
	}
	h.api.Info = InfoDeps{HotRank: hot, News: feeds, Finance: reports}

	// Healthy and not imported yet: nothing says the data is missing for
	// an outage.
	h.get("/v1/api/hot_rank").expect(t, 404, "hot rank not found")

	// The list's upstream fails: the day's list is missing because of it.
	fake.FailPage(1, http.StatusBadGateway)
	if err := hot.Collect(ctx); err == nil {
		t.Fatal("the import of a failing list succeeded")
	}
	for _, p := range []string{"/v1/api/hot_rank", "/v1/api/hot_rank?date=2026-11-23", "/v1/api/hot_rank_list",
		"/v1/api/hot_rank/detail?stock_code=600519", "/v1/api/hot_rank?stock_code=600519"} {
		// The job imports again in hot_rank.interval (5 min) inside the window.
		expectOutage(t, h.get(p), "300", "emappdata", "502", "2026-11-23")
	}
	// EastMoney has no list of a past day to give: missing, not down.
	h.get("/v1/api/hot_rank?date=2026-11-20").expect(t, 404, "hot rank not found")

	// Three failed calls open the circuit: no request before its probe.
	hot.Collect(ctx)
	hot.Collect(ctx)
	expectOutage(t, h.get("/v1/api/hot_rank"), "30", "emappdata", "circuit is open")
	h.clock.Advance(12 * time.Second)
	expectOutage(t, h.get("/v1/api/hot_rank"), "18", "emappdata", "circuit is open")

	// Healed: the probe imports the list, and it is served.
	fake.FailPage(1, 0)
	h.clock.Advance(20 * time.Second)
	if err := hot.Collect(ctx); err != nil {
		t.Fatal(err)
	}
	r := h.get("/v1/api/hot_rank")
	r.expect(t, 200, "OK")
	if a := decode[hotRankAnswer](t, r); a.Total != 30 || a.Items[0].Source != "emappdata" {
		t.Errorf("after the upstream healed: %s", r.data)
	}

	// News: both feeds (7x24 and announcements) are refused.
	if err := feeds.Job(ctx); err == nil {
		t.Fatal("the news update succeeded with its feeds down")
	}
	expectOutage(t, h.get("/v1/api/news/list"), "120", "eastmoney", "eastmoney_notice", "transport")
	expectOutage(t, h.get("/v1/api/news/list?date=2026-11-23&q=茅台"), "120", "eastmoney", "transport")
	h.get("/v1/api/news/list?date=2026-11-20").expect(t, 404, "not found")

	// Reports: the data centre is refused; the job runs every 6 hours.
	if err := reports.Job(ctx); err == nil {
		t.Fatal("the report import succeeded with its upstream down")
	}
	expectOutage(t, h.get("/v1/api/financial-reports"), "21600", "datacenter", "transport")
	expectOutage(t, h.get("/v1/api/financial-reports?period=2026Q3"), "21600", "datacenter", "2026Q3")
	// An old period is imported on demand only: missing, not down.
	h.get("/v1/api/financial-reports?period=2020Q1").expect(t, 404, "not found")
}

// Retry-After tells the truth: the time to the breaker's next probe while
// an upstream's circuit is open (it was always 1), and none at all for a
// service the configuration leaves out, which no retry cures (it was a
// retryable 503 with retry_after 1).
func TestRetryAfterTellsTheTruth(t *testing.T) {
	h := newHarness(t)
	h.addClient("c", "secret-c", clientOpts{scopes: "*"})
	tok := h.token("c", "secret-c")
	for _, p := range []struct{ method, path string }{
		{"GET", "/v1/api/blocks"}, {"GET", "/v1/api/meta/stocks"}, {"POST", "/v1/api/refresh"},
		{"GET", "/v1/api/kline?code=600519.SH&freq=D&start=2026-11-02&end=2026-11-20&source=tdx"},
		{"GET", "/v1/api/hot_rank"}, {"GET", "/v1/api/news/list"}, {"GET", "/v1/api/financial-reports"},
		{"GET", "/v1/api/lhb?date=2026-11-20"}, {"GET", "/v1/api/lhb/seats?name=xy"},
	} {
		r := h.signed(p.method, p.path, tok, nil)
		r.expect(t, http.StatusServiceUnavailable, "service unavailable")
		if r.header.Get("Retry-After") != "" || strings.Contains(string(r.raw), "retry_after") || !strings.Contains(r.detail, "configured") {
			t.Errorf("%s %s: Retry-After %q, body %s; want no retry time for a configuration error",
				p.method, p.path, r.header.Get("Retry-After"), r.raw)
		}
	}

	// push2 fails; each ranking rebuild asks both families, and after
	// five failed calls in a row the circuit opens for 30 s.
	h.push2.Fail(market.Industry, http.StatusBadGateway)
	h.push2.Fail(market.Concept, http.StatusBadGateway)
	var r response
	for i := 0; i < 10 && !strings.Contains(r.detail, "circuit_open"); i++ {
		r = h.signed(http.MethodGet, "/v1/api/boards/top50?refresh=1", tok, nil)
		r.expect(t, http.StatusServiceUnavailable, "service unavailable")
	}
	if !strings.Contains(r.detail, "circuit_open") || r.header.Get("Retry-After") != "30" {
		t.Fatalf("open circuit: Retry-After %q, %s; want 30", r.header.Get("Retry-After"), r.raw)
	}
	h.clock.Advance(25 * time.Second)
	r = h.signed(http.MethodGet, "/v1/api/boards/top50?refresh=1", tok, nil)
	if r.header.Get("Retry-After") != "5" || !strings.Contains(string(r.raw), `"retry_after":5`) {
		t.Errorf("5 s before the probe: Retry-After %q, %s", r.header.Get("Retry-After"), r.raw)
	}
}

// In auto mode the industries come from AKTools, a Python server the
// trader runs; when it is not running the error says what it is and the
// command that starts it, not just "connection refused".
func TestUnreachableAKToolsSaysHowToStartIt(t *testing.T) {
	h := newHarness(t)
	h.addClient("c", "secret-c", clientOpts{scopes: "*"})
	tok := h.token("c", "secret-c")
	down := closedURL(t)
	cfg := upstream.DefaultConfig().AKShare
	cfg.BaseURL, cfg.Retries, cfg.Rate, cfg.Burst = down, -1, 1000, 1000
	ak, err := upstream.NewAKShare(cfg, upstream.NewLimiters(), h.clock)
	if err != nil {
		t.Fatal(err)
	}
	p2cfg := upstream.DefaultConfig().Push2
	p2cfg.BaseURL, p2cfg.Retries, p2cfg.Rate, p2cfg.Burst = h.push2.URL, -1, 1000, 1000
	p2, err := upstream.NewPush2(p2cfg, upstream.NewLimiters(), h.clock)
	if err != nil {
		t.Fatal(err)
	}
	cal := market.DefaultCalendar()
	window := market.Window{Start: 9*60 + 25, End: 15 * 60}
	col := board.NewCollector(h.store, map[string]board.SectorSource{"akshare": ak, "push2": p2}, h.clock, h.api.log,
		board.Policy{Calendar: cal, Window: window, Soft: time.Minute})
	t.Cleanup(col.Close)
	h.api.Movements, h.api.SourceMode = movement.NewService(col, h.store, cal, h.clock, window, nil), "auto"

	port := down[strings.LastIndex(down, ":")+1:]
	r := h.signed(http.MethodGet, "/v1/api/boards/industry", tok, nil)
	r.expect(t, http.StatusServiceUnavailable, "service unavailable")
	want := "AKTools at " + down + " is not reachable: start it with `python -m aktools --port " + port + "`"
	if !strings.Contains(r.detail, want) {
		t.Errorf("detail %q\nwant it to contain %q", r.detail, want)
	}
	// Concepts come from push2 in auto mode and are unaffected.
	h.signed(http.MethodGet, "/v1/api/boards/concept", tok, nil).expect(t, http.StatusOK, "OK")
}
