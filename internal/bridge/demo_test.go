package bridge_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/bridge"
	"mdqs/internal/bridge/bridgetest"
	"mdqs/internal/market"
)

// The demo terminal's bridge waits for its folder instead of failing, and
// its refresh stores names and blocks as the demo's but leaves bars to the
// demo market: the store's own bars keep their turnover and flow.
func TestDemoBridgeWaitsAndKeepsTheStoresBars(t *testing.T) {
	dir := t.TempDir()
	store := dbtest.Open(t)
	clock := market.NewFixedClock(time.Date(2026, 11, 23, 16, 0, 0, 0, market.Shanghai()))
	b := bridge.NewDemo(dir, store, market.DefaultCalendar(), clock, slog.New(slog.NewTextHandler(io.Discard, nil)), 0)
	ctx := context.Background()
	if !b.Configured() {
		t.Fatal("the demo bridge says it is not configured")
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if err := b.Wait(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait before the folder is prepared = %v, want it to wait", err)
	}
	b.Prepared(errors.New("disk full"))
	if err := b.Wait(ctx); market.KindOf(err) != market.KindUnavailable {
		t.Fatalf("Wait after a failed preparation = %v, want unavailable", err)
	}

	code := market.MustCode("600519.SH")
	own := market.Bar{Day: 20261120, TS: market.Day(20261120).At(15, 0, 0).Unix(), Open: 1500, High: 1510, Low: 1490, Close: 1504,
		Volume: 5000, Amount: 7.5e6, TurnoverRate: 0.42, LargeOrderNet: 1.5e5}
	if _, err := store.IngestBars(ctx, []db.BarBatch{{Code: code, Freq: market.Daily, Source: "demo", Bars: []market.Bar{own},
		Cover: &db.Span{First: 20261120, Last: 20261120}}}); err != nil {
		t.Fatal(err)
	}
	bridgetest.Write(t, dir)
	rep, err := b.Refresh(ctx, nil)
	if err != nil || rep.BarFiles != 5 || rep.Bars == 0 || rep.BarsWritten != 0 || rep.Names != 4 {
		t.Fatalf("refresh = %+v, %v", rep, err)
	}
	b.Prepared(nil)
	if err := b.Wait(ctx); err != nil {
		t.Fatalf("Wait once prepared = %v", err)
	}
	bars, err := store.Bars(ctx, db.BarQuery{Code: code, Freq: market.Daily})
	if err != nil || len(bars) != 1 || bars[0].TurnoverRate != 0.42 || bars[0].Amount != 7.5e6 {
		t.Fatalf("the store's bars after the refresh: %+v, %v", bars, err)
	}
	if _, list, err := store.Stocks(ctx, db.StockQuery{Limit: 10}); err != nil || len(list) == 0 || list[0].Source != "demo" {
		t.Fatalf("stocks after the refresh: %+v, %v", list, err)
	}
}

// Issue 32: a follower of a demo team writes its own folder but leaves the
// import to the leader. No request waits longer than the bridge's bound:
// then it is a 503 with a retry time naming what it waits for, and once the
// store holds the leader's import the follower answers at once, its bars
// from its own folder the same as the leader's.
func TestDemoBridgeWaitIsBounded(t *testing.T) {
	store := dbtest.Open(t)
	clock := market.NewFixedClock(time.Date(2026, 11, 23, 16, 0, 0, 0, market.Shanghai()))
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	const bound = 100 * time.Millisecond
	leaderDir, followerDir := t.TempDir(), t.TempDir()
	follower := bridge.NewDemo(followerDir, store, market.DefaultCalendar(), clock, quiet, bound)
	ctx := context.Background()

	waits := func(what, detail string) {
		t.Helper()
		began := time.Now()
		err := follower.Wait(ctx)
		took := time.Since(began)
		var e *market.Error
		if !errors.As(err, &e) || e.Kind != market.KindUnavailable || e.RetryAfter <= 0 || !strings.Contains(e.Detail, detail) {
			t.Fatalf("%s: Wait = %v (%+v), want unavailable with a retry time, saying %q", what, err, e, detail)
		}
		if took < bound || took > bound+2*time.Second {
			t.Errorf("%s: Wait took %v, want about its bound %v", what, took, bound)
		}
	}
	waits("before its folder is written", "still writing its copy of the demo terminal folder")
	bridgetest.Write(t, followerDir)
	follower.Written(nil)
	waits("its folder written, the store without an import", "has not yet imported")

	// The client leaving ends the wait with its own error, not a 503.
	gone, cancel := context.WithCancel(ctx)
	cancel()
	if err := follower.Wait(gone); !errors.Is(err, context.Canceled) {
		t.Errorf("Wait of a request that ended = %v, want context.Canceled", err)
	}

	// The leader imports its own copy; the follower, waiting meanwhile,
	// answers as soon as the store holds it.
	leader := bridge.NewDemo(leaderDir, store, market.DefaultCalendar(), clock, quiet, bound)
	bridgetest.Write(t, leaderDir)
	slow := bridge.NewDemo(followerDir, store, market.DefaultCalendar(), clock, quiet, 10*time.Second)
	slow.Written(nil)
	done := make(chan error, 1)
	go func() { done <- slow.Wait(ctx) }()
	if _, err := leader.Refresh(ctx, nil); err != nil {
		t.Fatal(err)
	}
	leader.Prepared(nil)
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("a follower's Wait once the leader imported = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a follower's Wait did not end within 5 s of the leader's import")
	}
	if err := follower.Wait(ctx); err != nil {
		t.Fatalf("Wait once the leader imported = %v", err)
	}
	code := market.MustCode("600519.SH")
	got, err := follower.Bars(ctx, code, market.Min5, 20261120, 20261120)
	if err != nil {
		t.Fatal(err)
	}
	want, err := leader.Bars(ctx, code, market.Min5, 20261120, 20261120)
	if err != nil || len(got) == 0 || fmt.Sprint(got) != fmt.Sprint(want) { // NaN marks unknown fields
		t.Fatalf("the follower's bars (%d) differ from the leader's (%d, %v)", len(got), len(want), err)
	}
}
