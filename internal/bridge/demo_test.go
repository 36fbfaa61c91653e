package bridge_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
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
	b := bridge.NewDemo(dir, store, market.DefaultCalendar(), clock, slog.New(slog.NewTextHandler(io.Discard, nil)))
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
