package tdx

import (
	"bytes"
	"encoding/binary"
	"iter"
	"math"
	"os"
	"testing"
	"time"

	"mdqs/internal/market"
)

// benchDecode measures, in one run, decoding a real file's bytes (in
// memory) three ways:
//
//   - raw: each 32-byte record's eight little-endian words read into a
//     struct, nothing else: the baseline, what any decoder costs at least;
//   - bars: the records decoded into bars, checked and converted, in the
//     loop ReadBars runs (into a reused slice, as raw);
//   - stream: the same through the iterator (DayBars, MinuteBars).
//
// bars and stream report x-raw, their speed as a fraction of raw's.
func benchDecode(b *testing.B, path string, raw func([]byte) int, bars func([]byte, []market.Bar) ([]market.Bar, error),
	stream func(*bytes.Reader) (int, error)) {
	data, err := os.ReadFile(sample(path))
	if err != nil {
		b.Fatal(err)
	}
	want := len(data) / BarRecordSize
	var rawNs float64 // raw's ns/op, for the ratios
	run := func(b *testing.B, decode func() (int, error)) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		records := 0
		for b.Loop() {
			n, err := decode()
			if err != nil || n != want {
				b.Fatalf("%d records, %v", n, err)
			}
			records += n
		}
		b.ReportMetric(float64(records)/b.Elapsed().Seconds(), "records/s")
		ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
		if rawNs > 0 {
			b.ReportMetric(rawNs/ns, "x-raw")
		}
	}
	b.Run("raw", func(b *testing.B) {
		rawNs = 0
		run(b, func() (int, error) { return raw(data), nil })
		rawNs = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	})
	dst := make([]market.Bar, 0, want)
	b.Run("bars", func(b *testing.B) {
		run(b, func() (int, error) {
			var err error
			dst, err = bars(data, dst[:0])
			return len(dst), err
		})
	})
	var r bytes.Reader
	b.Run("stream", func(b *testing.B) {
		run(b, func() (int, error) {
			r.Reset(data)
			return stream(&r)
		})
	})
}

// rawDays is the baseline: the fields of each record into a struct.
var rawDays = make([]DayRecord, 1<<16)

func rawDayDecode(data []byte) int {
	n := len(data) / BarRecordSize
	out := rawDays[:n]
	for i := range out {
		out[i] = decodeDayRecord(data[i*BarRecordSize:])
	}
	return n
}

// rawMinute is a minute record's fields as stored (tdx.md §4).
type rawMinute struct {
	Date, Minute           uint16
	Open, High, Low, Close float32
	Amount                 float32
	Volume                 int32
	Reserved               uint32
}

var rawMinutes = make([]rawMinute, 1<<16)

func rawMinuteDecode(data []byte) int {
	le := binary.LittleEndian
	n := len(data) / BarRecordSize
	out := rawMinutes[:n]
	for i := range out {
		b := data[i*BarRecordSize : (i+1)*BarRecordSize]
		out[i] = rawMinute{
			Date:     le.Uint16(b[0:]),
			Minute:   le.Uint16(b[2:]),
			Open:     math.Float32frombits(le.Uint32(b[4:])),
			High:     math.Float32frombits(le.Uint32(b[8:])),
			Low:      math.Float32frombits(le.Uint32(b[12:])),
			Close:    math.Float32frombits(le.Uint32(b[16:])),
			Amount:   math.Float32frombits(le.Uint32(b[20:])),
			Volume:   int32(le.Uint32(b[24:])),
			Reserved: le.Uint32(b[28:]),
		}
	}
	return n
}

// noBad fails a benchmark's decode on a bad record: the samples have none.
func noBad(bad *error) func(int, *FormatError) {
	return func(_ int, e *FormatError) { *bad = e }
}

func countBars(seq iter.Seq2[market.Bar, error]) (int, error) {
	n := 0
	for _, err := range seq {
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// BenchmarkDecodeDay decodes a real index file (sh000001, 5,156 records):
//
//	go test -run '^$' -bench 'DecodeDay|DecodeLC1' -benchmem ./tdx
func BenchmarkDecodeDay(b *testing.B) {
	s := ScaleFor(market.MustCode("000001.SH"))
	benchDecode(b, "mootdx-2022/vipdoc/sh/lday/sh000001.day", rawDayDecode,
		func(data []byte, dst []market.Bar) ([]market.Bar, error) {
			var bad error
			dst = newDayDecoder(s, 0).decode(dst, data, 0, noBad(&bad))
			return dst, bad
		},
		func(r *bytes.Reader) (int, error) { return countBars(DayBars(r, s, 0)) })
}

// BenchmarkDecodeLC1 decodes a real STAR stock's 1-minute file (sh688001).
func BenchmarkDecodeLC1(b *testing.B) {
	s := ScaleFor(market.MustCode("688001.SH"))
	benchDecode(b, "mootdx-2022/vipdoc/sh/minline/sh688001.lc1", rawMinuteDecode,
		func(data []byte, dst []market.Bar) ([]market.Bar, error) {
			m, err := newMinuteDecoder(LayoutLC, s, 0)
			if err != nil {
				return dst, err
			}
			var bad error
			dst = m.decodeAll(dst, data, 0, noBad(&bad))
			return dst, bad
		},
		func(r *bytes.Reader) (int, error) { return countBars(MinuteBars(r, LayoutLC, s, 0)) })
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
