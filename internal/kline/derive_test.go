package kline_test

import (
	"context"
	"io"
	"log/slog"
	"reflect"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/demo"
	"mdqs/internal/kline"
	"mdqs/internal/market"
)

// The demo's end-of-day work derives from the whole market's history in
// one pass instead of storing 130 days of every stock first (3 s of
// inserts at real scale): the signals and chips are the same as derived
// from the stored bars, and the screens' frame learns of them.
func TestDerivingFromHistoryEqualsDerivingFromTheStore(t *testing.T) {
	ctx := context.Background()
	clock := market.NewFixedClock(time.Date(2026, 11, 23, 16, 0, 0, 0, market.Shanghai()))
	cal := market.DefaultCalendar()
	dm, err := demo.New(demo.Config{Seed: 3, Stocks: 80, Industries: 5, Concepts: 5, Calendar: cal}, clock)
	if err != nil {
		t.Fatal(err)
	}
	window := market.Window{Start: 9*60 + 25, End: 15 * 60}
	service := func(store *db.Store) *kline.Service {
		in := kline.NewIntraday(dm, cal, window, clock, kline.IntradayConfig{MaxWatched: 10, RefreshAge: time.Minute})
		return kline.NewService(store, dm, "demo", in, cal, clock, kline.Config{Window: window}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	}
	read := func(store *db.Store) ([]db.Chip, []db.Signal) {
		_, _, chips, err := store.Chips(ctx, db.ChipQuery{Window: 120, Sort: "code", Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		signals, err := store.LatestSignals(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return chips, signals
	}

	stored := dbtest.Open(t)
	if err := service(stored).EndOfDay(ctx, dm, kline.EODConfig{SeedDays: 130}); err != nil {
		t.Fatal(err)
	}
	wantChips, wantSignals := read(stored)

	fresh := dbtest.Open(t)
	var derived []market.Day
	cfg := kline.EODConfig{SeedDays: 130, History: dm, Derived: func(d market.Day) { derived = append(derived, d) }}
	svc := service(fresh)
	if err := svc.EndOfDay(ctx, dm, cfg); err != nil {
		t.Fatal(err)
	}
	gotChips, gotSignals := read(fresh)
	if len(gotChips) == 0 || !reflect.DeepEqual(gotChips, wantChips) {
		t.Fatalf("chips from the history: %d rows, differ from the store's %d", len(gotChips), len(wantChips))
	}
	if !reflect.DeepEqual(gotSignals, wantSignals) {
		t.Fatalf("signals from the history differ from the store's")
	}
	if len(derived) != 1 || derived[0] != 20261123 {
		t.Fatalf("Derived called with %v, want once for 2026-11-23", derived)
	}
	// Done for the day: a later run derives nothing and says nothing.
	if err := svc.EndOfDay(ctx, dm, cfg); err != nil || len(derived) != 1 {
		t.Fatalf("second run: %v, Derived %v", err, derived)
	}
}
