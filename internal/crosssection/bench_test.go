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
	m := newBenchMarket(b)
	if err := m.demo.EachDailyHistory(ctx, m.day, 30, func(c market.Code, bars []market.Bar) error {
		_, err := m.store.IngestBars(ctx, []db.BarBatch{{Code: c, Freq: market.Daily, Source: "demo", Bars: bars}})
		return err
	}); err != nil {
		b.Fatal(err)
	}
	svc := crosssection.New(m.store, m.sec, m.cal, m.clock)
	// Cold: a new security master each time, so the day's spans are read
	// from the store, as for the first request of a day.
	b.Run("cross_section_cold", func(b *testing.B) {
		for b.Loop() {
			list, _, _, err := m.cold().Daily(ctx, m.day, secmaster.Filter{}, nil, crosssection.Page{})
			if err != nil || len(list) < 5000 {
				b.Fatalf("%d, %v", len(list), err)
			}
		}
	})
	// Warm: the same day again (pages, a screen of the day), its spans kept.
	b.Run("cross_section", func(b *testing.B) {
		for b.Loop() {
			list, _, _, err := svc.Daily(ctx, m.day, secmaster.Filter{}, nil, crosssection.Page{})
			if err != nil || len(list) < 5000 {
				b.Fatalf("%d, %v", len(list), err)
			}
		}
	})
	b.Run("kline_reads_each_code", func(b *testing.B) {
		secs, _, _ := m.sec.Universe(ctx, m.day, secmaster.Filter{})
		for b.Loop() {
			for _, s := range secs {
				if _, err := m.store.Bars(ctx, db.BarQuery{Code: s.Code, Freq: market.Daily, FromTS: m.day.Start().Unix(), ToTS: m.day.At(23, 59, 59).Unix()}); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// The whole market's 1-minute bars at one minute (issue 29's goal: under
// 200 ms), from the packed minute store holding every stock's day, against
// the baseline of the same run: each code's day read through MinuteDays
// and decoded whole, its bar at the minute picked.
func BenchmarkMinuteCrossSection(b *testing.B) {
	ctx := context.Background()
	m := newBenchMarket(b)
	var days []db.MinuteDay
	for _, s := range m.demo.Stocks() {
		bars, err := m.demo.Klines(ctx, s.Code, market.Min1, m.day, m.day)
		if err != nil {
			b.Fatal(err)
		}
		if len(bars) > 0 {
			days = append(days, db.MinuteDay{Code: s.Code, Freq: market.Min1, Day: m.day, Bars: bars, Source: "demo"})
		}
	}
	if err := m.store.PutMinuteDays(ctx, days); err != nil {
		b.Fatal(err)
	}
	at := market.TimeOfDay(10*60 + 30)
	ts := at.On(m.day).Unix()
	svc := crosssection.New(m.store, m.sec, m.cal, m.clock)
	check := func(b *testing.B, list []crosssection.Minute, err error) {
		if err != nil || len(list) < 5000 || !list[len(list)/2].HasBar() {
			b.Fatalf("%d, %v", len(list), err)
		}
	}
	b.Run("cross_section_cold", func(b *testing.B) {
		for b.Loop() {
			list, _, _, err := m.cold().Minute(ctx, m.day, at, secmaster.Filter{}, nil, crosssection.Page{})
			check(b, list, err)
		}
	})
	b.Run("cross_section", func(b *testing.B) {
		for b.Loop() {
			list, _, _, err := svc.Minute(ctx, m.day, at, secmaster.Filter{}, nil, crosssection.Page{})
			check(b, list, err)
		}
	})
	b.Run("baseline=minute_days_each_code", func(b *testing.B) {
		secs, _, _ := m.sec.Universe(ctx, m.day, secmaster.Filter{})
		for b.Loop() {
			found := 0
			for _, s := range secs {
				got, err := m.store.MinuteDays(ctx, s.Code, market.Min1, m.day, m.day)
				if err != nil {
					b.Fatal(err)
				}
				for _, d := range got {
					for _, bar := range d.Bars {
						if bar.TS == ts {
							found++
							break
						}
					}
				}
			}
			if found < 5000 {
				b.Fatalf("%d bars at the minute", found)
			}
		}
	})
}

// benchMarket is the demo's whole market (5,300 stocks) with its security
// master recorded, on a SQLite store, the day before 2026-11-27 to read.
type benchMarket struct {
	demo  *demo.Market
	store *db.Store
	quote *quote.Service
	sec   *secmaster.Service
	cal   *market.Calendar
	clock market.Clock
	day   market.Day
}

func newBenchMarket(b *testing.B) *benchMarket {
	b.Helper()
	cal := market.DefaultCalendar()
	clock := market.NewFixedClock(time.Date(2026, 11, 27, 16, 0, 0, 0, market.Shanghai()))
	dm, err := demo.New(demo.DefaultConfig(), clock)
	if err != nil {
		b.Fatal(err)
	}
	store := dbtest.Open(b)
	q := quote.New(dm, dm, cal, clock, quote.Config{Age: time.Minute, Source: "demo"})
	sec := secmaster.New(store, q, cal, clock, secmaster.Config{RecordAfter: 15*60 + 5, History: dm, BackfillDays: 5})
	if err := sec.Record(context.Background()); err != nil {
		b.Fatal(err)
	}
	return &benchMarket{demo: dm, store: store, quote: q, sec: sec, cal: cal, clock: clock, day: cal.Prev(20261127)}
}

// cold is a cross-section service whose security master is new, so the
// day's spans are read from the store, as for the first request of a day.
func (m *benchMarket) cold() *crosssection.Service {
	return crosssection.New(m.store, secmaster.New(m.store, m.quote, m.cal, m.clock, secmaster.Config{RecordAfter: 15*60 + 5}), m.cal, m.clock)
}
