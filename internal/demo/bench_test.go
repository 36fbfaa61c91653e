package demo

import (
	"context"
	"testing"
	"time"

	"mdqs/internal/market"
)

// Run with: go test ./demo -run '^$' -bench . -benchtime 5x

func BenchmarkNew(b *testing.B) {
	for _, bc := range []struct {
		name string
		cfg  Config
	}{{"default_real_scale", DefaultConfig()}, {"small_600", smallConfig(1)}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := New(bc.cfg, market.NewFixedClock(at(20261120, 10, 30, 0))); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// New plus the first snapshot, the cost of starting the service.
func BenchmarkNewAndFirstSnapshot(b *testing.B) {
	for b.Loop() {
		m, err := New(DefaultConfig(), market.NewFixedClock(at(20261120, 10, 30, 0)))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := m.Sectors(context.Background(), market.Industry); err != nil {
			b.Fatal(err)
		}
	}
}

// One snapshot at real-market scale, each iteration a new minute of the
// same day (the day's walk is done once; the paths are not cached), then
// the same minute again (cached).
func BenchmarkSectors(b *testing.B) {
	for _, kind := range []market.SectorKind{market.Industry, market.Concept} {
		b.Run(string(kind)+"_new_minute", func(b *testing.B) {
			m, clk := newMarket(b, DefaultConfig(), at(20261120, 9, 31, 0))
			if _, err := m.Sectors(context.Background(), kind); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				clk.Advance(time.Minute)
				if clk.Now().After(at(20261120, 11, 29, 0)) {
					clk.Set(at(20261120, 9, 32, 0))
				}
				if _, err := m.Sectors(context.Background(), kind); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(string(kind)+"_cached", func(b *testing.B) {
			m, _ := newMarket(b, DefaultConfig(), at(20261120, 10, 30, 0))
			if _, err := m.Sectors(context.Background(), kind); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := m.Sectors(context.Background(), kind); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Ten years of daily bars of one stock: first call (a different stock each
// iteration) and from the cache.
func BenchmarkKlines10y(b *testing.B) {
	from, to := market.Day(20161121), market.Day(20261120)
	b.Run("first", func(b *testing.B) {
		m, _ := newMarket(b, DefaultConfig(), at(20261120, 16, 0, 0))
		i := 0
		for b.Loop() {
			for m.u.stocks[i].listed > from {
				i++
			}
			bars, err := m.Klines(context.Background(), m.u.stocks[i].code, market.Daily, from, to)
			if err != nil || len(bars) < 2400 {
				b.Fatalf("%d bars, %v", len(bars), err)
			}
			i++
		}
	})
	b.Run("cached", func(b *testing.B) {
		m, _ := newMarket(b, DefaultConfig(), at(20261120, 16, 0, 0))
		c := market.MustCode("600519.SH")
		if _, err := m.Klines(context.Background(), c, market.Daily, from, to); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := m.Klines(context.Background(), c, market.Daily, from, to); err != nil {
				b.Fatal(err)
			}
		}
	})
}
