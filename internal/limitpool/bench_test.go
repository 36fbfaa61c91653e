package limitpool_test

import (
	"context"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/crosssection"
	"mdqs/internal/demo"
	"mdqs/internal/limitpool"
	"mdqs/internal/market"
	"mdqs/internal/quote"
	"mdqs/internal/secmaster"
)

// A whole market day's pools and ladder (the demo's 5,300 stocks, 70 days
// of daily bars and the day's 1-minute bars stored), against the baseline
// of the same run: the day's bars/daily cross-section, which reads two
// bars a code where the derivation reads four and then the candidates'
// history, names, actions and minutes.
func BenchmarkDeriveDay(b *testing.B) {
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
	if err := dm.EachDailyHistory(ctx, day, 70, func(c market.Code, bars []market.Bar) error {
		_, err := store.IngestBars(ctx, []db.BarBatch{{Code: c, Freq: market.Daily, Source: "demo", Bars: bars}})
		return err
	}); err != nil {
		b.Fatal(err)
	}
	var days []db.MinuteDay
	for _, s := range dm.Stocks() {
		bars, err := dm.Klines(ctx, s.Code, market.Min1, day, day)
		if err != nil {
			b.Fatal(err)
		}
		if len(bars) > 0 {
			days = append(days, db.MinuteDay{Code: s.Code, Freq: market.Min1, Day: day, Bars: bars, Source: "demo"})
		}
	}
	if err := store.PutMinuteDays(ctx, days); err != nil {
		b.Fatal(err)
	}
	svc := limitpool.New(store, sec, nil, cal, clock, "demo")
	b.Run("derive_day", func(b *testing.B) {
		for b.Loop() {
			d, err := svc.Derive(ctx, day)
			if err != nil || d.Universe < 5000 {
				b.Fatalf("%d, %v", d.Universe, err)
			}
			d.Ladder()
		}
		d, _ := svc.Derive(ctx, day)
		levels, _ := d.Ladder()
		b.ReportMetric(float64(len(d.Rows)), "rows")
		b.ReportMetric(float64(len(d.Pool("up"))), "up")
		b.ReportMetric(float64(len(levels)), "levels")
		b.ReportMetric(float64(d.Minutes), "with_minutes")
	})
	b.Run("strong_pool", func(b *testing.B) {
		for b.Loop() {
			d, err := svc.Strong(ctx, day)
			if err != nil || len(d.Pool("strong")) == 0 {
				b.Fatalf("%d, %v", len(d.Rows), err)
			}
		}
		d, _ := svc.Strong(ctx, day)
		b.ReportMetric(float64(len(d.Rows)), "rows")
	})
	cs := crosssection.New(store, sec, cal, clock)
	b.Run("baseline=bars_daily_cross_section", func(b *testing.B) {
		for b.Loop() {
			list, _, _, err := cs.Daily(ctx, day, secmaster.Filter{Type: market.TypeStock}, nil, crosssection.Page{})
			if err != nil || len(list) < 5000 {
				b.Fatalf("%d, %v", len(list), err)
			}
		}
	})
}
