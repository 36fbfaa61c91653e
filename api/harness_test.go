package api

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"mdqs/internal/alert"
	"mdqs/internal/archive"
	"mdqs/internal/crosssection"
	"mdqs/internal/secmaster"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/auth"
	"mdqs/internal/board"
	"mdqs/internal/bridge"
	"mdqs/internal/bridge/bridgetest"
	"mdqs/internal/client"
	"mdqs/internal/corpaction"
	"mdqs/internal/demo"
	"mdqs/internal/etf"
	"mdqs/internal/kline"
	"mdqs/internal/limitpool"
	"mdqs/internal/market"
	"mdqs/internal/movement"
	"mdqs/internal/quote"
	"mdqs/internal/ranking"
	"mdqs/internal/screener"
	"mdqs/internal/stream"
	"mdqs/internal/upstream"
	"mdqs/internal/upstream/upstreamtest"
)

// t0 is a Monday morning in Shanghai, inside a trading session.
var t0 = time.Date(2026, 11, 23, 10, 0, 0, 0, market.Shanghai())

// harness is a real server (real SQLite file, real auth service, real
// router and middleware) behind httptest, with a pinned clock.
type harness struct {
	t     testing.TB
	srv   *httptest.Server
	api   *Server
	store *db.Store
	auth  *auth.Service
	clock *market.FixedClock
	logs  *bytes.Buffer
	push2 *upstreamtest.Server // fake EastMoney push2 feeding the ranking
	demo  *demo.Market         // the source of bars, for comparing answers with it
}

// harnessConfig is what options may change before the server is built.
type harnessConfig struct {
	auth            *auth.Config
	deps            *Deps
	terminal        string // a fake terminal folder for the bridge; "" = none
	screener        screener.Config
	stopped         bool          // leave the screener's workers off: jobs stay queued
	demoMode        bool          // rank and serve sectors from the demo market, as `go run .` does
	target          string        // the store's file or URL; "" = dbtest's choice
	push2his        string        // a fake push2his for adjusted bars without actions; "" = none
	backfill        int           // security-master days back-filled from the demo's past; 0 = none
	archiveTerminal string        // the terminal folder the archive's quality compares; "" = none
	alerts          *alert.Config // nil: at most 3 alerts a client, webhooks to public addresses only
}

// withAlerts sets the alert service's configuration.
func withAlerts(cfg alert.Config) harnessOpt { return func(c *harnessConfig) { c.alerts = &cfg } }

// withSecurityHistory back-fills the security master from the demo
// market's past, days trading days before the day Record runs, as demo
// mode does.
func withSecurityHistory(days int) harnessOpt { return func(c *harnessConfig) { c.backfill = days } }

// withPush2His gives the corporate-action service a live push2his client on
// base, whose adjusted K-lines answer while no actions are imported.
func withPush2His(base string) harnessOpt { return func(c *harnessConfig) { c.push2his = base } }

// withStore opens the store at target (a benchmark comparing the stores).
func withStore(target string) harnessOpt { return func(c *harnessConfig) { c.target = target } }

// withDemoMode serves the sectors (top50, boards, movements) from the demo
// market, as the shipped configuration does.
func withDemoMode(c *harnessConfig) { c.demoMode = true }

// withScreener sets the screener's limits; stopped leaves it without
// workers, so submitted screens stay queued.
func withScreener(maxActive int, stopped bool) harnessOpt {
	return func(c *harnessConfig) { c.screener.MaxActivePerClient, c.stopped = maxActive, stopped }
}

type harnessOpt func(*harnessConfig)

// withArchiveTerminal gives the archive a terminal folder, whose files
// GET /v1/api/quality compares with the store's bars.
func withArchiveTerminal(dir string) harnessOpt {
	return func(c *harnessConfig) { c.archiveTerminal = dir }
}

// withTerminal builds a fake terminal folder and configures the bridge on it.
func withTerminal(t testing.TB) harnessOpt {
	dir := t.TempDir()
	bridgetest.Write(t, dir)
	return func(c *harnessConfig) { c.terminal = dir }
}

func withSignature(mode auth.SignatureMode) harnessOpt {
	return func(c *harnessConfig) { c.auth.Signature = mode }
}

func newHarness(t testing.TB, opts ...harnessOpt) *harness {
	t.Helper()
	clock := market.NewFixedClock(t0)
	acfg := auth.Config{TokenTTL: 2 * time.Hour, MaxTokensPerClient: 20, Signature: auth.SignatureRequired,
		MaxClockSkew: 60 * time.Second, NonceCapacity: 100_000, TokenCacheSize: 10_000, RevocationCheck: time.Second}
	logs := &bytes.Buffer{}
	log := slog.New(slog.NewTextHandler(logs, nil))
	cal := market.DefaultCalendar()
	deps := Deps{Clock: clock, Log: log, MaxBodyBytes: 1 << 20, Calendar: cal, SourceMode: "push2"}
	hc := harnessConfig{auth: &acfg, deps: &deps,
		screener: screener.Config{Workers: 1, Timeout: 30 * time.Second, MaxActivePerClient: 5, DefaultLimit: 100, MaxLimit: 5000}}
	for _, o := range opts {
		o(&hc)
	}
	if hc.target == "" {
		hc.target = dbtest.Target(t)
	}
	store := dbtest.OpenAt(t, hc.target)
	deps.Store = store
	push2 := upstreamtest.NewPush2(t)
	push2.SetSectors(market.Industry, t0, upstreamtest.Sectors("行业", 12))
	push2.SetSectors(market.Concept, t0, upstreamtest.Sectors("概念", 30))
	var dm *demo.Market
	deps.Klines, deps.Pager, dm = newKlines(t, store, cal, clock, log)
	deps.Actions = corpaction.New(store, cal, clock, market.Window{Start: 9*60 + 25, End: 15 * 60}).WithLatest(deps.Klines)
	if hc.push2his != "" {
		cfg := upstream.DefaultConfig().Push2His
		cfg.BaseURL, cfg.Retries, cfg.Rate, cfg.Burst = hc.push2his, -1, 1000, 1000
		his, err := upstream.NewPush2His(cfg, upstream.NewLimiters(), clock)
		if err != nil {
			t.Fatal(err)
		}
		deps.Actions.WithUpstream(corpaction.NewUpstream(his, upstream.SourcePush2His, deps.Klines))
	}
	var sectorDemo *demo.Market
	if hc.demoMode {
		deps.SourceMode, sectorDemo = "demo", dm
	}
	deps.Rankings, deps.Movements, deps.Sources = newMarket(t, push2.URL, store, cal, clock, log, sectorDemo)
	// An unconfigured bridge unless an option sets a terminal folder.
	deps.Bridge, _ = bridge.New("", store, cal, clock, log)
	// Screens read the quote service's snapshot, as main wires them: one
	// source call serves both.
	deps.Quotes = quote.New(dm, dm, cal, clock, quote.Config{Age: time.Minute, Source: "demo"})
	deps.ETFs = etf.New(dm, clock, etf.Config{Source: "demo"})
	// The day's record adds the ETF list's funds, as main wires it.
	secCfg := secmaster.Config{RecordAfter: 15*60 + 5, More: []secmaster.Quotes{deps.ETFs}}
	if hc.backfill > 0 {
		secCfg.History, secCfg.BackfillDays = dm, hc.backfill
	}
	deps.Securities = secmaster.New(store, deps.Quotes, cal, clock, secCfg)
	deps.CrossSection = crosssection.New(store, deps.Securities, cal, clock)
	deps.LimitPools = limitpool.New(store, deps.Securities, deps.Quotes, cal, clock, "demo")
	deps.Archive = archive.New(store, dm, deps.Securities, cal, clock, log, archive.Config{At: 15*60 + 35, Window: 5, SourceName: "demo",
		TerminalDir: cmp.Or(hc.archiveTerminal, hc.terminal)}) // the bridge's folder, as archive.FromConfig gives it
	frame := screener.NewFrame(store, deps.Quotes, nil, nil, cal, clock, 0)
	frame.ReadPastFrom(deps.Securities)
	alertCfg := alert.Config{MaxPerClient: 3}
	if hc.alerts != nil {
		alertCfg = *hc.alerts
	}
	deps.Alerts = alert.New(store, frame, cal, clock, market.Window{Start: 9*60 + 25, End: 15 * 60}, log, alertCfg)
	deps.Screener = screener.NewQueue(store, frame, clock, log, hc.screener)
	if !hc.stopped {
		if err := deps.Screener.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(deps.Screener.Stop)
	}
	if hc.terminal != "" {
		b, err := bridge.New(hc.terminal, store, cal, clock, log)
		if err != nil {
			t.Fatal(err)
		}
		deps.Bridge = b
	}
	// The tests move the pinned clock back and forth around t0; replay
	// protection began before all of it.
	acfg.StartedAt = t0.AddDate(-1, 0, 0)
	if hc.backfill > 0 {
		acfg.StartedAt = t0.AddDate(-5, 0, 0) // such tests set the clock years back
	}
	a, err := auth.New(store, clock, acfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	deps.Auth = a
	if deps.Stream == nil {
		deps.Stream = stream.NewHub(stream.Config{Clock: clock})
	}
	s := New(deps)
	s.testRoutes()
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	t.Cleanup(deps.Stream.Close) // first: srv.Close waits for the open streams
	return &harness{t: t, srv: srv, api: s, store: store, auth: a, clock: clock, logs: logs, push2: push2, demo: dm}
}

// newMarket is the ranking and movement services on the real push2 client,
// pointed at the fake upstream; its rate cap is high enough never to wait.
// With dm they run in demo mode on that market.
func newMarket(t testing.TB, base string, store *db.Store, cal *market.Calendar, clock market.Clock, log *slog.Logger, dm *demo.Market) (*ranking.Service, *movement.Service, func() []upstream.Status) {
	cfg := upstream.DefaultConfig().Push2
	cfg.BaseURL, cfg.Retries, cfg.Rate, cfg.Burst = base, -1, 1000, 1000
	p2, err := upstream.NewPush2(cfg, upstream.NewLimiters(), clock)
	if err != nil {
		t.Fatal(err)
	}
	window := market.Window{Start: 9*60 + 25, End: 15 * 60}
	sources, mode := map[string]board.SectorSource{"push2": p2}, "push2"
	if dm != nil {
		sources["demo"], mode = dm, "demo"
	}
	col := board.NewCollector(store, sources, clock, log,
		board.Policy{Calendar: cal, Window: window, Soft: time.Minute})
	t.Cleanup(col.Close)
	det := movement.NewDetector(movement.Thresholds{Pct: 2, Speed: 1, SpeedWindow: 5 * time.Minute}, store, clock, col)
	col.Observe(det.Observe)
	svc, err := ranking.New(ranking.Config{Soft: time.Minute, Hard: 24 * time.Hour,
		Window: window, EODAt: 15*60 + 5, CatchUpDays: 10, Mode: mode},
		col, store, cal, clock, log, 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	return svc, movement.NewService(col, store, cal, clock, window, det), func() []upstream.Status { return []upstream.Status{p2.Status()} }
}

// newKlines is the K-line service on a small demo market with the pinned
// clock: a real, deterministic source of bars and intraday series.
func newKlines(t testing.TB, store *db.Store, cal *market.Calendar, clock market.Clock, log *slog.Logger) (*kline.Service, *kline.Pager, *demo.Market) {
	dm, err := demo.New(demo.Config{Seed: 7, Stocks: 300, Industries: 20, Concepts: 40, Calendar: cal}, clock)
	if err != nil {
		t.Fatal(err)
	}
	window := market.Window{Start: 9*60 + 25, End: 15 * 60}
	in := kline.NewIntraday(dm, cal, window, clock, kline.IntradayConfig{MaxWatched: 50, RefreshAge: time.Minute})
	svc := kline.NewService(store, dm, "demo", in, cal, clock, kline.Config{Window: window}, log)
	pager, err := kline.NewPager(svc, time.Minute, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pager.Close)
	return svc, pager, dm
}

// testRoutes adds endpoints that exercise the middleware in ways the real
// routes do not yet: a signed POST body, scopes, panics.
func (s *Server) testRoutes() {
	s.protected(http.MethodPost, "/test/echo", auth.ScopeMarket, func(w http.ResponseWriter, r *http.Request) error {
		b, _ := io.ReadAll(r.Body)
		return ok(w, map[string]any{"bytes": len(b), "body": string(b)})
	})
	s.protected(http.MethodGet, "/test/kline", auth.ScopeKline, func(w http.ResponseWriter, r *http.Request) error {
		return ok(w, "kline")
	})
	s.protected(http.MethodPost, "/test/admin", auth.ScopeAdmin, func(w http.ResponseWriter, r *http.Request) error {
		return ok(w, "admin")
	})
	s.public(http.MethodGet, "/test/panic", func(w http.ResponseWriter, r *http.Request) error {
		panic("secret internal state: /home/trader/.ssh")
	})
	s.public(http.MethodGet, "/test/abort", func(w http.ResponseWriter, r *http.Request) error {
		panic(http.ErrAbortHandler)
	})
}

type clientOpts struct {
	scopes    string
	enabled   *bool
	expires   time.Time
	apiKey    string
	enableLog bool
}

func (h *harness) addClient(id, secret string, o clientOpts) {
	h.t.Helper()
	hash, err := auth.HashSecret(secret, auth.DefaultKDF)
	if err != nil {
		h.t.Fatal(err)
	}
	sc := auth.DefaultScopes()
	if o.scopes != "" {
		if sc, err = auth.ParseScopes(o.scopes); err != nil {
			h.t.Fatal(err)
		}
	}
	c := auth.Client{ID: id, SecretHash: hash, Scopes: sc, Enabled: o.enabled == nil || *o.enabled,
		ExpiresAt: o.expires, EnableLog: o.enableLog, CreatedAt: t0, UpdatedAt: t0}
	if o.apiKey != "" {
		c.APIKeyHash = auth.HashToken(o.apiKey)
	}
	if _, err := h.store.PutClient(context.Background(), c); err != nil {
		h.t.Fatal(err)
	}
}

// response is a decoded answer.
type response struct {
	status  int
	header  http.Header
	raw     []byte
	code    int
	message string
	detail  string
	data    json.RawMessage
}

func (h *harness) do(method, path string, body []byte, header http.Header) response {
	h.t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, h.srv.URL+path, rd)
	if err != nil {
		h.t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	res, err := h.srv.Client().Do(req)
	if err != nil {
		h.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	r := response{status: res.StatusCode, header: res.Header, raw: raw}
	if method != http.MethodHead {
		var env struct {
			Code    int             `json:"code"`
			Message string          `json:"message"`
			Detail  string          `json:"detail"`
			Data    json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(raw, &env); err != nil {
			h.t.Fatalf("%s %s: body is not JSON: %q", method, path, raw)
		}
		r.code, r.message, r.detail, r.data = env.Code, env.Message, env.Detail, env.Data
		if ct := res.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
			h.t.Fatalf("%s %s: Content-Type = %q", method, path, ct)
		}
	}
	return r
}

func (h *harness) token(id, secret string) string {
	h.t.Helper()
	r := h.do(http.MethodPost, "/v1/auth/token", []byte(`{"client_id":"`+id+`","client_secret":"`+secret+`"}`), nil)
	if r.status != http.StatusOK {
		h.t.Fatalf("token for %s: %d %s", id, r.status, r.raw)
	}
	var d struct{ Token string }
	json.Unmarshal(r.data, &d)
	return d.Token
}

// signedHeader signs body for token at the harness clock's time.
func (h *harness) signedHeader(token string, body []byte) http.Header {
	ts := strconv.FormatInt(h.clock.Now().Unix(), 10)
	nonce := client.NewNonce()
	return http.Header{
		"Authorization": {"Bearer " + token},
		"X-Timestamp":   {ts},
		"X-Nonce":       {nonce},
		"X-Signature":   {client.Signature(token, ts, nonce, body)},
	}
}

func (h *harness) signed(method, path, token string, body []byte) response {
	h.t.Helper()
	return h.do(method, path, body, h.signedHeader(token, body))
}

func (r response) expect(t *testing.T, status int, message string) {
	t.Helper()
	if r.status != status || (message != "" && r.message != message) {
		t.Fatalf("got %d %q (%s), want %d %q", r.status, r.message, r.raw, status, message)
	}
	wantCode := 0
	if status < 400 {
		wantCode = 1
	}
	if r.code != wantCode {
		t.Fatalf("envelope code = %d, want %d: %s", r.code, wantCode, r.raw)
	}
	if status >= 400 && r.data != nil {
		t.Fatalf("failure envelope carries data: %s", r.raw)
	}
}

func strconvItoa(n int64) string { return strconv.FormatInt(n, 10) }

func eventFilterAll() db.EventFilter { return db.EventFilter{Day: 20261123, Source: "push2"} }
