package indicator

import (
	"math"

	"mdqs/internal/market"
)

// MACDParams are the three periods of a MACD.
type MACDParams struct {
	Fast, Slow, Signal int
}

// DefaultMACDParams is the (12, 26, 9) every terminal defaults to.
func DefaultMACDParams() MACDParams { return MACDParams{Fast: 12, Slow: 26, Signal: 9} }

// Validate rejects periods out of range and a fast average that is not
// faster than the slow one, which would only flip the sign of DIF.
func (p MACDParams) Validate() error {
	for _, c := range [...]struct {
		name string
		n    int
	}{{"MACD fast", p.Fast}, {"MACD slow", p.Slow}, {"MACD signal", p.Signal}} {
		if err := checkPeriod(c.name, c.n); err != nil {
			return err
		}
	}
	if p.Fast >= p.Slow {
		return market.Errorf(market.KindInvalid, "indicator: MACD fast period %d must be below slow period %d", p.Fast, p.Slow)
	}
	return nil
}

// MACDSeries holds the three MACD lines; its slices are reused by MACD.
type MACDSeries struct {
	DIF  []float64 // EMA(fast) - EMA(slow)
	DEA  []float64 // EMA(DIF, signal)
	Hist []float64 // (DIF - DEA) * 2, the terminal's "MACD" bars
}

// MACD computes DIF, DEA and Hist of close into dst.
//
// With SeedFirst all three averages are the terminal's EMA and every point is
// defined from the first known close (DIF = DEA = Hist = 0 there), exactly as
// TongDaXin draws it. With SeedSMA the result is ta-lib's TA_MACD: both
// price averages are seeded at the index where the slow one first has `slow`
// values (the fast one with the mean of the `fast` closes ending there), DEA is
// seeded with the mean of its first `signal` DIF values, and all three lines
// are NaN before DEA starts. Hist is always 2*(DIF-DEA): ta-lib's
// outMACDHist is half of it.
func MACD(dst *MACDSeries, close []float64, p MACDParams, seed Seed) error {
	if dst == nil {
		return market.Errorf(market.KindInvalid, "indicator: MACD needs a destination")
	}
	if err := p.Validate(); err != nil {
		return err
	}
	n := len(close)
	// The fast and slow averages are built in DIF and Hist, which are
	// overwritten afterwards, so a reused MACDSeries allocates nothing.
	dif, slow := grow(dst.DIF, n), grow(dst.Hist, n)
	dea := grow(dst.DEA, n)
	switch seed {
	case SeedFirst:
		emaFirst(dif, close, p.Fast)
		emaFirst(slow, close, p.Slow)
	case SeedSMA:
		end := firstRunEnd(close, p.Slow)
		emaFrom(dif, close, p.Fast, end)
		emaFrom(slow, close, p.Slow, end)
	default:
		return market.Errorf(market.KindInvalid, "indicator: unknown EMA seed %d", seed)
	}
	for t := range dif {
		dif[t] = finite(dif[t] - slow[t])
	}
	hist := slow
	switch seed {
	case SeedFirst:
		emaFirst(dea, dif, p.Signal)
	case SeedSMA:
		end := firstRunEnd(dif, p.Signal)
		emaFrom(dea, dif, p.Signal, end)
		// ta-lib reports no DIF before its signal line exists.
		for t := 0; t < len(dif) && (end < 0 || t < end); t++ {
			dif[t] = math.NaN()
		}
	}
	for t := range hist {
		hist[t] = finite((dif[t] - dea[t]) * 2)
	}
	dst.DIF, dst.DEA, dst.Hist = dif, dea, hist
	return nil
}
