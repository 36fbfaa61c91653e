package db_test

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/demo"
	"mdqs/internal/market"
	"mdqs/internal/tdx"
)

// The packed minute store's goals (issue 29), each against today's rows
// of bars in the same run, on the store dbtest opens (SQLite; PostgreSQL
// with MDQS_TEST_STORE=postgres). Figures: docs/minute-store.md.

// minuteSet is a benchmark's bars: batches of one code's days each.
type minuteSet struct {
	batches []db.BarBatch
	bars    int
}

func (m *minuteSet) add(code market.Code, bars []market.Bar) {
	m.batches = append(m.batches, db.BarBatch{Code: code, Freq: market.Min1, Source: "bench", Bars: bars})
	m.bars += len(bars)
}

// demoMinutes are stocks demo stocks' 1-minute bars of the days trading
// days to 2026-11-27; without the large-order net (NaN), as push2his's
// minutes come, when noNet.
func demoMinutes(b *testing.B, stocks, days int, noNet bool) minuteSet {
	b.Helper()
	ctx := context.Background()
	clock := market.NewFixedClock(time.Date(2026, 11, 27, 16, 0, 0, 0, market.Shanghai()))
	dm, err := demo.New(demo.Config{Seed: 7, Stocks: stocks, Industries: 10, Concepts: 10}, clock)
	if err != nil {
		b.Fatal(err)
	}
	cal := market.DefaultCalendar()
	from := market.Day(20261127)
	for range days - 1 {
		from = cal.Prev(from)
	}
	var set minuteSet
	for _, s := range dm.Stocks() {
		bars, err := dm.Klines(ctx, s.Code, market.Min1, from, 20261127)
		if err != nil {
			b.Fatal(err)
		}
		for i := range bars {
			if noNet {
				bars[i].LargeOrderNet = math.NaN()
			}
		}
		set.add(s.Code, bars)
	}
	return set
}

// terminalMinutes are the 12 days of a real .lc1 (688001.SH) filed under
// stocks codes: a record's size is the day's, whichever code it is under.
func terminalMinutes(b *testing.B, stocks int) minuteSet {
	b.Helper()
	bf, err := tdx.ReadBars(filepath.Join("..", "internal", "minutepack", "testdata", "sh688001.lc1"), 0)
	if err != nil {
		b.Fatal(err)
	}
	var set minuteSet
	for i := range stocks {
		set.add(market.MustCode(fmt.Sprintf("6%05d.SH", i)), bf.Bars)
	}
	return set
}

// layouts are the two ways of keeping minutes, the one today and the one
// before it, each with what it writes and reads through.
var layouts = []struct {
	name  string
	table string
	write func(*db.Store, []db.BarBatch) error
	read  func(*db.Store, db.BarQuery) ([]market.Bar, error)
}{
	{"rows_of_bars", "bars",
		func(s *db.Store, b []db.BarBatch) error {
			_, err := s.IngestBarRows(context.Background(), b)
			return err
		},
		func(s *db.Store, q db.BarQuery) ([]market.Bar, error) { return s.BarRows(context.Background(), q) }},
	{"packed_minute_days", "minute_days",
		func(s *db.Store, b []db.BarBatch) error { _, err := s.IngestBars(context.Background(), b); return err },
		func(s *db.Store, q db.BarQuery) ([]market.Bar, error) { return s.Bars(context.Background(), q) }},
}

// Bytes on disk a 1-minute bar takes, table and indexes (goal: at most 8):
// 100 codes' days of three kinds, the demo's (with a large-order net a
// minute), the demo's without it (push2his's minutes carry none), and a
// real terminal file's.
func BenchmarkMinuteBytesOnDisk(b *testing.B) {
	sets := []struct {
		name string
		set  func() minuteSet
	}{
		{"demo", func() minuteSet { return demoMinutes(b, 100, 10, false) }},
		{"demo_without_net", func() minuteSet { return demoMinutes(b, 100, 10, true) }},
		{"terminal_lc1", func() minuteSet { return terminalMinutes(b, 100) }},
	}
	for _, set := range sets {
		data := set.set()
		for _, l := range layouts {
			b.Run(set.name+"/"+l.name, func(b *testing.B) {
				for b.Loop() {
					s := dbtest.Open(b)
					if err := l.write(s, data.batches); err != nil {
						b.Fatal(err)
					}
					size, err := s.TableBytes(context.Background(), l.table)
					if err != nil {
						b.Fatal(err)
					}
					b.ReportMetric(float64(size)/float64(data.bars), "bytes/bar")
					if !dbtest.Postgres(b) {
						payload, _, unused, err := s.TableSpace(context.Background(), l.table)
						if err != nil {
							b.Fatal(err)
						}
						b.ReportMetric(float64(payload)/float64(data.bars), "payload/bar")
						b.ReportMetric(float64(unused)/float64(data.bars), "unused/bar")
					}
				}
			})
		}
	}
}

// One code's day of 1-minute bars read (goal: at most 1.0x the rows'),
// from a store of 100 codes' 10 days, a different code and day each time.
func BenchmarkMinuteDayRead(b *testing.B) {
	data := demoMinutes(b, 100, 10, false)
	for _, l := range layouts {
		b.Run(l.name, func(b *testing.B) {
			s := dbtest.Open(b)
			if err := l.write(s, data.batches); err != nil {
				b.Fatal(err)
			}
			i := 0
			for b.Loop() {
				batch := data.batches[i%len(data.batches)]
				day := batch.Bars[240*(i%10)].Day
				bars, err := l.read(s, db.BarQuery{Code: batch.Code, Freq: market.Min1, FromTS: day.Start().Unix(), ToTS: day.At(23, 59, 59).Unix()})
				if err != nil || len(bars) != 240 {
					b.Fatalf("%d bars, %v", len(bars), err)
				}
				i += 7
			}
		})
	}
}

// A whole market's day of 1-minute bars written into an empty store (goal:
// under 3 s): 5,300 codes' 240 bars, in calls of 500 codes.
func BenchmarkMinuteMarketDayWrite(b *testing.B) {
	data := demoMinutes(b, 5300, 1, false)
	for _, l := range layouts {
		b.Run(l.name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				s := dbtest.Open(b)
				b.StartTimer()
				for start := 0; start < len(data.batches); start += 500 {
					if err := l.write(s, data.batches[start:min(start+500, len(data.batches))]); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(data.bars), "bars")
		})
	}
}
