package kline_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"math"
	"strings"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/demo"
	"mdqs/internal/etf"
	"mdqs/internal/kline"
	"mdqs/internal/market"
)

type failingList struct{}

func (failingList) Quotes(context.Context) ([]market.Quote, error) {
	return nil, errors.New("the ETF list is down")
}

// The end of day stores the day's bar of every security of the lists the
// A-share quote list leaves out (the ETF list), so the minute archive
// checks a fund's day against its daily bar as a stock's: the bar is the
// fund's K-line of the day, its main-force net unknown. A list that
// fails leaves the stocks' bars stored and says why.
func TestEndOfDayStoresTheETFsBars(t *testing.T) {
	ctx := context.Background()
	day := market.Day(20261123)
	clock := market.NewFixedClock(day.At(16, 0, 0))
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
	etfs := etf.New(dm, clock, etf.Config{Source: "demo"})
	store := dbtest.Open(t)
	if err := service(store).EndOfDay(ctx, dm, kline.EODConfig{More: []kline.QuoteSource{etfs}}); err != nil {
		t.Fatal(err)
	}
	list, err := dm.ETFs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range list {
		got, err := store.Bars(ctx, db.BarQuery{Code: e.Code, Freq: market.Daily, FromTS: day.Start().Unix(), ToTS: day.At(23, 0, 0).Unix()})
		if err != nil {
			t.Fatal(err)
		}
		want, err := dm.Klines(ctx, e.Code, market.Daily, day, day)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || len(want) != 1 {
			t.Fatalf("%v: %d bars stored, %d made", e.Code, len(got), len(want))
		}
		g, w := got[0], want[0]
		if g.TS != w.TS || g.Open != w.Open || g.High != w.High || g.Low != w.Low || g.Close != w.Close || g.Volume != w.Volume ||
			g.Amount != w.Amount || g.TurnoverRate != w.TurnoverRate || !math.IsNaN(g.LargeOrderNet) {
			t.Fatalf("%v: stored %+v, the K-line %+v", e.Code, g, w)
		}
	}
	_, stocks, err := store.Stocks(ctx, db.StockQuery{Type: market.TypeFund, Limit: 10})
	if err != nil || len(stocks) != len(list) {
		t.Fatalf("%d funds in the security list (%v); the ETF list has %d", len(stocks), err, len(list))
	}

	down := dbtest.Open(t)
	err = service(down).EndOfDay(ctx, dm, kline.EODConfig{More: []kline.QuoteSource{failingList{}}})
	if err == nil || !strings.Contains(err.Error(), "the ETF list is down") {
		t.Fatalf("a list down: %v", err)
	}
	if n, _, err := down.Stocks(ctx, db.StockQuery{Type: market.TypeStock, Limit: 1}); err != nil || n == 0 {
		t.Fatalf("the stocks' day with a list down: %d stocks, %v", n, err)
	}
}
