package alert_test

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/alert"
	"mdqs/internal/market"
	"mdqs/internal/screener"
)

// board is a quote source a test moves by hand.
type board struct {
	mu  sync.Mutex
	pct map[string]float64
}

func (b *board) set(code string, pct float64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.pct[code] = pct
}

func (b *board) Quotes(ctx context.Context) ([]market.Quote, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []market.Quote
	for c, p := range b.pct {
		out = append(out, market.Quote{Code: market.MustCode(c), Name: "n" + c, Price: 10 * (1 + p/100), Pct: p, PrevClose: 10, Volume: 1000})
	}
	return out, nil
}

type fixture struct {
	store *db.Store
	svc   *alert.Service
	clock *market.FixedClock
	board *board
	fired [][]db.AlertEvent
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	return newFixtureWith(t, alert.Config{MaxPerClient: 3}, io.Discard)
}

// newFixtureWith is a fixture with cfg, logging to logs.
func newFixtureWith(t *testing.T, cfg alert.Config, logs io.Writer) *fixture {
	t.Helper()
	store := dbtest.Open(t)
	clock := market.NewFixedClock(time.Date(2026, 11, 23, 10, 0, 0, 0, market.Shanghai()))
	b := &board{pct: map[string]float64{"600519.SH": 6, "000001.SZ": 2, "300750.SZ": 9}}
	cal := market.DefaultCalendar()
	frame := screener.NewFrame(store, b, nil, nil, cal, clock, time.Minute)
	f := &fixture{store: store, clock: clock, board: b}
	f.svc = alert.New(store, frame, cal, clock, market.Window{Start: 9*60 + 25, End: 15 * 60},
		slog.New(slog.NewTextHandler(logs, nil)), cfg)
	f.svc.OnFire(func(evs []db.AlertEvent) { f.fired = append(f.fired, evs) })
	return f
}

func (f *fixture) evaluate(t *testing.T) []string {
	t.Helper()
	n := len(f.fired)
	if _, err := f.svc.Evaluate(context.Background()); err != nil {
		t.Fatal(err)
	}
	var codes []string
	for _, batch := range f.fired[n:] {
		for _, ev := range batch {
			codes = append(codes, ev.Code.String())
		}
	}
	return codes
}

func TestAnAlertFiresOncePerCooldown(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	a, err := f.svc.Create(ctx, "c", alert.Request{Name: "涨超5%", Expression: "pct > 5",
		Universe: screener.Universe{Codes: []string{"600519", "000001.SZ"}}, Cooldown: "30m"})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.evaluate(t); len(got) != 1 || got[0] != "600519.SH" {
		t.Fatalf("first evaluation fired %v; want 600519.SH only (300750 is outside the universe, 000001 below 5%%)", got)
	}
	f.clock.Advance(time.Minute)
	if got := f.evaluate(t); len(got) != 0 {
		t.Fatalf("a minute later, still matching: fired %v; want nothing within the cooldown", got)
	}
	f.board.set("000001.SZ", 7)
	f.clock.Advance(time.Minute)
	if got := f.evaluate(t); len(got) != 1 || got[0] != "000001.SZ" {
		t.Fatalf("000001 crossed: fired %v", got)
	}
	f.clock.Advance(28 * time.Minute) // 30 min after 600519's firing
	if got := f.evaluate(t); len(got) != 1 || got[0] != "600519.SH" {
		t.Fatalf("a cooldown after its firing: fired %v; want 600519.SH again", got)
	}
	evs, err := f.svc.Events(ctx, "c", 0, 100)
	if err != nil || len(evs) != 3 || evs[0].AlertName != "涨超5%" || string(evs[0].Fields) != `{"pct":6}` {
		t.Fatalf("events: %v %+v", err, evs)
	}
	// Deleted, it fires no more.
	if _, err := f.svc.Delete(ctx, "c", a.ID); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Hour)
	if got := f.evaluate(t); len(got) != 0 {
		t.Fatalf("a deleted alert fired %v", got)
	}
}

func TestAlertRequestsAreChecked(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	for _, tt := range []struct {
		req  alert.Request
		kind market.Kind
	}{
		{alert.Request{Expression: ""}, market.KindInvalid},
		{alert.Request{Expression: "pct >"}, market.KindInvalid},
		{alert.Request{Expression: "nosuchfield > 1"}, market.KindInvalid},
		{alert.Request{Expression: "pct > 1", Cooldown: "10s"}, market.KindInvalid},
		{alert.Request{Expression: "pct > 1", Cooldown: "soon"}, market.KindInvalid},
		{alert.Request{Expression: "pct > 1", Universe: screener.Universe{Market: "NY"}}, market.KindInvalid},
		{alert.Request{Expression: "pct > 1", Universe: screener.Universe{Codes: []string{"12"}}}, market.KindInvalid},
	} {
		if _, err := f.svc.Create(ctx, "c", tt.req); market.KindOf(err) != tt.kind {
			t.Errorf("%+v: %v; want %v", tt.req, err, tt.kind)
		}
	}
	a, err := f.svc.Create(ctx, "c", alert.Request{Expression: "pct > 1"})
	if err != nil || a.Cooldown != 30*time.Minute {
		t.Fatalf("defaults: %v %+v", err, a)
	}
	if _, err := f.svc.Get(ctx, "other", a.ID); market.KindOf(err) != market.KindForbidden {
		t.Fatalf("another client's alert: %v; want forbidden", err)
	}
	if _, err := f.svc.Delete(ctx, "other", a.ID); market.KindOf(err) != market.KindForbidden {
		t.Fatalf("deleting another client's alert: %v; want forbidden", err)
	}
	for range 2 {
		if _, err := f.svc.Create(ctx, "c", alert.Request{Expression: "pct > 1"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.svc.Create(ctx, "c", alert.Request{Expression: "pct > 1"}); market.KindOf(err) != market.KindConflict {
		t.Fatalf("a fourth alert over a cap of 3: %v", err)
	}
}
