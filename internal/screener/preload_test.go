package screener_test

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/internal/kline"
	"mdqs/internal/market"
	"mdqs/internal/screener"
)

// countedHistory counts the frame's builds (each reads the whole market's
// history once), makes each build's prices differ from the one before
// (the n-th call's closes are n times the market's), and can hold the
// next call until released.
type countedHistory struct {
	src     screener.History
	calls   atomic.Int32
	mu      sync.Mutex
	release chan struct{} // non-nil: the next call waits for it
	entered chan struct{}
}

func (h *countedHistory) EachDailyHistory(ctx context.Context, day market.Day, n int, fn func(market.Code, []market.Bar) error) error {
	k := float64(h.calls.Add(1))
	h.mu.Lock()
	release := h.release
	h.release = nil
	h.mu.Unlock()
	if release != nil {
		h.entered <- struct{}{}
		select {
		case <-release:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return h.src.EachDailyHistory(ctx, day, n, func(code market.Code, bars []market.Bar) error {
		for i := range bars {
			bars[i].Close *= k
		}
		return fn(code, bars)
	})
}

// holdNext makes the next build wait until the returned func is called.
func (h *countedHistory) holdNext() func() {
	release := make(chan struct{})
	h.mu.Lock()
	h.release, h.entered = release, make(chan struct{}, 1)
	h.mu.Unlock()
	return func() { close(release) }
}

func countedFrame(t *testing.T, f *fixture) (*screener.Frame, *countedHistory) {
	t.Helper()
	h := &countedHistory{src: f.dm}
	frame := screener.NewFrame(f.store, f.dm, nil, nil, market.DefaultCalendar(), f.clock, 0)
	frame.ReadHistoryFrom(h)
	return frame, h
}

// Refresh builds the daily part ahead of the screens: the first screen
// after a start, or after the trading day moves on, finds it built.
func TestRefreshBuildsBeforeTheFirstScreen(t *testing.T) {
	f := newFixture(t, defaultConfig())
	frame, h := countedFrame(t, f)
	ctx := context.Background()
	if err := frame.Refresh(ctx); err != nil { // the start
		t.Fatal(err)
	}
	if _, err := frame.Rows(ctx); err != nil {
		t.Fatal(err)
	}
	if err := frame.Refresh(ctx); err != nil { // the next minute: nothing to do
		t.Fatal(err)
	}
	if n := h.calls.Load(); n != 1 {
		t.Fatalf("a start, a screen and a refresh built the daily part %d times, want once (at the start)", n)
	}
	f.clock.Set(time.Date(2026, 11, 24, 0, 1, 0, 0, market.Shanghai())) // the next trading day
	if err := frame.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := frame.Rows(ctx); err != nil {
		t.Fatal(err)
	}
	if n := h.calls.Load(); n != 2 {
		t.Fatalf("after the day moved on: %d builds, want 2 (the refresh's, none by the screen)", n)
	}
}

// A screen that arrives while a build runs waits for it instead of
// starting another; a build that began before Invalidate is not used.
func TestScreenWaitsForTheBuildInFlight(t *testing.T) {
	f := newFixture(t, defaultConfig())
	frame, h := countedFrame(t, f)
	ctx := context.Background()
	for _, invalidate := range []bool{false, true} {
		release := h.holdNext()
		before := h.calls.Load()
		refreshed := make(chan error, 1)
		go func() { refreshed <- frame.Refresh(ctx) }()
		receive(t, h.entered, "the refresh's build")
		if invalidate {
			frame.Invalidate() // the end of day stored new data while the build read the old
		}
		screened := make(chan []screener.Row, 1)
		go func() {
			rows, err := frame.Rows(ctx)
			if err != nil {
				t.Error(err)
			}
			screened <- rows
		}()
		for deadline := time.Now().Add(10 * time.Second); frame.Waiting() == 0; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("invalidate %v: the screen does not wait for the build in flight", invalidate)
			}
		}
		release()
		if err := receive(t, refreshed, "the refresh"); err != nil {
			t.Fatal(err)
		}
		got := receive(t, screened, "the screen")
		want := int32(1)
		if invalidate {
			want = 2 // the held build was stale when it ended
		}
		if n := h.calls.Load() - before; n != want {
			t.Fatalf("invalidate %v: %d builds, want %d", invalidate, n, want)
		}
		latest, err := frame.Rows(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if diff := rowsDiff(got, latest); diff != "" {
			t.Fatalf("invalidate %v: the waiting screen saw another build than the latest: %s", invalidate, diff)
		}
		frame.Invalidate()
	}
}

// A frame kept up to date the way serve keeps it (built at start, rebuilt
// by Refresh and after Invalidate) holds what a frame loaded cold from the
// store holds: after the end of day stores the day's bars and derives its
// chips and signals (on this instance, which invalidates, and on another
// one, which does not learn of it), after a new hot-rank list, and after
// the trading day moves on.
func TestKeptFrameIsAColdLoad(t *testing.T) {
	f := newFixture(t, defaultConfig())
	ctx := context.Background()
	cal := market.DefaultCalendar()
	hot := screener.StoreHotRanks{Store: f.store, Clock: f.clock}
	newFrame := func() *screener.Frame {
		return screener.NewFrame(f.store, f.dm, nil, hot, cal, f.clock, 0)
	}
	leader, follower := newFrame(), newFrame()
	for _, fr := range []*screener.Frame{leader, follower} {
		if err := fr.Refresh(ctx); err != nil { // the start
			t.Fatal(err)
		}
	}
	same := func(t *testing.T, when string, kept *screener.Frame) {
		t.Helper()
		got, err := kept.Rows(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want, err := newFrame().Rows(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if diff := rowsDiff(got, want); diff != "" {
			t.Fatalf("%s: the kept frame differs from a cold load: %s", when, diff)
		}
	}
	same(t, "at the start", leader)

	// Monday's close: the end-of-day job stores the day's bars from the
	// quotes and derives chips and signals; the leader's frame is told.
	f.clock.Set(time.Date(2026, 11, 23, 16, 0, 0, 0, market.Shanghai()))
	window := market.Window{Start: 9*60 + 25, End: 15 * 60}
	svc := kline.NewService(f.store, f.dm, "demo", kline.NewIntraday(f.dm, cal, window, f.clock, kline.IntradayConfig{MaxWatched: 10, RefreshAge: time.Minute}),
		cal, f.clock, kline.Config{Window: window}, quiet())
	before, err := newFrame().Rows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.EndOfDay(ctx, f.dm, kline.EODConfig{Derived: func(market.Day) { leader.Invalidate() }}); err != nil {
		t.Fatal(err)
	}
	after, err := newFrame().Rows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rowsDiff(before, after) == "" {
		t.Fatal("the end of day changed nothing a cold load sees: the test proves nothing")
	}
	same(t, "after the end of day, told", leader)
	same(t, "after the end of day on another instance", follower)

	// A new hot-rank list mid-session is seen at the next screen.
	f.clock.Set(time.Date(2026, 11, 24, 9, 40, 0, 0, market.Shanghai()))
	for _, fr := range []*screener.Frame{leader, follower} {
		if err := fr.Refresh(ctx); err != nil { // the day moved on
			t.Fatal(err)
		}
	}
	same(t, "on the next trading day", leader)
	if _, err := f.store.UpsertHotRank(ctx, 20261124, []db.HotRankEntry{{Day: 20261124, Code: market.MustCode("600519.SH"), Name: "贵州茅台",
		Rank: 1, Heat: 9000, Source: "test"}}, f.clock.Now()); err != nil {
		t.Fatal(err)
	}
	rows, err := leader.Rows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Code == "600519.SH" && r.HotRank != 1 {
			t.Fatalf("600519.SH hot_rank = %v after a new list ranked it 1", r.HotRank)
		}
	}
	same(t, "after a new hot-rank list", follower)
}

// receive waits for a value, failing the test after 10 s (a hang, not a
// measure).
func receive[T any](t *testing.T, c <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: nothing after 10 s", what)
		panic("unreachable")
	}
}

// rowsDiff describes the first difference between two row lists, "" when
// none (NaN equals NaN).
func rowsDiff(a, b []screener.Row) string {
	if len(a) != len(b) {
		return fmt.Sprintf("%d rows, want %d", len(a), len(b))
	}
	for i := range a {
		if fmt.Sprint(a[i]) == fmt.Sprint(b[i]) {
			continue
		}
		va, vb := reflect.ValueOf(a[i]), reflect.ValueOf(b[i])
		for j := range va.NumField() {
			if x, y := va.Field(j).Interface(), vb.Field(j).Interface(); fmt.Sprint(x) != fmt.Sprint(y) {
				return fmt.Sprintf("row %d (%s): %s = %v, want %v", i, a[i].Code, va.Type().Field(j).Name, x, y)
			}
		}
	}
	return ""
}
