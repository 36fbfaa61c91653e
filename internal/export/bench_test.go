package export

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/demo"
	"mdqs/internal/market"
)

var benchDB = flag.String("export.db", "", "a store holding a year of the whole market's daily bars (mdqs backfill -codes all -freq D -from 2025-11-24 -db FILE); empty: build one (about 30 s)")

// The year the benchmark exports: the trading days of 2025-11-24 to
// 2026-11-24, 243 days of 5,300 stocks.
const benchFrom, benchTo = market.Day(20251124), market.Day(20261124)

// BenchmarkExportYear exports a year of the whole market's daily bars
// (1.28 M rows) from the store to CSV (the baseline) and to Parquet in the
// same run: the time, the file's size, rows/s, the CSV's size over the
// Parquet's, and the peak of the live heap while it ran (the heap after
// each collection, sampled every 2 ms), which must not grow with the rows
// (a slice of the year would be some 200 MB; a tenth of the codes gives
// about the same peak).
//
//	go test -run '^$' -bench ExportYear -benchtime 1x -count 3 ./internal/export
//	go test -run '^$' -bench ExportYear -benchtime 1x -count 3 ./internal/export -args -export.db /tmp/year.db
func BenchmarkExportYear(b *testing.B) {
	ctx := context.Background()
	store, codes := benchStore(b)
	clock := market.NewFixedClock(time.Date(2026, 11, 25, 9, 0, 0, 0, market.Shanghai()))
	d := BarDeps{Store: store, Calendar: market.DefaultCalendar(), Clock: clock}
	dir := b.TempDir()
	sizes := map[Format]int64{}
	for _, format := range []Format{CSV, Parquet} {
		b.Run(string(format), func(b *testing.B) {
			out := filepath.Join(dir, "year."+string(format))
			var sum Summary
			var peak int64
			for b.Loop() {
				stop := sampleHeap(&peak)
				var err error
				sum, err = ExportBars(ctx, d, BarRequest{Codes: codes, Freq: market.Daily, From: benchFrom, To: benchTo, Format: format, Out: out, StoreOnly: true})
				stop()
				if err != nil {
					b.Fatal(err)
				}
			}
			sizes[format] = sum.Bytes
			b.ReportMetric(float64(sum.Rows), "rows")
			b.ReportMetric(float64(sum.Bytes)/1e6, "MB")
			b.ReportMetric(float64(sum.Rows)/(b.Elapsed().Seconds()/float64(b.N)), "rows/s")
			b.ReportMetric(float64(peak)/1e6, "MB-peak-heap")
			if sizes[CSV] > 0 && format == Parquet {
				b.ReportMetric(float64(sizes[CSV])/float64(sum.Bytes), "csv/parquet")
			}
		})
	}
}

// sampleHeap records the peak of the live heap (what the last collection
// kept: garbage not yet collected would measure the collector's pacing,
// not the export) until stop is called.
func sampleHeap(peak *int64) (stop func()) {
	runtime.GC()
	var max atomic.Int64
	done := make(chan struct{})
	finished := make(chan struct{})
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	go func() {
		defer close(finished)
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			if v := int64(sample[0].Value.Uint64()); v > max.Load() {
				max.Store(v)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() {
		close(done)
		<-finished
		if m := max.Load(); m > *peak {
			*peak = m
		}
	}
}

// benchStore is the store the benchmark reads: -export.db, or a year of a
// 5,300-stock demo market written into a fresh one.
func benchStore(b *testing.B) (*db.Store, []market.Code) {
	b.Helper()
	ctx := context.Background()
	if *benchDB != "" {
		if _, err := os.Stat(*benchDB); err != nil {
			b.Fatal(err)
		}
		s, err := db.Open(ctx, *benchDB, db.Options{SQLiteSchema: dbtest.SQLiteSchema(b), Readers: 2})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		cov, err := s.Covered(ctx, market.Daily)
		if err != nil {
			b.Fatal(err)
		}
		var codes []market.Code
		for _, c := range cov {
			codes = append(codes, c.Code)
		}
		return s, codes
	}
	clock := market.NewFixedClock(time.Date(2026, 11, 25, 9, 0, 0, 0, market.Shanghai()))
	dm, err := demo.New(demo.DefaultConfig(), clock)
	if err != nil {
		b.Fatal(err)
	}
	s := dbtest.OpenAt(b, filepath.Join(b.TempDir(), "year.db"))
	var codes []market.Code
	var batch []db.BarBatch
	for _, st := range dm.Stocks() {
		bars, err := dm.Klines(ctx, st.Code, market.Daily, benchFrom, benchTo)
		if err != nil {
			b.Fatal(err)
		}
		codes = append(codes, st.Code)
		batch = append(batch, db.BarBatch{Code: st.Code, Freq: market.Daily, Source: "demo", Bars: bars, Cover: &db.Span{First: benchFrom, Last: benchTo}})
		if len(batch) == 200 {
			if _, err := s.IngestBars(ctx, batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	if _, err := s.IngestBars(ctx, batch); err != nil {
		b.Fatal(err)
	}
	return s, codes
}
