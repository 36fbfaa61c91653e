package indicator

import (
	"math"

	"mdqs/internal/market"
)

// Mark is the trading mark of one bar of the macd_bs indicator.
type Mark uint8

const (
	NoMark Mark = 0
	Buy    Mark = 'B'
	Sell   Mark = 'S'
	Add    Mark = 'A'
)

// String is "B", "S", "A", or "" for no mark (rendered as null by the API).
func (m Mark) String() string {
	switch m {
	case Buy, Sell, Add:
		return string(rune(m))
	}
	return ""
}

// MarkParams configure MACDMarks. The rules themselves are in the package
// documentation.
type MarkParams struct {
	MACD             MACDParams
	VolFast, VolSlow int     // volume averages compared by the volume trend
	HeatPeriod       int     // volume average the heat divides by
	HeatThreshold    float64 // heat at or above this is "hot"
}

// DefaultMarkParams: MACD(12,26,9), volume trend MA5/MA10, heat against
// MA20 of volume, hot at 1.2 (a fifth above the 20-bar average volume).
func DefaultMarkParams() MarkParams {
	return MarkParams{MACD: DefaultMACDParams(), VolFast: 5, VolSlow: 10, HeatPeriod: 20, HeatThreshold: 1.2}
}

// Validate rejects periods out of range, a volume trend whose fast average is
// not faster than its slow one, and a threshold that is not a positive
// finite number.
func (p MarkParams) Validate() error {
	if err := p.MACD.Validate(); err != nil {
		return err
	}
	if err := checkPeriod("volume trend fast", p.VolFast); err != nil {
		return err
	}
	if err := checkPeriod("volume trend slow", p.VolSlow); err != nil {
		return err
	}
	if p.VolFast >= p.VolSlow {
		return market.Errorf(market.KindInvalid, "indicator: volume trend fast period %d must be below slow period %d", p.VolFast, p.VolSlow)
	}
	if err := checkPeriod("heat", p.HeatPeriod); err != nil {
		return err
	}
	if !(p.HeatThreshold > 0) || math.IsInf(p.HeatThreshold, 0) {
		return market.Errorf(market.KindInvalid, "indicator: heat threshold %v must be a positive number", p.HeatThreshold)
	}
	return nil
}

// Warmup is the first index at which a mark can be set: the MACD lookback
// slow+signal-2 (where ta-lib's MACD starts; before it the terminal-seeded
// lines are mostly seed), and no earlier than the volume averages exist or
// than two earlier histogram values exist.
func (p MarkParams) Warmup() int {
	return max(p.MACD.Slow+p.MACD.Signal-2, p.VolSlow-1, p.HeatPeriod-1, 2)
}

// MACDBS is the macd_bs indicator of a bar series. Its slices, and the
// scratch space it keeps, are reused by MACDMarks.
type MACDBS struct {
	MACDSeries
	VolTrend []float64 // VMA(VolFast)/VMA(VolSlow); > 1 means volume rising
	Heat     []float64 // Volume / VMA(HeatPeriod)
	Marks    []Mark

	vol, fast, slow []float64
}

// MACDMarks computes MACD (terminal convention), volume trend, heat and
// marks for bars in time order. Marks depend on the whole series through
// the position state, so a caller serving a date range should always start
// from the same earlier bar (a fixed lookback) for stable answers.
func MACDMarks(dst *MACDBS, bars []market.Bar, p MarkParams) error {
	if dst == nil {
		return market.Errorf(market.KindInvalid, "indicator: MACDMarks needs a destination")
	}
	if err := p.Validate(); err != nil {
		return err
	}
	n := len(bars)
	closes := grow(dst.vol, n)
	for t, b := range bars {
		closes[t] = b.Close
	}
	if err := MACD(&dst.MACDSeries, closes, p.MACD, SeedFirst); err != nil {
		return err
	}
	vol := closes
	for t, b := range bars {
		vol[t] = volumeOf(b)
	}
	var err error
	if dst.fast, err = SMA(dst.fast, vol, p.VolFast); err != nil {
		return err
	}
	if dst.slow, err = SMA(dst.slow, vol, p.VolSlow); err != nil {
		return err
	}
	dst.VolTrend = grow(dst.VolTrend, n)
	for t := range vol {
		dst.VolTrend[t] = ratio(dst.fast[t], dst.slow[t])
	}
	if dst.slow, err = SMA(dst.slow, vol, p.HeatPeriod); err != nil {
		return err
	}
	dst.Heat = grow(dst.Heat, n)
	for t := range vol {
		dst.Heat[t] = ratio(vol[t], dst.slow[t])
	}
	dst.vol = vol
	dst.Marks = grow(dst.Marks, n)
	markSeries(dst.Marks, dst.Hist, dst.VolTrend, dst.Heat, p.Warmup(), p.HeatThreshold)
	return nil
}

// volumeOf is a bar's volume as a float; a negative volume is a feed error
// and counts as unknown.
func volumeOf(b market.Bar) float64 {
	if b.Volume < 0 {
		return math.NaN()
	}
	return float64(b.Volume)
}

// ratio is a/b, NaN unless both are known, b is positive and the quotient
// is finite, so that no output is ever Inf.
func ratio(a, b float64) float64 {
	if !(b > 0) {
		return math.NaN()
	}
	r := a / b
	if math.IsInf(r, 0) || math.IsInf(b, 0) {
		return math.NaN()
	}
	return r
}

// markSeries is the B/S/A state machine over precomputed inputs; it is
// separate so that the rules can be tested on hand-written inputs.
func markSeries(marks []Mark, hist, volTrend, heat []float64, warm int, threshold float64) {
	long := false
	for t := range marks {
		marks[t] = NoMark
		if t < warm || t < 2 {
			continue
		}
		h2, h1, h0 := hist[t-2], hist[t-1], hist[t]
		hot := heat[t] >= threshold
		if !long {
			if h1 <= 0 && h0 > 0 && volTrend[t] > 1 && hot {
				marks[t], long = Buy, true
			}
			continue
		}
		switch {
		case h0 < 0:
			marks[t], long = Sell, false
		case h0 > 0 && h1 < h2 && h0 > h1 && hot:
			marks[t] = Add
		}
	}
}
