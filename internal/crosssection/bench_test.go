package crosssection_test

import (
	"context"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/crosssection"
	"mdqs/internal/demo"
	"mdqs/internal/market"
	"mdqs/internal/quote"
	"mdqs/internal/secmaster"
)

// The whole market's daily bars of one day (issue 29's goal: under 100
// ms), against the same bars read as one-day K-line reads of each code,
// the way a client had to ask before, in the same run.
func BenchmarkDailyCrossSection(b *testing.B) {
	ctx := context.Background()
	cal := market.DefaultCalendar()
	clock := market.NewFixedClock(time.Date(2026, 11, 27, 16, 0, 0, 0, market.Shanghai()))
	dm, err := demo.New(demo.DefaultConfig(), clock)
	if err != nil {
		b.Fatal(err)
	}
	store := dbtest.Open(b)
	q := quote.New(dm, dm, cal, clock, quote.Config{Age: time.Minute, Source: "demo"})
	sec := secmaster.New(store, q, cal, clock, secmaster.Config{RecordAfter: 15*60 + 5, History: dm, BackfillDays: 5})
	if err := sec.Record(ctx); err != nil {
		b.Fatal(err)
	}
	day := cal.Prev(20261127)
	if err := dm.EachDailyHistory(ctx, day, 30, func(c market.Code, bars []market.Bar) error {
		_, err := store.IngestBars(ctx, []db.BarBatch{{Code: c, Freq: market.Daily, Source: "demo", Bars: bars}})
		return err
	}); err != nil {
		b.Fatal(err)
	}
	svc := crosssection.New(store, sec, cal, clock)
	// Cold: a new security master each time, so the day's spans are read
	// from the store, as for the first request of a day.
	b.Run("cross_section_cold", func(b *testing.B) {
		for b.Loop() {
			cold := crosssection.New(store, secmaster.New(store, q, cal, clock, secmaster.Config{RecordAfter: 15*60 + 5}), cal, clock)
			list, _, _, err := cold.Daily(ctx, day, secmaster.Filter{}, nil, crosssection.Page{})
			if err != nil || len(list) < 5000 {
				b.Fatalf("%d, %v", len(list), err)
			}
		}
	})
	// Warm: the same day again (pages, a screen of the day), its spans kept.
	b.Run("cross_section", func(b *testing.B) {
		for b.Loop() {
			list, _, _, err := svc.Daily(ctx, day, secmaster.Filter{}, nil, crosssection.Page{})
			if err != nil || len(list) < 5000 {
				b.Fatalf("%d, %v", len(list), err)
			}
		}
	})
	b.Run("kline_reads_each_code", func(b *testing.B) {
		secs, _, _ := sec.Universe(ctx, day, secmaster.Filter{})
		for b.Loop() {
			for _, s := range secs {
				if _, err := store.Bars(ctx, db.BarQuery{Code: s.Code, Freq: market.Daily, FromTS: day.Start().Unix(), ToTS: day.At(23, 59, 59).Unix()}); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
