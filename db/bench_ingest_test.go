package db_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/market"
)

// BenchmarkIngestStores is the bar ingest rate of both stores in one run:
// each op is one IngestBars call (one transaction) of 20 stocks' ten years
// of daily bars, 48,600 rows, the way an import or a backfill commits.
// "new" stores bars no store holds (COPY straight into bars on
// PostgreSQL); "again" offers the same rows once more (nothing changes:
// the upsert's no-op path, staged on PostgreSQL).
//
//	MDQS_TEST_POSTGRES=postgres://... go test -run '^$' -bench IngestStores ./db
func BenchmarkIngestStores(b *testing.B) {
	targets := [][2]string{{"sqlite", filepath.Join(b.TempDir(), "mdqs.db")}}
	if pg := os.Getenv(dbtest.PostgresEnv); pg != "" {
		targets = append(targets, [2]string{"postgres", dbtest.NewSchema(b, pg)})
	} else {
		b.Logf("%s not set: SQLite only (%s)", dbtest.PostgresEnv, dbtest.HowToPostgres)
	}
	const stocks, days = 20, 2430
	for _, tg := range targets {
		s := dbtest.OpenAt(b, tg[1])
		next := 0
		batches := func() []db.BarBatch {
			out := make([]db.BarBatch, stocks)
			for i := range out {
				next++
				out[i] = db.BarBatch{Code: market.MustCode(fmt.Sprintf("%06d.SZ", next)), Freq: market.Daily, Source: "bench",
					Bars: benchBars(days, next)}
			}
			return out
		}
		var last []db.BarBatch
		b.Run(tg[0]+"/new", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				last = batches()
				b.StartTimer()
				c, err := s.IngestBars(context.Background(), last)
				if err != nil || c.Written != stocks*days {
					b.Fatalf("%+v %v", c, err)
				}
			}
			b.ReportMetric(float64(b.N*stocks*days)/b.Elapsed().Seconds(), "rows/s")
		})
		b.Run(tg[0]+"/again", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				c, err := s.IngestBars(context.Background(), last)
				if err != nil || c.Written != 0 {
					b.Fatalf("%+v %v", c, err)
				}
			}
			b.ReportMetric(float64(b.N*stocks*days)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// benchBars is n daily bars of prices in whole cents, varied by seed.
func benchBars(n, seed int) []market.Bar {
	out := make([]market.Bar, n)
	d := market.Day(20150105)
	for i := range out {
		c := float64(1000+(i*7+seed)%500) / 100
		out[i] = market.Bar{Day: d, TS: d.At(15, 0, 0).Unix(), Open: c, High: c + 0.1, Low: c - 0.1, Close: c + 0.05,
			Volume: int64(10000 + i), Amount: c * float64(10000+i), TurnoverRate: 1.5, LargeOrderNet: math.NaN()}
		d = d.AddDays(1)
	}
	return out
}
