package db_test

import (
	"context"
	"math"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/demo"
	"mdqs/internal/market"
)

// A day of minutes goes in as one record and comes back bit for bit, on
// either store; a day stored again replaces the first; a range reads the
// days in it only.
func TestMinuteDaysRoundTrip(t *testing.T) {
	s := dbtest.Open(t)
	ctx := context.Background()
	clock := market.NewFixedClock(time.Date(2026, 11, 27, 16, 0, 0, 0, market.Shanghai()))
	dm, err := demo.New(demo.Config{Seed: 7, Stocks: 20, Industries: 5, Concepts: 5}, clock)
	if err != nil {
		t.Fatal(err)
	}
	code := dm.Stocks()[3].Code
	var days []db.MinuteDay
	for _, f := range []market.Freq{market.Min1, market.Min5} {
		bars, err := dm.Klines(ctx, code, f, 20261123, 20261127)
		if err != nil {
			t.Fatal(err)
		}
		byDay := map[market.Day][]market.Bar{}
		var order []market.Day
		for _, b := range bars {
			if byDay[b.Day] == nil {
				order = append(order, b.Day)
			}
			byDay[b.Day] = append(byDay[b.Day], b)
		}
		for _, d := range order {
			days = append(days, db.MinuteDay{Code: code, Freq: f, Day: d, Bars: byDay[d], Source: "demo"})
		}
	}
	if len(days) != 10 {
		t.Fatalf("%d days of minutes from the demo; want 5 of each frequency", len(days))
	}
	if err := s.PutMinuteDays(ctx, days); err != nil {
		t.Fatal(err)
	}
	got, err := s.MinuteDays(ctx, code, market.Min1, 20261124, 20261126)
	if err != nil || len(got) != 3 {
		t.Fatalf("three days of 1m: %d, %v", len(got), err)
	}
	for i, g := range got {
		want := days[1+i]
		if g.Day != want.Day || g.Source != "demo" || len(g.Bars) != 240 || !exactBars(g.Bars, want.Bars) {
			t.Fatalf("%v: %d bars from %s; want the %d stored, bit for bit", g.Day, len(g.Bars), g.Source, len(want.Bars))
		}
	}
	// Stored again, changed: the record is replaced, not added.
	again := days[5]
	again.Bars = append([]market.Bar(nil), again.Bars...)
	again.Bars[0].TurnoverRate = market.Unknown()
	again.Source = "push2his"
	if err := s.PutMinuteDays(ctx, []db.MinuteDay{again}); err != nil {
		t.Fatal(err)
	}
	five, err := s.MinuteDays(ctx, code, market.Min5, 0, 20991231)
	if err != nil || len(five) != 5 || five[0].Source != "push2his" || !math.IsNaN(five[0].Bars[0].TurnoverRate) || len(five[0].Bars) != 48 {
		t.Fatalf("5m after a replace: %d days, first from %s, %v", len(five), five[0].Source, err)
	}
	// Bad input is refused before anything is written.
	for _, bad := range []db.MinuteDay{
		{Code: code, Freq: market.Daily, Day: days[0].Day, Bars: days[0].Bars, Source: "x"},
		{Code: code, Freq: market.Min1, Day: 20261120, Bars: days[0].Bars, Source: "x"},
		{Code: code, Freq: market.Min1, Day: days[0].Day, Source: "x"},
	} {
		if err := s.PutMinuteDays(ctx, []db.MinuteDay{bad}); market.KindOf(err) != market.KindInvalid {
			t.Errorf("%s %v with %d bars: %v; want invalid", bad.Freq, bad.Day, len(bad.Bars), err)
		}
	}
}

// exactBars compares bit for bit, NaN included.
func exactBars(a, b []market.Bar) bool {
	if len(a) != len(b) {
		return false
	}
	f := math.Float64bits
	for i, x := range a {
		y := b[i]
		if x.Day != y.Day || x.TS != y.TS || x.Volume != y.Volume || f(x.Open) != f(y.Open) || f(x.High) != f(y.High) ||
			f(x.Low) != f(y.Low) || f(x.Close) != f(y.Close) || f(x.Amount) != f(y.Amount) ||
			f(x.TurnoverRate) != f(y.TurnoverRate) || f(x.LargeOrderNet) != f(y.LargeOrderNet) {
			return false
		}
	}
	return true
}
