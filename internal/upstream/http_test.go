package upstream

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"mdqs/internal/market"
)

// A reply slower than the source timeout is a Timeout, retried Retries
// times. The handler waits for the client to give up, so nothing here
// depends on how long anything takes.
func TestSlowReplyTimesOut(t *testing.T) {
	srv, rec := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		select {
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
	})
	cfg := testSource(srv.URL)
	cfg.Timeout = 50 * time.Millisecond
	cfg.Retries = 2
	c, err := NewPush2His(cfg, NewLimiters(), market.NewFixedClock(testNow()))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Klines(context.Background(), market.MustCode("601872.SH"), market.Daily, 0, 0)
	wantErr(t, err, KindTimeout, 3, "")
	if rec.count() != 3 {
		t.Errorf("server saw %d requests, want 3", rec.count())
	}
	if st := c.Status(); st.LastErrorKind != KindTimeout || st.Requests != 3 || st.Failures != 1 {
		t.Errorf("status %+v", st)
	}
}

// A reply whose body stalls after the headers also times out (the client
// timeout covers the body).
func TestSlowBodyTimesOut(t *testing.T) {
	srv, rec := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		w.Header().Set("Content-Length", "1000")
		w.WriteHeader(200)
		_, _ = w.Write([]byte(`{"rc":0,`))
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
	})
	cfg := testSource(srv.URL)
	cfg.Timeout = 50 * time.Millisecond
	cfg.Retries = -1
	c, err := NewPush2His(cfg, NewLimiters(), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Klines(context.Background(), market.MustCode("601872.SH"), market.Daily, 0, 0)
	wantErr(t, err, KindTimeout, 1, "")
	if rec.count() != 1 {
		t.Errorf("server saw %d requests, want 1 (Retries < 0 means none)", rec.count())
	}
}

// The backoff wait is a real one-hour timer; only the cancellation can end
// it, so a pass shows the wait honours ctx.
func TestBackoffHonoursCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv, rec := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		write(w, 503, "text/plain", []byte("busy"))
	})
	c := newTestHis(t, srv.URL)
	c.f.cfg.BackoffBase, c.f.cfg.BackoffMax = time.Hour, time.Hour
	c.f.jitter = func(ceil time.Duration) time.Duration { return ceil }
	waiting := make(chan time.Duration, 1)
	c.f.sleep = func(ctx context.Context, d time.Duration) error {
		waiting <- d
		return sleepCtx(ctx, d)
	}
	go func() {
		<-waiting
		cancel()
	}()
	_, err := c.Klines(ctx, market.MustCode("601872.SH"), market.Daily, 0, 0)
	e := wantErr(t, err, KindCanceled, 1, "")
	if !errors.Is(err, context.Canceled) || !strings.Contains(e.Detail, "backoff after http_status") {
		t.Errorf("err %v", err)
	}
	if rec.count() != 1 {
		t.Errorf("requests %d", rec.count())
	}
	// A canceled call says nothing about the upstream.
	if st := c.Status(); st.Calls != 1 || st.Failures != 0 || st.ConsecutiveFailures != 0 {
		t.Errorf("status %+v", st)
	}
}

func TestBackoffSchedule(t *testing.T) {
	f := &fetcher{cfg: SourceConfig{BackoffBase: 100 * time.Millisecond, BackoffMax: time.Second}}
	f.jitter = func(ceil time.Duration) time.Duration { return ceil }
	for retry, want := range map[int]time.Duration{1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 3: 400 * time.Millisecond,
		4: 800 * time.Millisecond, 5: time.Second, 60: time.Second} {
		if got := f.backoff(retry, &Error{}); got != want {
			t.Errorf("retry %d: ceiling %v, want %v", retry, got, want)
		}
	}
	// Full jitter draws from [0, ceiling].
	f.jitter = func(ceil time.Duration) time.Duration { return 0 }
	if got := f.backoff(3, &Error{}); got != 0 {
		t.Errorf("jitter low end: %v", got)
	}
	// Retry-After raises the wait, within BackoffMax.
	if got := f.backoff(1, &Error{retryAfter: 500 * time.Millisecond}); got != 500*time.Millisecond {
		t.Errorf("retry-after: %v", got)
	}
	if got := f.backoff(1, &Error{retryAfter: time.Minute}); got != time.Second {
		t.Errorf("retry-after capped: %v", got)
	}
	for i := 0; i < 1000; i++ {
		if d := fullJitter(time.Millisecond); d < 0 || d > time.Millisecond {
			t.Fatalf("fullJitter out of range: %v", d)
		}
	}
	if d := retryAfter("3", testNow()); d != 3*time.Second {
		t.Errorf("Retry-After seconds: %v", d)
	}
	if d := retryAfter(testNow().Add(2*time.Second).UTC().Format(http.TimeFormat), testNow()); d != 2*time.Second {
		t.Errorf("Retry-After date: %v", d)
	}
}

func TestTransportErrorRetried(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	base := srv.URL
	srv.Close() // nothing listens there any more
	c := newTestHis(t, base)
	_, err := c.Klines(context.Background(), market.MustCode("601872.SH"), market.Daily, 0, 0)
	wantErr(t, err, KindTransport, 3, "")
	if st := c.Status(); st.Requests != 3 {
		t.Errorf("requests %d", st.Requests)
	}
}

// The proxy is an httptest server that records what it is asked and answers
// itself; the upstream host does not exist, so only the proxy can answer.
func TestProxyUsed(t *testing.T) {
	proxy, rec := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		write(w, 200, jsonCT, fixture(t, "push2his_kline_daily_601872_2024-12.json"))
	})
	cfg := testSource("http://push2his.eastmoney.invalid")
	cfg.Proxy = proxy.URL
	c, err := NewPush2His(cfg, NewLimiters(), nil)
	if err != nil {
		t.Fatal(err)
	}
	bars, err := c.Klines(context.Background(), market.MustCode("601872.SH"), market.Daily, 0, 0)
	if err != nil || len(bars) != 10 {
		t.Fatalf("via proxy: %v, %d bars", err, len(bars))
	}
	if rec.count() != 1 {
		t.Fatalf("proxy saw %d requests", rec.count())
	}
	r := rec.req(0)
	if r.Host != "push2his.eastmoney.invalid" || r.URL.Host != "push2his.eastmoney.invalid" || r.URL.Path != "/api/qt/stock/kline/get" {
		t.Errorf("proxy got Host %q URL %s", r.Host, r.URL)
	}
	for _, bad := range []string{"ftp://user:secret@proxy.local", "http://", "::"} {
		cfg.Proxy = bad
		if _, err := NewPush2His(cfg, NewLimiters(), nil); err == nil || strings.Contains(err.Error(), "secret") {
			t.Errorf("proxy %q: %v", bad, err)
		}
	}
}

// sleepRecorder stands in for time: it records each wait and moves the
// fixed clock by it, so the limiter sees the time pass.
type sleepRecorder struct {
	mu    sync.Mutex
	clock *market.FixedClock
	waits []time.Duration
}

func (s *sleepRecorder) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.waits = append(s.waits, d)
	s.mu.Unlock()
	s.clock.Advance(d)
	return ctx.Err()
}

// Two clients on one host share its limiter: a burst of 1 at 1 request/s
// means the second client's request waits exactly one second of limiter
// time, whichever client spent the token. A client on another host does
// not wait.
func TestRateCapSharedPerHost(t *testing.T) {
	srv, rec := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		if strings.HasPrefix(r.URL.Path, "/api/qt/clist") {
			write(w, 200, jsonCT, fixture(t, "made_push2_clist_industry_sectors_diff_object.json"))
			return
		}
		write(w, 200, jsonCT, fixture(t, "push2his_kline_daily_601872_2024-12.json"))
	})
	other, _ := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		write(w, 200, jsonCT, fixture(t, "push2his_kline_daily_601872_2024-12.json"))
	})
	clock := market.NewFixedClock(testNow())
	lims := NewLimiters()
	cfg := testSource(srv.URL)
	cfg.Rate, cfg.Burst = 1, 1
	p2, err := NewPush2(Push2Config{SourceConfig: cfg}, lims, clock)
	if err != nil {
		t.Fatal(err)
	}
	his, err := NewPush2His(cfg, lims, clock)
	if err != nil {
		t.Fatal(err)
	}
	cfgOther := cfg
	cfgOther.BaseURL = other.URL
	his2, err := NewPush2His(cfgOther, lims, clock)
	if err != nil {
		t.Fatal(err)
	}
	if p2.f.lim != his.f.lim || his.f.lim == his2.f.lim {
		t.Fatal("clients on one host must share one limiter, and only they")
	}
	rs := &sleepRecorder{clock: clock}
	for _, f := range []*fetcher{p2.f, his.f, his2.f} {
		f.sleep = rs.sleep
	}
	if _, err := p2.Sectors(context.Background(), market.Industry); err != nil {
		t.Fatal(err)
	}
	if len(rs.waits) != 0 {
		t.Fatalf("first request waited %v", rs.waits)
	}
	if _, err := his2.Klines(context.Background(), market.MustCode("601872.SH"), market.Daily, 0, 0); err != nil {
		t.Fatal(err)
	}
	if len(rs.waits) != 0 {
		t.Fatalf("a request to another host waited %v", rs.waits)
	}
	if _, err := his.Klines(context.Background(), market.MustCode("601872.SH"), market.Daily, 0, 0); err != nil {
		t.Fatal(err)
	}
	if len(rs.waits) != 1 || rs.waits[0] != time.Second {
		t.Fatalf("second client on the host waited %v, want [1s]", rs.waits)
	}
	if rec.count() != 2 {
		t.Errorf("host saw %d requests", rec.count())
	}
	// One more second of limiter time has a token again; nothing waits.
	clock.Advance(time.Second)
	if _, err := p2.Sectors(context.Background(), market.Industry); err != nil || len(rs.waits) != 1 {
		t.Fatalf("after a second: %v, waits %v", err, rs.waits)
	}
}

func TestRateLimitWaitHonoursCancel(t *testing.T) {
	srv, rec := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		write(w, 200, jsonCT, fixture(t, "push2his_kline_daily_601872_2024-12.json"))
	})
	cfg := testSource(srv.URL)
	cfg.Rate, cfg.Burst = 0.001, 1 // one token, then one per 1000 s
	c, err := NewPush2His(cfg, NewLimiters(), nil)
	if err != nil {
		t.Fatal(err)
	}
	code := market.MustCode("601872.SH")
	if _, err := c.Klines(context.Background(), code, market.Daily, 0, 0); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c.f.sleep = func(ctx context.Context, d time.Duration) error {
		cancel()
		return sleepCtx(ctx, d)
	}
	_, err = c.Klines(ctx, code, market.Daily, 0, 0)
	if KindOf(err) != KindCanceled || !errors.Is(err, context.Canceled) || rec.count() != 1 {
		t.Errorf("err %v after %d requests", err, rec.count())
	}
}

func TestLimitersStrictestWins(t *testing.T) {
	l := NewLimiters()
	a := l.For("Push2.EastMoney.com", 5, 4)
	b := l.For("push2.eastmoney.com", 2, 8)
	if a != b || float64(a.Limit()) != 2 || a.Burst() != 4 {
		t.Errorf("shared=%v limit=%v burst=%d", a == b, a.Limit(), a.Burst())
	}
	if c := l.For("push2his.eastmoney.com", 5, 0); c == a || c.Burst() != 1 {
		t.Error("another host must get its own limiter, burst at least 1")
	}
}

func TestConfigDefaults(t *testing.T) {
	d := DefaultConfig()
	if d.Push2.BaseURL != "https://push2.eastmoney.com" || d.Push2His.BaseURL != "https://push2his.eastmoney.com" ||
		d.AKShare.BaseURL != "http://127.0.0.1:8080" || d.Push2.Timeout != 10*time.Second || d.Push2.Retries != 3 ||
		d.Push2.Rate != 2 || d.Push2.Burst != 2 || d.Push2.PageSize != 100 {
		t.Errorf("defaults %+v", d)
	}
	c, err := NewPush2(Push2Config{}, NewLimiters(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.cfg.BaseURL != d.Push2.BaseURL || c.cfg.Retries != 3 || c.cfg.StockFS == "" || c.f.client.Timeout != 10*time.Second {
		t.Errorf("zero config did not take defaults: %+v", c.cfg)
	}
	if _, err := NewPush2(Push2Config{SourceConfig: SourceConfig{BaseURL: "push2.eastmoney.com"}}, NewLimiters(), nil); err == nil {
		t.Error("a base URL without scheme must be refused")
	}
	if _, err := NewPush2(Push2Config{}, nil, nil); err == nil {
		t.Error("nil Limiters must be refused")
	}
}

func TestErrorText(t *testing.T) {
	e := &Error{Kind: KindHTTPStatus, Source: "push2", Path: "/api/qt/clist/get", Status: 502, Detail: "502 Bad Gateway", Attempts: 3}
	if got := e.Error(); got != "upstream push2 /api/qt/clist/get: http_status 502: 502 Bad Gateway (after 3 attempts)" {
		t.Errorf("text %q", got)
	}
	wrapped := errors.Join(errors.New("collect"), e)
	if !errors.Is(wrapped, KindHTTPStatus) || errors.Is(wrapped, KindRC) || KindOf(wrapped) != KindHTTPStatus || KindOf(errors.New("x")) != KindNone {
		t.Error("errors.Is / KindOf through a chain")
	}
	if b, _ := KindSchema.MarshalText(); string(b) != "schema" {
		t.Errorf("kind text %q", b)
	}
	// Transport error texts carry no query string.
	err := transportErr(context.Background(), &url.Error{Op: "Get", URL: "http://h/p?secid=1.600519", Err: errors.New("connection refused")})
	if strings.Contains(err.Error(), "secid") {
		t.Errorf("query leaked: %v", err)
	}
}

// RateGroup joins hosts under one cap.
func TestRateGroup(t *testing.T) {
	lims := NewLimiters()
	a, b := testSource("http://push2.eastmoney.invalid"), testSource("http://push2his.eastmoney.invalid")
	a.RateGroup, b.RateGroup = "eastmoney", "eastmoney"
	p2, err := NewPush2(Push2Config{SourceConfig: a}, lims, nil)
	if err != nil {
		t.Fatal(err)
	}
	his, err := NewPush2His(b, lims, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p2.f.lim != his.f.lim {
		t.Error("one group, one limiter")
	}
}

// The clients are used from several collectors at once; -race checks the
// shared limiter, status and clients.
func TestConcurrentUse(t *testing.T) {
	srv, _ := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		if strings.HasPrefix(r.URL.Path, "/api/qt/clist") {
			write(w, 200, jsonCT, fixture(t, "made_push2_clist_industry_sectors_p"+r.URL.Query().Get("pn")+".json"))
			return
		}
		write(w, 200, jsonCT, fixture(t, "push2his_kline_daily_601872_2024-12.json"))
	})
	lims := NewLimiters()
	cfg := testSource(srv.URL)
	p2, err := NewPush2(Push2Config{SourceConfig: cfg, PageSize: 2}, lims, nil)
	if err != nil {
		t.Fatal(err)
	}
	his, err := NewPush2His(cfg, lims, nil)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := 0; i < 8; i++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			_, err := p2.Sectors(context.Background(), market.Industry)
			errs <- err
		}()
		go func() {
			defer wg.Done()
			_, err := his.Klines(context.Background(), market.MustCode("601872.SH"), market.Daily, 0, 0)
			errs <- err
			_ = p2.Status()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if s := p2.Status(); s.Calls != 8 || s.Requests != 24 {
		t.Errorf("push2 status %+v", s)
	}
	if s := his.Status(); s.Calls != 8 || s.Requests != 8 {
		t.Errorf("push2his status %+v", s)
	}
}
