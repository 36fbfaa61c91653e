package tdx

import (
	"bytes"
	"os"
	"testing"
	"time"

	"mdqs/market"
)

func benchDecode(b *testing.B, path string, decode func(*bytes.Reader) (int, error)) {
	data, err := os.ReadFile(sample(path))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var r bytes.Reader
	records := 0
	for b.Loop() {
		r.Reset(data)
		n, err := decode(&r)
		if err != nil || n != len(data)/BarRecordSize {
			b.Fatalf("%d records, %v", n, err)
		}
		records += n
	}
	b.ReportMetric(float64(records)/b.Elapsed().Seconds(), "records/s")
}

func BenchmarkDecodeDay(b *testing.B) {
	s := ScaleFor(market.MustCode("000001.SH"))
	benchDecode(b, "mootdx-2022/vipdoc/sh/lday/sh000001.day", func(r *bytes.Reader) (int, error) {
		n := 0
		for _, err := range DayBars(r, s, 0) {
			if err != nil {
				return n, err
			}
			n++
		}
		return n, nil
	})
}

func BenchmarkDecodeLC1(b *testing.B) {
	s := ScaleFor(market.MustCode("688001.SH"))
	benchDecode(b, "mootdx-2022/vipdoc/sh/minline/sh688001.lc1", func(r *bytes.Reader) (int, error) {
		n := 0
		for _, err := range MinuteBars(r, LayoutLC, s, 0) {
			if err != nil {
				return n, err
			}
			n++
		}
		return n, nil
	})
}

// BenchmarkReadBarsDay is the file-level path an importer takes: open,
// stat, decode into a slice sized from the file.
func BenchmarkReadBarsDay(b *testing.B) {
	benchReadBars(b, sample("mootdx-2022/vipdoc/sh/lday/sh000001.day"))
}

// BenchmarkReadBarsBond adds the per-file divisor decision of a bond.
func BenchmarkReadBarsBond(b *testing.B) {
	benchReadBars(b, sample("redmine-2023/vipdoc/sh/lday/sh113011.day"))
}

func benchReadBars(b *testing.B, path string) {
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ReportAllocs()
	records := 0
	for b.Loop() {
		bf, err := ReadBars(path, 0)
		if err != nil {
			b.Fatal(err)
		}
		records += len(bf.Bars)
	}
	b.ReportMetric(float64(records)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkScanVipdoc5000 scans and decodes a generated 5,000-file vipdoc
// (250 daily bars per file, 40 MB): the cost of a full import pass before
// any database work. Generation is outside the timed loop.
func BenchmarkScanVipdoc5000(b *testing.B) {
	const files, bars = 5000, 250
	dir := b.TempDir()
	if _, err := GenerateVipdoc(dir, files, bars, 1); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(files * bars * BarRecordSize)
	b.ReportAllocs()
	records := 0
	for b.Loop() {
		term, err := Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		term.Clock = market.NewFixedClock(time.Date(2026, 1, 2, 9, 0, 0, 0, market.Shanghai())) // after the generated data, whatever the host clock says
		n := 0
		for bf, err := range term.AllBars() {
			if err != nil {
				b.Fatal(err)
			}
			records += len(bf.Bars)
			n++
		}
		if n != files {
			b.Fatalf("%d files", n)
		}
	}
	b.ReportMetric(float64(records)/b.Elapsed().Seconds(), "records/s")
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/scan")
}
