package tdx

import (
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

var exhaustive = flag.Bool("decimal.all", false, "TestDecimal32IsStrconvs checks every float32 the arithmetic path takes, not a sample (minutes)")

// The strconv definition, written out as the doc comment says.
func strconvDecimal(f float32) float64 {
	d, err := strconv.ParseFloat(strconv.FormatFloat(float64(f), 'g', -1, 32), 64)
	if err != nil {
		return float64(f)
	}
	return d
}

func TestDecimal32(t *testing.T) {
	for _, tt := range []struct {
		f    float32
		want float64
	}{
		{84.78, 84.78},               // widened: 84.77999877929688
		{1.58, 1.58},                 // widened: 1.5800000429153442
		{2.20128, 2.20128},           // five decimals stay
		{10.166131, 10.166131},       // seven significant digits
		{119640.68, 119640.68},       // a fund's amount: 119640.6796875 widened
		{3831534848, 3831534800},     // sh600000's first amount: the float32 holds 8 digits
		{395905105920, 395905100000}, // sh204001's
		{256647, 256647},             // an exact integer stays
		{0.5, 0.5},
		{-3.8, -3.8},
		{0, 0},
		{1e-30, 1e-30}, // outside the fast range: strconv
		{3e38, 3e38},   // likewise
		{0x1p-13, 0.00012207031},
	} {
		if got := Decimal32(tt.f); got != tt.want {
			t.Errorf("Decimal32(%v) = %v, want %v", tt.f, got, tt.want)
		}
	}
	for _, f := range []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))} {
		if got := Decimal32(f); !(math.IsNaN(got) && math.IsNaN(float64(f)) || got == float64(f)) {
			t.Errorf("Decimal32(%v) = %v", f, got)
		}
	}
	if got := Decimal32(float32(math.Copysign(0, -1))); !math.Signbit(got) {
		t.Errorf("Decimal32(-0) = %v, want -0", got)
	}
}

// TestDecimal32IsStrconvs holds the arithmetic path to strconv's decimal,
// on every float32 of a stride through the whole range (and on all of
// them with -decimal.all), and reads each decimal back as the same float32.
func TestDecimal32IsStrconvs(t *testing.T) {
	step := uint32(9973)
	if *exhaustive {
		step = 1
	}
	checked, fast := 0, 0
	check := func(bits uint32) {
		f := math.Float32frombits(bits)
		if math.IsNaN(float64(f)) {
			return
		}
		_, ok := decimalFast(f)
		if *exhaustive && !ok {
			return // strconv's own path
		}
		checked++
		if ok {
			fast++
		}
		want := strconvDecimal(f)
		got := Decimal32(f)
		if math.Float64bits(got) != math.Float64bits(want) || float32(got) != f {
			t.Fatalf("Decimal32(%v) (bits %#08x) = %v, want %v", f, bits, got, want)
		}
	}
	for bits := uint64(0); bits < 1<<32; bits += uint64(step) {
		check(uint32(bits))
	}
	// The edges of the fast range and of every binade.
	for e := uint32(0); e < 255; e++ {
		for _, m := range []uint32{0, 1, 2, 0x7fffff, 0x7ffffe, 0x400000} {
			for _, sign := range []uint32{0, 1 << 31} {
				check(sign | e<<23 | m)
			}
		}
	}
	t.Logf("%d float32s checked, %d of them on the arithmetic path", checked, fast)
}

// BenchmarkDecimal32 widens the amounts of real .day files: plainly (the
// old decoding, float64(f)), through Decimal32, and by strconv.
func BenchmarkDecimal32(b *testing.B) {
	amounts := sampleAmounts(b)
	var sink float64
	b.Run("widen", func(b *testing.B) {
		for b.Loop() {
			for _, f := range amounts {
				sink += float64(f)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(amounts)), "ns/value")
	})
	b.Run("decimal", func(b *testing.B) {
		for b.Loop() {
			for _, f := range amounts {
				sink += Decimal32(f)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(amounts)), "ns/value")
	})
	b.Run("strconv", func(b *testing.B) {
		for b.Loop() {
			for _, f := range amounts {
				sink += strconvDecimal(f)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(amounts)), "ns/value")
	})
	_ = sink
}

// sampleAmounts are the amounts of every real .day file of testdata, as
// stored: indices' 1e11, stocks' 1e9, funds' 1e5 with fractions.
func sampleAmounts(tb testing.TB) []float32 {
	tb.Helper()
	var out []float32
	for _, p := range []string{"redmine-2023/vipdoc/sh/lday/sh600000.day", "redmine-2023/vipdoc/sz/lday/sz160105.day",
		"redmine-2023/vipdoc/sz/lday/sz399001.day", "redmine-2023/vipdoc/sh/lday/sh204001.day", "redmine-2023/vipdoc/sh/lday/sh900901.day"} {
		data, err := os.ReadFile(sample(filepath.FromSlash(p)))
		if err != nil {
			tb.Fatal(err)
		}
		for i := 0; i+BarRecordSize <= len(data); i += BarRecordSize {
			out = append(out, decodeDayRecord(data[i:]).Amount)
		}
	}
	return out
}

// divPow10 is exact division wherever decimalFast uses it: u below 2^44,
// 10^1 to 10^6; every multiple of each power, and its neighbours, near
// the top of the range and at random.
func TestDivPow10(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for j := 1; j <= 6; j++ {
		p := uint64(pow10[j])
		check := func(u uint64) {
			if got := divPow10(u, j); got != u/p {
				t.Fatalf("divPow10(%d, %d) = %d, want %d", u, j, got, u/p)
			}
		}
		for _, u := range []uint64{0, 1, p - 1, p, p + 1, 1<<44 - 1, 1<<44 - p, (1<<44 - 1) / p * p, (1<<44-1)/p*p - 1} {
			check(u)
		}
		for range 1_000_000 {
			u := r.Uint64N(1 << 44)
			check(u)
			check(u / p * p)
			if u >= p {
				check(u/p*p - 1)
			}
		}
	}
}
