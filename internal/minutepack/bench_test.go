package minutepack

import (
	"testing"

	"mdqs/internal/market"
)

// The benchmarks encode and decode one stock-day per op (ns/op is ns a
// day) of the .lc1 file and of demo days, packed, deflated and as the
// baselines, and report the bytes a bar each takes:
//
//	go test -run '^$' -bench . ./internal/minutepack
var benchSources = []struct {
	name string
	days func(testing.TB) [][]market.Bar
}{
	{"lc1", lc1Days},
	{"demo", func(t testing.TB) [][]market.Bar { return demoDays(t, market.Min1, 50, 6) }},
}

var benchEncoders = []struct {
	name   string
	encode func([]market.Bar) []byte
}{
	{"packed", func(bars []market.Bar) []byte { b, _ := Encode(bars, Options{}); return b }},
	{"deflate", func(bars []market.Bar) []byte { b, _ := Encode(bars, Options{Deflate: true}); return b }},
	{"baseline=plain-varints", plainVarints},
	{"baseline=fixed-rows", fixedRows},
}

func BenchmarkEncode(b *testing.B) {
	for _, src := range benchSources {
		days := src.days(b)
		for _, enc := range benchEncoders {
			b.Run(src.name+"/"+enc.name, func(b *testing.B) {
				size, bars := 0, 0
				for _, d := range days {
					size += len(enc.encode(d))
					bars += len(d)
				}
				b.ResetTimer()
				for i := 0; b.Loop(); i++ {
					enc.encode(days[i%len(days)])
				}
				b.ReportMetric(float64(size)/float64(bars), "bytes/bar")
			})
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	for _, src := range benchSources {
		days := src.days(b)
		for _, opts := range allOptions {
			name := "packed"
			if opts.Deflate {
				name = "deflate"
			}
			recs := make([][]byte, len(days))
			for i, d := range days {
				recs[i] = checkRoundTrip(b, d, opts)
			}
			b.Run(src.name+"/"+name, func(b *testing.B) {
				for i := 0; b.Loop(); i++ {
					if _, err := Decode(recs[i%len(recs)]); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		rows := make([][]byte, len(days))
		for i, d := range days {
			rows[i] = fixedRows(d)
		}
		b.Run(src.name+"/baseline=fixed-rows", func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				readFixedRows(rows[i%len(rows)], days[0][0].Day)
			}
		})
	}
}

// One bar of a stock-day, as a cross-section of one minute reads it,
// against decoding the whole day for it, in the same run.
func BenchmarkBarAt(b *testing.B) {
	for _, src := range benchSources {
		days := src.days(b)
		recs := make([][]byte, len(days))
		for i, d := range days {
			recs[i] = checkRoundTrip(b, d, Options{Deflate: true})
		}
		at := func(i int) int64 { d := days[i%len(days)]; return d[len(d)/2].TS }
		b.Run(src.name+"/bar_at", func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				if _, _, ok, err := BarAt(recs[i%len(recs)], at(i)); !ok || err != nil {
					b.Fatal(ok, err)
				}
			}
		})
		b.Run(src.name+"/baseline=decode", func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				bars, err := Decode(recs[i%len(recs)])
				if err != nil || bars[len(bars)/2].TS != at(i) {
					b.Fatal(err)
				}
			}
		})
	}
}
