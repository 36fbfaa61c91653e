package db_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/demo"
	"mdqs/internal/market"
)

// Bytes on disk a 1-minute bar takes (issue 29's goal: at most 8), in the
// packed store against today's rows of bars, in the same run: 100 demo
// stocks' 10 days, the file measured with SQLite's dbstat (table and
// indexes).
func BenchmarkMinuteBytesOnDisk(b *testing.B) {
	ctx := context.Background()
	clock := market.NewFixedClock(time.Date(2026, 11, 27, 16, 0, 0, 0, market.Shanghai()))
	dm, err := demo.New(demo.Config{Seed: 7, Stocks: 100, Industries: 10, Concepts: 10}, clock)
	if err != nil {
		b.Fatal(err)
	}
	var days []db.MinuteDay
	var batches []db.BarBatch
	n := 0
	for _, s := range dm.Stocks() {
		bars, err := dm.Klines(ctx, s.Code, market.Min1, 20261116, 20261127)
		if err != nil {
			b.Fatal(err)
		}
		n += len(bars)
		batches = append(batches, db.BarBatch{Code: s.Code, Freq: market.Min1, Source: "demo", Bars: bars})
		for i := 0; i < len(bars); {
			j := i
			for j < len(bars) && bars[j].Day == bars[i].Day {
				j++
			}
			days = append(days, db.MinuteDay{Code: s.Code, Freq: market.Min1, Day: bars[i].Day, Bars: bars[i:j], Source: "demo"})
			i = j
		}
	}
	for _, c := range []struct {
		name   string
		tables []string
		write  func(*db.Store) error
	}{
		{"rows_of_bars", []string{"bars"}, func(s *db.Store) error { _, err := s.IngestBars(ctx, batches); return err }},
		{"packed_minute_days", []string{"minute_days", "sqlite_autoindex_minute_days_1"}, func(s *db.Store) error { return s.PutMinuteDays(ctx, days) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				s := dbtest.OpenAt(b, filepath.Join(b.TempDir(), "m.db"))
				if err := c.write(s); err != nil {
					b.Fatal(err)
				}
				size, err := s.TablesSize(ctx, c.tables...)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(size)/float64(n), "bytes/bar")
			}
		})
	}
}
