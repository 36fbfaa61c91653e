package bridge_test

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"mdqs/db/dbtest"
	"mdqs/internal/bridge"
	"mdqs/internal/market"
	"mdqs/internal/tdx"
)

// BenchmarkImportVipdoc5000 is a full import of a generated 5,000-file
// vipdoc (250 daily bars per file, 1.25 M bars, the size of a real
// install's lday folders) into a fresh SQLite store, against the decode
// alone of the same files in the same run: the ratio is what storing
// costs on top of reading.
//
//	go test -run '^$' -bench ImportVipdoc5000 -benchtime 3x ./bridge
func BenchmarkImportVipdoc5000(b *testing.B) {
	const files, bars = 5000, 250
	dir := b.TempDir()
	if _, err := tdx.GenerateVipdoc(dir, files, bars, 1); err != nil {
		b.Fatal(err)
	}
	// After the generated data (it ends 2025-12-31), whatever the host's clock.
	clock := market.NewFixedClock(time.Date(2026, 1, 2, 16, 0, 0, 0, market.Shanghai()))
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))

	b.Run("decode", func(b *testing.B) {
		b.SetBytes(files * bars * tdx.BarRecordSize)
		records := 0
		for b.Loop() {
			term, err := tdx.Open(dir)
			if err != nil {
				b.Fatal(err)
			}
			term.Clock = clock
			for bf, err := range term.AllBars() {
				if err != nil {
					b.Fatal(err)
				}
				records += len(bf.Bars)
			}
		}
		b.ReportMetric(float64(records)/b.Elapsed().Seconds(), "bars/s")
	})
	b.Run("import", func(b *testing.B) {
		b.SetBytes(files * bars * tdx.BarRecordSize)
		written := 0
		for b.Loop() {
			b.StopTimer()
			store := dbtest.OpenAt(b, filepath.Join(b.TempDir(), "import.db"))
			svc, err := bridge.New(dir, store, market.DefaultCalendar(), clock, quiet)
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			rep, err := svc.Refresh(context.Background(), nil)
			if err != nil || rep.BarsWritten != files*bars || len(rep.Problems) != 0 {
				b.Fatalf("import: %v, %d bars written, problems %v", err, rep.BarsWritten, rep.Problems)
			}
			written += rep.BarsWritten
		}
		b.ReportMetric(float64(written)/b.Elapsed().Seconds(), "bars/s")
	})
}
