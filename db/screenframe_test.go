package db_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/market"
)

// EachDailyColumns gives the same bars as EachDailySeries, column by
// column: daily bars only, from the given time on, code by code.
func TestEachDailyColumnsIsEachDailySeries(t *testing.T) {
	s := dbtest.Open(t)
	ctx := context.Background()
	bars := dayBars(40)
	var batches []db.BarBatch
	for _, c := range []string{"600519.SH", "000001.SZ", "830799.BJ"} {
		batches = append(batches, db.BarBatch{Code: market.MustCode(c), Freq: market.Daily, Source: "demo", Bars: bars})
	}
	minute := []market.Bar{{Day: bars[30].Day, TS: bars[30].TS - 60, Open: 1, High: 1, Low: 1, Close: 1, Volume: 1}}
	batches = append(batches, db.BarBatch{Code: market.MustCode("600519.SH"), Freq: market.Min1, Source: "demo", Bars: minute})
	if _, err := s.IngestBars(ctx, batches); err != nil {
		t.Fatal(err)
	}
	from := bars[25].TS - 1
	var want, got []string
	if err := s.EachDailySeries(ctx, from, func(code string, bs []market.Bar) error {
		for _, b := range bs {
			want = append(want, fmt.Sprint(code, b.Day, b.High, b.Low, b.Close, b.Volume))
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	codes := 0
	if err := s.EachDailyColumns(ctx, from, func(code string, c db.DailyColumns) error {
		codes++
		for i := range c.Days {
			got = append(got, fmt.Sprint(code, c.Days[i], c.High[i], c.Low[i], c.Close[i], c.Volume[i]))
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if codes != 3 || len(want) != 3*15 || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("EachDailyColumns (%d codes) = %v\nEachDailySeries = %v", codes, got, want)
	}
}

func TestLatestChipDay(t *testing.T) {
	s := dbtest.Open(t)
	ctx := context.Background()
	if d, err := s.LatestChipDay(ctx, 120); d != 0 || err != nil {
		t.Fatalf("LatestChipDay of an empty store = %v, %v; want 0", d, err)
	}
	chips := []db.Chip{{Code: "600519.SH", Days: 60, Close: 10, AvgCost: 9, ProfitRatio: 0.5}}
	for _, x := range []struct {
		day    market.Day
		window int
	}{{20261119, 120}, {20261120, 120}, {20261123, 60}} {
		if err := s.SaveChips(ctx, x.day, x.window, chips, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	for window, want := range map[int]market.Day{120: 20261120, 60: 20261123, 30: 0} {
		if d, err := s.LatestChipDay(ctx, window); d != want || err != nil {
			t.Errorf("LatestChipDay(%d) = %v, %v; want %v", window, d, err, want)
		}
	}
}
