package indicator

import (
	"math"
	"math/rand/v2"
	"testing"

	"mdqs/internal/market"
)

// randomBars is a seeded random walk with realistic A-share magnitudes:
// prices around 10 yuan in cents, volumes up to millions of shares,
// turnover up to 20%, with occasional zero-volume (suspended) days.
func randomBars(r *rand.Rand, n int) []market.Bar {
	bars := make([]market.Bar, n)
	price := 5 + 20*r.Float64()
	for i := range bars {
		price = math.Max(0.5, price*(1+0.04*(r.Float64()-0.5)))
		c := math.Round(price*100) / 100
		lo := math.Round(c*(1-0.03*r.Float64())*100) / 100
		hi := math.Round(c*(1+0.03*r.Float64())*100) / 100
		vol := int64(r.IntN(5_000_000))
		if r.IntN(50) == 0 {
			vol = 0
		}
		d := day1.AddDays(i)
		bars[i] = market.Bar{Day: d, TS: d.At(15, 0, 0).Unix(), Open: c, High: hi, Low: lo, Close: c,
			Volume: vol, Amount: float64(vol) * (lo + hi + c) / 3, TurnoverRate: 20 * r.Float64(), LargeOrderNet: nan}
		if vol == 0 {
			bars[i].TurnoverRate = 0
		}
	}
	return bars
}

func closesOf(bars []market.Bar) []float64 {
	out := make([]float64, len(bars))
	for i, b := range bars {
		out[i] = b.Close
	}
	return out
}

// A flat price must give MACD exactly 0, or rounding noise around 0 would
// read as crosses (and B/S marks) on a stock that does not move.
func TestPropertyFlatMACDIsZero(t *testing.T) {
	src := make([]float64, 60)
	for c := 1; c <= 30000; c += 7 {
		for i := range src {
			src[i] = float64(c) / 100
		}
		var m MACDSeries
		_ = MACD(&m, src, DefaultMACDParams(), SeedFirst)
		for i := range src {
			if m.DIF[i] != 0 || m.DEA[i] != 0 || m.Hist[i] != 0 {
				t.Fatalf("MACD(constant %v)[%d] = %v %v %v, want exactly 0", src[0], i, m.DIF[i], m.DEA[i], m.Hist[i])
			}
		}
	}
}

func TestPropertyConstantSeries(t *testing.T) {
	for _, c := range []float64{0, 0.01, 10.07, 1999.99} {
		src := make([]float64, 300)
		for i := range src {
			src[i] = c
		}
		for _, n := range []int{1, 5, 26, 250} {
			sma, _ := SMA(nil, src, n)
			ema, _ := EMA(nil, src, n)
			tal, _ := EMASeeded(nil, src, n, SeedSMA)
			for i := n - 1; i < len(src); i++ {
				if !same(sma[i], c, 1e-9*max(1, c)) || !same(ema[i], c, 1e-9*max(1, c)) || !same(tal[i], c, 1e-9*max(1, c)) {
					t.Fatalf("n=%d at %d on constant %v: SMA %v EMA %v EMA(SMA seed) %v, want %v", n, i, c, sma[i], ema[i], tal[i], c)
				}
			}
		}
	}
}

// SMA against the definition, summed afresh for every window.
func TestPropertySMAMatchesDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	src := closesOf(randomBars(r, 2500))
	for _, n := range []int{1, 2, 5, 20, 250} {
		got, _ := SMA(nil, src, n)
		for i := n - 1; i < len(src); i++ {
			var s float64
			for _, v := range src[i-n+1 : i+1] {
				s += v
			}
			if !same(got[i], s/float64(n), 1e-9) {
				t.Fatalf("SMA(n=%d)[%d] = %v, want %v", n, i, got[i], s/float64(n))
			}
		}
	}
}

// After a step from 10 to 11 an EMA approaches 11 monotonically with the
// remaining gap shrinking by (n-1)/(n+1) per bar, and the two seeds converge
// at the same rate.
func TestPropertyEMAConverges(t *testing.T) {
	src := make([]float64, 400)
	for i := range src {
		src[i] = 10
		if i >= 100 {
			src[i] = 11
		}
	}
	for _, n := range []int{2, 12, 26} {
		ema, _ := EMA(nil, src, n)
		decay := float64(n-1) / float64(n+1)
		for i := 100; i < len(src); i++ {
			gap := 11 - ema[i]
			want := math.Pow(decay, float64(i-99))
			if !same(gap, want, 1e-9) {
				t.Fatalf("EMA(n=%d)[%d] gap to 11 = %v, want %v", n, i, gap, want)
			}
		}
		// Seeds differ on a ramp; the difference decays geometrically.
		ramp := make([]float64, 200)
		for i := range ramp {
			ramp[i] = 10 + float64(i)*0.01
		}
		a, _ := EMA(nil, ramp, n)
		b, _ := EMASeeded(nil, ramp, n, SeedSMA)
		d0 := a[n-1] - b[n-1]
		for k := 0; n-1+k < len(ramp); k++ {
			want := d0 * math.Pow(decay, float64(k))
			if got := a[n-1+k] - b[n-1+k]; !same(got, want, 1e-9) {
				t.Fatalf("EMA(n=%d) seed difference after %d bars = %v, want %v", n, k, got, want)
			}
		}
	}
}

func TestPropertyMACDHistogram(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	src := closesOf(randomBars(r, 500))
	for _, seed := range []Seed{SeedFirst, SeedSMA} {
		var m MACDSeries
		if err := MACD(&m, src, DefaultMACDParams(), seed); err != nil {
			t.Fatal(err)
		}
		for i := range src {
			if !same(m.Hist[i], 2*(m.DIF[i]-m.DEA[i]), 0) {
				t.Fatalf("MACD(seed %v).Hist[%d] = %v, want 2*(DIF-DEA) = %v", seed, i, m.Hist[i], 2*(m.DIF[i]-m.DEA[i]))
			}
		}
	}
}

// Hostile inputs: zeros, tiny and huge numbers, NaN, Inf, negative volume.
// Nothing may panic, and no output may be ±Inf.
func TestPropertyNeverInf(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	specials := []float64{0, 1e-300, 1e300, math.MaxFloat64, -1e300, nan, math.Inf(1), math.Inf(-1), 10}
	vols := []int64{0, 1, math.MaxInt64, -5, 1000}
	for round := 0; round < 200; round++ {
		bars := randomBars(r, 60)
		for i := range bars {
			if r.IntN(3) == 0 {
				bars[i].Close = specials[r.IntN(len(specials))]
				bars[i].Low = specials[r.IntN(len(specials))]
				bars[i].High = specials[r.IntN(len(specials))]
				bars[i].TurnoverRate = specials[r.IntN(len(specials))]
				bars[i].Amount = specials[r.IntN(len(specials))]
			}
			if r.IntN(3) == 0 {
				bars[i].Volume = vols[r.IntN(len(vols))]
			}
		}
		closes := closesOf(bars)
		for i, c := range closes {
			if math.IsInf(c, 0) {
				closes[i] = nan // price Inf is not a price; the maths assumes finite or NaN
			}
		}
		for _, n := range []int{1, 5, 20} {
			s, _ := SMA(nil, closes, n)
			noInf(t, "SMA", s)
			e, _ := EMA(nil, closes, n)
			noInf(t, "EMA", e)
		}
		tr, _ := TrendStrength(nil, closes, 5)
		noInf(t, "TrendStrength", tr)
		for i, v := range tr {
			if v < -100 || v > 100 {
				t.Fatalf("TrendStrength[%d] = %v, want within -100..100", i, v)
			}
		}
		var bs MACDBS
		if err := MACDMarks(&bs, bars, DefaultMarkParams()); err != nil {
			t.Fatal(err)
		}
		noInf(t, "Heat", bs.Heat)
		noInf(t, "VolTrend", bs.VolTrend)
		for _, freq := range []market.Freq{market.Daily, market.Min1, market.Min5} {
			m, err := MicroMomentum(bars, freq, nil)
			if err != nil {
				t.Fatal(err)
			}
			noInf(t, "MicroMomentum", []float64{m.MicroVolRatio, m.VolAcc, m.TimeAdjustedVolRatio, m.PriceSpeedRatio})
		}
		c, err := Chips(bars, ChipParams{Window: 60})
		if err == nil {
			noInf(t, "Chips", []float64{c.AvgCost, c.ProfitRatio, c.Cost70Low, c.Cost70High, c.Concentration70,
				c.Cost90Low, c.Cost90High, c.Concentration90, c.PeakPrice, c.BucketWidth})
		}
	}
}

func TestPropertyChips(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var calc ChipCalculator
	for round := 0; round < 300; round++ {
		bars := randomBars(r, 1+r.IntN(200))
		p := ChipParams{Window: 1 + r.IntN(150), MaxBuckets: 10 + r.IntN(500)}
		m, err := calc.Compute(bars, p)
		if err != nil {
			continue // a short all-suspended window
		}
		win := bars[max(0, len(bars)-p.Window):]
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, b := range win {
			if b.TurnoverRate > 0 {
				lo, hi = min(lo, b.Low), max(hi, b.High)
			}
		}
		ok := m.ProfitRatio >= 0 && m.ProfitRatio <= 1 &&
			lo <= m.Cost90Low && m.Cost90Low <= m.Cost70Low && m.Cost70Low <= m.Cost70High &&
			m.Cost70High <= m.Cost90High && m.Cost90High <= hi &&
			m.Concentration70 >= 0 && m.Concentration70 <= m.Concentration90 && m.Concentration90 < 1 &&
			m.AvgCost >= lo-m.BucketWidth && m.AvgCost <= hi+m.BucketWidth &&
			m.PeakPrice >= lo-m.BucketWidth && m.PeakPrice <= hi+m.BucketWidth &&
			(hi-lo)/m.BucketWidth <= float64(p.MaxBuckets)+1e-6 && m.Days >= 1 && m.Days <= len(win)
		if !ok {
			t.Fatalf("Chips(%d bars, %+v) = %+v, violates ordering/range (chips within [%v, %v])", len(bars), p, m, lo, hi)
		}
		// Profit ratio grows with the price it is measured at.
		last := &bars[len(bars)-1]
		c0 := last.Close
		last.Close = hi + 1
		top, _ := calc.Compute(bars, p)
		last.Close = lo - 0.01
		bottom, _ := calc.Compute(bars, p)
		last.Close = c0
		if !same(top.ProfitRatio, 1, 1e-9) || !same(bottom.ProfitRatio, 0, 1e-9) {
			t.Fatalf("Chips profit ratio above all chips = %v, below all = %v, want 1 and 0", top.ProfitRatio, bottom.ProfitRatio)
		}
	}
}

func TestPropertyMomentumScale(t *testing.T) {
	// Volume ratios do not depend on the unit: lots (x100) or shares.
	r := rand.New(rand.NewPCG(9, 10))
	for round := 0; round < 100; round++ {
		bars := minuteBars(14, 50, handCloses, []int64{
			int64(1 + r.IntN(1e5)), int64(1 + r.IntN(1e5)), int64(1 + r.IntN(1e5)),
			int64(1 + r.IntN(1e5)), int64(1 + r.IntN(1e5)), int64(1 + r.IntN(1e5))})
		a, _ := MicroMomentum(bars, market.Min1, nil)
		for i := range bars {
			bars[i].Volume *= 100
		}
		b, _ := MicroMomentum(bars, market.Min1, nil)
		checkMomentum(t, "MicroMomentum(volume x100)", b, a, 1e-9)
	}
}
