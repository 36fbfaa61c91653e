package indicator

import (
	"math/rand/v2"
	"testing"

	"mdqs/internal/market"
)

// 2,500 bars is about ten years of daily bars, the longest series a kline
// request evaluates.
const benchBars = 2500

func benchSeries(b *testing.B) ([]market.Bar, []float64) {
	b.Helper()
	bars := randomBars(rand.New(rand.NewPCG(11, 12)), benchBars)
	return bars, closesOf(bars)
}

func BenchmarkSMA20(b *testing.B) {
	_, closes := benchSeries(b)
	dst := make([]float64, len(closes))
	b.ReportAllocs()
	for b.Loop() {
		dst, _ = SMA(dst, closes, 20)
	}
}

func BenchmarkEMA12(b *testing.B) {
	_, closes := benchSeries(b)
	dst := make([]float64, len(closes))
	b.ReportAllocs()
	for b.Loop() {
		dst, _ = EMA(dst, closes, 12)
	}
}

func BenchmarkMACD(b *testing.B) {
	_, closes := benchSeries(b)
	var m MACDSeries
	b.ReportAllocs()
	for b.Loop() {
		_ = MACD(&m, closes, DefaultMACDParams(), SeedFirst)
	}
}

func BenchmarkMACDMarks(b *testing.B) {
	bars, _ := benchSeries(b)
	var m MACDBS
	p := DefaultMarkParams()
	b.ReportAllocs()
	for b.Loop() {
		_ = MACDMarks(&m, bars, p)
	}
}

func BenchmarkTrendStrength20(b *testing.B) {
	_, closes := benchSeries(b)
	dst := make([]float64, len(closes))
	b.ReportAllocs()
	for b.Loop() {
		dst, _ = TrendStrength(dst, closes, DefaultTrendPeriod)
	}
}

// Eval allocates its output columns: the caller keeps them for the response.
func BenchmarkEvalKlineList(b *testing.B) {
	bars, _ := benchSeries(b)
	specs, err := ParseList("ma5,ma20,ema12,ema26,macd,vma5")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		_, _ = Eval(bars, specs)
	}
}

func BenchmarkParseList(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_, _ = ParseList("ma5,ma20,ema12,ema26,macd,vma5")
	}
}

func BenchmarkMicroMomentum1m(b *testing.B) {
	bars := minuteBars(10, 1, handCloses, handVols)
	p := DefaultVolumeProfile()
	b.ReportAllocs()
	for b.Loop() {
		_, _ = MicroMomentum(bars, market.Min1, &p)
	}
}

// One op is the end-of-day chip job for the whole market: 5,300 stocks,
// 120 daily bars each, one reused calculator.
func BenchmarkChips5300x120(b *testing.B) {
	const stocks, days = 5300, 120
	r := rand.New(rand.NewPCG(13, 14))
	all := make([][]market.Bar, stocks)
	for i := range all {
		all[i] = randomBars(r, days)
	}
	var c ChipCalculator
	p := DefaultChipParams()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, bars := range all {
			_, _ = c.Compute(bars, p)
		}
	}
}
