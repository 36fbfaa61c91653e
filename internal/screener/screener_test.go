package screener_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/demo"
	"mdqs/internal/kline"
	"mdqs/internal/market"
	"mdqs/internal/screener"
)

var monday10 = time.Date(2026, 11, 23, 10, 0, 0, 0, market.Shanghai())

// gate holds the quote snapshot until released, so a test can watch a
// screen while it runs.
type gate struct {
	src     screener.QuoteSource
	mu      sync.Mutex
	blocked bool
	release chan struct{}
	entered chan struct{}
}

func (g *gate) Quotes(ctx context.Context) ([]market.Quote, error) {
	g.mu.Lock()
	blocked := g.blocked
	g.mu.Unlock()
	if blocked {
		g.entered <- struct{}{}
		select {
		case <-g.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return g.src.Quotes(ctx)
}

func (g *gate) block() {
	g.mu.Lock()
	g.blocked, g.release, g.entered = true, make(chan struct{}), make(chan struct{}, 16)
	g.mu.Unlock()
}

func (g *gate) open() {
	g.mu.Lock()
	g.blocked = false
	close(g.release)
	g.mu.Unlock()
}

type fixture struct {
	store *db.Store
	clock *market.FixedClock
	dm    *demo.Market
	gate  *gate
	frame *screener.Frame
	queue *screener.Queue
	cfg   screener.Config
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// template is a database holding the demo market's daily bars since
// August, built once: every test starts from a copy of the file.
var template struct {
	once sync.Once
	path string
	err  error
}

// listed is how many stocks the demo lists now: its 300 less those
// delisted by then.
func listed(t *testing.T, dm *demo.Market) int {
	t.Helper()
	qs, err := dm.Quotes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) < 290 || len(qs) > 300 {
		t.Fatalf("the demo lists %d stocks; want 300 less a few delisted", len(qs))
	}
	return len(qs)
}

func demoMarket(clock market.Clock) (*demo.Market, error) {
	return demo.New(demo.Config{Seed: 11, Stocks: 300, Industries: 20, Concepts: 40, Calendar: market.DefaultCalendar()}, clock)
}

func buildTemplate(t *testing.T) string {
	template.once.Do(func() {
		dir, err := os.MkdirTemp("", "screener-template")
		if err != nil {
			template.err = err
			return
		}
		template.path = filepath.Join(dir, "mdqs.db")
		store, err := db.Open(context.Background(), template.path, db.Options{SQLiteSchema: dbtest.SQLiteSchema(t)})
		if err != nil {
			template.err = err
			return
		}
		defer store.Close()
		clock := market.NewFixedClock(monday10)
		dm, err := demoMarket(clock)
		if err != nil {
			template.err = err
			return
		}
		cal := market.DefaultCalendar()
		window := market.Window{Start: 9*60 + 25, End: 15 * 60}
		svc := kline.NewService(store, dm, "demo", kline.NewIntraday(dm, cal, window, clock, kline.IntradayConfig{MaxWatched: 10, RefreshAge: time.Minute}),
			cal, clock, kline.Config{Window: window}, quiet())
		var codes []market.Code
		for _, s := range dm.Stocks() {
			codes = append(codes, s.Code)
		}
		_, template.err = svc.Backfill(context.Background(), codes, market.Daily, 20260801, 20261120, nil)
	})
	if template.err != nil {
		t.Fatal(template.err)
	}
	return template.path
}

func TestMain(m *testing.M) {
	code := m.Run()
	if template.path != "" {
		os.RemoveAll(filepath.Dir(template.path))
	}
	os.Exit(code)
}

// newFixture starts a queue over a copy of the template database.
func newFixture(t *testing.T, cfg screener.Config) *fixture {
	t.Helper()
	src := buildTemplate(t)
	path := filepath.Join(t.TempDir(), "mdqs.db")
	b, err := os.ReadFile(src) // closed and checkpointed: the file is the whole database
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	f := &fixture{store: dbtest.OpenAt(t, path), clock: market.NewFixedClock(monday10), cfg: cfg}
	cal := market.DefaultCalendar()
	dm, err := demoMarket(f.clock)
	if err != nil {
		t.Fatal(err)
	}
	f.dm = dm
	f.gate = &gate{src: dm}
	members := screener.MembershipFunc(func(ctx context.Context) (map[string]string, map[string][]string, error) {
		ind, con := map[string]string{}, map[string][]string{}
		for _, b := range dm.Boards(market.Industry) {
			for _, c := range b.Members {
				ind[c.String()] = b.Name
			}
		}
		for _, b := range dm.Boards(market.Concept) {
			for _, c := range b.Members {
				con[c.String()] = append(con[c.String()], b.Name)
			}
		}
		return ind, con, nil
	})
	f.frame = screener.NewFrame(f.store, f.gate, members, nil, cal, f.clock, time.Minute)
	f.start(t)
	return f
}

func (f *fixture) start(t *testing.T) {
	t.Helper()
	f.queue = screener.NewQueue(f.store, f.frame, f.clock, quiet(), f.cfg)
	if err := f.queue.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.queue.Stop)
}

func defaultConfig() screener.Config {
	return screener.Config{Workers: 1, Timeout: 30 * time.Second, MaxActivePerClient: 5, DefaultLimit: 100, MaxLimit: 5000}
}

// wait polls a job until it reaches one of the states.
func (f *fixture) wait(t *testing.T, client, id string, states ...string) db.Job {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		j, err := f.queue.Status(context.Background(), client, id)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range states {
			if j.State == s {
				return j
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s is %s after 10s, want one of %v", id, j.State, states)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestScreenMatchesABruteForceFilter(t *testing.T) {
	f := newFixture(t, defaultConfig())
	ctx := context.Background()
	job, _, err := f.queue.Submit(ctx, "a", screener.Submission{Expression: "price > ma20 && turnover > 1 && pct > 0", Sort: "-pct", Limit: 5000})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(job.Fields, ",") != "price,ma20,turnover,pct" {
		t.Fatalf("fields used = %v", job.Fields)
	}
	done := f.wait(t, "a", job.ID, db.JobSucceeded)
	if n := listed(t, f.dm); done.Total != n || done.Done != n {
		t.Fatalf("progress %d/%d, want %d/%[3]d", done.Done, done.Total, n)
	}
	// The same filter by hand over the same frame.
	rows, err := f.frame.Rows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, r := range rows {
		if r.Price > r.MA20 && r.Turnover > 1 && r.Pct > 0 {
			want++
		}
	}
	if want == 0 || done.Matched != want {
		t.Fatalf("matched %d, brute force %d", done.Matched, want)
	}
	_, res, err := f.queue.Results(ctx, "a", job.ID, 1, 1000)
	if err != nil || len(res) != want {
		t.Fatalf("results = %d, %v", len(res), err)
	}
	for i := 1; i < len(res); i++ {
		if res[i].Values["pct"].(float64) > res[i-1].Values["pct"].(float64) {
			t.Fatal("results not sorted by pct descending")
		}
	}
	if _, ok := res[0].Values["ma20"]; !ok || res[0].Name == "" {
		t.Fatalf("result lacks the used fields: %+v", res[0])
	}
	// Paging continues where the page before stopped.
	_, p2, _ := f.queue.Results(ctx, "a", job.ID, 2, 3)
	if len(p2) != min(3, len(res)-3) || p2[0].Code != res[3].Code {
		t.Fatalf("page 2 of 3 starts with %v, want %s", p2, res[3].Code)
	}
}

func TestIndicatorsInTheFrameMatchTheBars(t *testing.T) {
	f := newFixture(t, defaultConfig())
	rows, err := f.frame.Rows(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var r screener.Row
	for _, x := range rows {
		if x.Code == "600519.SH" {
			r = x
		}
	}
	bars, _ := f.dm.Klines(context.Background(), market.MustCode("600519.SH"), market.Daily, 20260901, 20261120)
	closes := []float64{}
	for _, b := range bars {
		closes = append(closes, b.Close)
	}
	// While the session runs, today's price is the last close of the window.
	closes = append(closes, r.Price)
	sum := 0.0
	for _, c := range closes[len(closes)-20:] {
		sum += c
	}
	if math.Abs(r.MA20-sum/20) > 1e-9 || r.Industry == "" {
		t.Fatalf("600519.SH ma20 = %v, want %v (industry %q)", r.MA20, sum/20, r.Industry)
	}
	if math.Abs(r.Pct5D-(closes[len(closes)-1]/closes[len(closes)-6]-1)*100) > 1e-9 {
		t.Fatalf("pct_5d = %v", r.Pct5D)
	}
}

func TestUniverseNarrowsTheScreen(t *testing.T) {
	f := newFixture(t, defaultConfig())
	ctx := context.Background()
	for _, tt := range []struct {
		u     screener.Universe
		check func(code string) bool
	}{
		{screener.Universe{Market: "SZ"}, func(c string) bool { return strings.HasSuffix(c, ".SZ") }},
		{screener.Universe{Codes: []string{"600519", "000001.SZ"}}, func(c string) bool { return c == "600519.SH" || c == "000001.SZ" }},
	} {
		job, _, err := f.queue.Submit(ctx, "a", screener.Submission{Expression: "price > 0", Universe: tt.u, Limit: 5000})
		if err != nil {
			t.Fatal(err)
		}
		done := f.wait(t, "a", job.ID, db.JobSucceeded)
		_, res, _ := f.queue.Results(ctx, "a", job.ID, 1, 5000)
		if len(res) == 0 || done.Total != len(res) {
			t.Fatalf("universe %+v: %d results of %d", tt.u, len(res), done.Total)
		}
		for _, r := range res {
			if !tt.check(r.Code) {
				t.Fatalf("universe %+v let %s through", tt.u, r.Code)
			}
		}
	}
	block := f.dm.Boards(market.Concept)[0].Name
	job, _, _ := f.queue.Submit(ctx, "a", screener.Submission{Expression: `"` + block + `" in concepts`, Limit: 5000})
	byExpr := f.wait(t, "a", job.ID, db.JobSucceeded)
	job, _, _ = f.queue.Submit(ctx, "a", screener.Submission{Expression: "true", Universe: screener.Universe{Block: block}, Limit: 5000})
	byUniverse := f.wait(t, "a", job.ID, db.JobSucceeded)
	if byExpr.Matched == 0 || byExpr.Matched != byUniverse.Matched {
		t.Fatalf("concept %s: %d by expression, %d by universe", block, byExpr.Matched, byUniverse.Matched)
	}
}

func TestBadExpressionsSayWhereAndWhy(t *testing.T) {
	f := newFixture(t, defaultConfig())
	for _, tt := range []struct{ expr, want string }{
		{"", "expression is required"},
		{"price >", "line 1, column"},
		{"price > foo", "unknown name foo"},
		{"price + 1", "bool"},
		{"name > 3", "mismatched types"},
		{"(price > 1", "line 1"},
	} {
		_, _, err := f.queue.Submit(context.Background(), "a", screener.Submission{Expression: tt.expr})
		if market.KindOf(err) != market.KindInvalid || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want invalid containing %q", tt.expr, err, tt.want)
		}
	}
	for _, sub := range []screener.Submission{
		{Expression: "true", Sort: "name"}, {Expression: "true", Sort: "-nothing"}, {Expression: "true", Limit: 5001},
		{Expression: "true", Universe: screener.Universe{Market: "HK"}}, {Expression: "true", Universe: screener.Universe{Codes: []string{"12"}}},
	} {
		if _, _, err := f.queue.Submit(context.Background(), "a", sub); market.KindOf(err) != market.KindInvalid {
			t.Errorf("%+v: %v, want invalid", sub, err)
		}
	}
}

func TestStatesAndCancelInEachState(t *testing.T) {
	f := newFixture(t, defaultConfig())
	ctx := context.Background()
	f.gate.block()
	running, _, _ := f.queue.Submit(ctx, "a", screener.Submission{Expression: "price > 0"})
	<-f.gate.entered
	if j := f.wait(t, "a", running.ID, db.JobRunning); j.StartedAt.IsZero() {
		t.Fatal("a running job has no start time")
	}
	queued, _, _ := f.queue.Submit(ctx, "a", screener.Submission{Expression: "price > 0"})
	if j, _ := f.queue.Status(ctx, "a", queued.ID); j.State != db.JobQueued {
		t.Fatalf("second job with one busy worker is %s", j.State)
	}
	// Results of an unfinished job are a conflict.
	if _, _, err := f.queue.Results(ctx, "a", running.ID, 1, 10); market.KindOf(err) != market.KindConflict {
		t.Fatalf("results while running: %v", err)
	}
	// Cancel the queued one: it never runs.
	if j, err := f.queue.Cancel(ctx, "a", queued.ID); err != nil || j.State != db.JobCanceled {
		t.Fatalf("cancel queued = %+v, %v", j, err)
	}
	// Cancel the running one: it stops within a second.
	start := time.Now()
	if _, err := f.queue.Cancel(ctx, "a", running.ID); err != nil {
		t.Fatal(err)
	}
	j := f.wait(t, "a", running.ID, db.JobCanceled)
	if time.Since(start) > time.Second || j.FinishedAt.IsZero() {
		t.Fatalf("running job took %v to stop", time.Since(start))
	}
	f.gate.open()
	// A finished job cannot be cancelled; its results say why there are none.
	if _, err := f.queue.Cancel(ctx, "a", running.ID); market.KindOf(err) != market.KindConflict {
		t.Fatalf("cancel a canceled job: %v", err)
	}
	if _, _, err := f.queue.Results(ctx, "a", running.ID, 1, 10); market.KindOf(err) != market.KindConflict || !strings.Contains(err.Error(), "canceled") {
		t.Fatalf("results of a canceled job: %v", err)
	}
	ok, _, _ := f.queue.Submit(ctx, "a", screener.Submission{Expression: "price > 0"})
	f.wait(t, "a", ok.ID, db.JobSucceeded)
	if _, err := f.queue.Cancel(ctx, "a", ok.ID); market.KindOf(err) != market.KindConflict {
		t.Fatalf("cancel a succeeded job: %v", err)
	}
	if j, _ := f.queue.Status(ctx, "a", queued.ID); j.State != db.JobCanceled || j.Done != 0 {
		t.Fatalf("the canceled queued job ran: %+v", j)
	}
}

func TestIsolationCapAndIdempotency(t *testing.T) {
	cfg := defaultConfig()
	cfg.MaxActivePerClient = 2
	f := newFixture(t, cfg)
	ctx := context.Background()
	f.gate.block()
	first, _, _ := f.queue.Submit(ctx, "a", screener.Submission{Expression: "price > 0"})
	<-f.gate.entered
	f.queue.Submit(ctx, "a", screener.Submission{Expression: "price > 1"})
	if _, _, err := f.queue.Submit(ctx, "a", screener.Submission{Expression: "price > 2"}); market.KindOf(err) != market.KindRateLimited {
		t.Fatalf("third active screen: %v, want rate limited", err)
	}
	// Another client has its own allowance and cannot see a's jobs.
	if _, _, err := f.queue.Submit(ctx, "b", screener.Submission{Expression: "price > 2"}); err != nil {
		t.Fatalf("client b: %v", err)
	}
	for _, call := range []func() error{
		func() error { _, err := f.queue.Status(ctx, "b", first.ID); return err },
		func() error { _, _, err := f.queue.Results(ctx, "b", first.ID, 1, 1); return err },
		func() error { _, err := f.queue.Cancel(ctx, "b", first.ID); return err },
	} {
		if err := call(); market.KindOf(err) != market.KindNotFound {
			t.Fatalf("client b on a's job: %v, want not found", err)
		}
	}
	f.gate.open()
	one, existing, _ := f.queue.Submit(ctx, "b", screener.Submission{Expression: "pct > 1", IdempotencyKey: "k1"})
	two, existing2, _ := f.queue.Submit(ctx, "b", screener.Submission{Expression: "pct > 5", IdempotencyKey: "k1"})
	if existing || !existing2 || one.ID != two.ID || two.Expression != "pct > 1" {
		t.Fatalf("idempotency: %s/%v then %s/%v", one.ID, existing, two.ID, existing2)
	}
}

func TestRestartRequeuesRunningJobs(t *testing.T) {
	f := newFixture(t, defaultConfig())
	ctx := context.Background()
	f.gate.block()
	job, _, _ := f.queue.Submit(ctx, "a", screener.Submission{Expression: "price > 0"})
	<-f.gate.entered
	f.wait(t, "a", job.ID, db.JobRunning)
	f.queue.Stop() // the process stops mid-screen
	if j, _ := f.queue.Status(ctx, "a", job.ID); j.State != db.JobRunning {
		t.Fatalf("after a stop the job is %s; the store should still say running", j.State)
	}
	f.gate.open()
	f.start(t) // the next process
	done := f.wait(t, "a", job.ID, db.JobSucceeded)
	if done.Matched == 0 {
		t.Fatal("the re-queued job matched nothing")
	}
}

func TestTimeoutFailsWithAReason(t *testing.T) {
	cfg := defaultConfig()
	cfg.Timeout = 50 * time.Millisecond
	f := newFixture(t, cfg)
	f.gate.block()
	job, _, _ := f.queue.Submit(context.Background(), "a", screener.Submission{Expression: "price > 0"})
	<-f.gate.entered
	j := f.wait(t, "a", job.ID, db.JobFailed)
	if !strings.Contains(j.Error, "timed out") {
		t.Fatalf("error = %q", j.Error)
	}
	f.gate.open()
	b, _ := json.Marshal(screener.Fields())
	if !strings.Contains(string(b), `"name":"ma20"`) {
		t.Fatal("the field catalogue lacks ma20")
	}
}
