package indicator

import (
	"math"

	"mdqs/internal/market"
)

// DefaultTrendPeriod is the window of trend_strength: about a trading month
// of daily bars, or twenty minutes of minute bars.
const DefaultTrendPeriod = 20

// TrendStrength is the trend_strength series: for each bar, the signed
// coefficient of determination of a least-squares line through the last n
// closes, scaled to -100..100:
//
//	score = 100 * sign(slope) * R²,  R² = Sxy² / (Sxx * Syy)
//
// with x = 0..n-1 and Sxy, Sxx, Syy the centred sums of products. R² is the
// share of the closes' variance the straight line explains, so the score
// says how steadily price moved one way relative to its own noise, not how
// far: +100 is a perfectly straight rise, -100 a straight fall, near 0 a
// range. It is unchanged by adding to or scaling the prices. A window with
// all closes equal scores 0; a window holding a NaN, and the first n-1
// bars, are NaN. n must be 3..250 (two points always lie on a line).
func TrendStrength(dst, close []float64, n int) ([]float64, error) {
	if n < 3 || n > MaxPeriod {
		return dst[:0], market.Errorf(market.KindInvalid, "indicator: trend strength period %d out of range 3..%d", n, MaxPeriod)
	}
	out := grow(dst, len(close))
	xMean := float64(n-1) / 2
	sxx := float64(n) * float64(n*n-1) / 12
	for t := range close {
		if t < n-1 {
			out[t] = math.NaN()
			continue
		}
		out[t] = trendScore(close[t-n+1:t+1], xMean, sxx)
	}
	return out, nil
}

// trendScore works on each window afresh: n is small, and centred sums
// avoid the cancellation that running sums of squares of prices suffer.
func trendScore(win []float64, xMean, sxx float64) float64 {
	var sum float64
	lo, hi := win[0], win[0]
	for _, y := range win {
		if math.IsNaN(y) || math.IsInf(y, 0) {
			return math.NaN()
		}
		sum += y
		lo, hi = min(lo, y), max(hi, y)
	}
	if lo == hi {
		// Rounding would otherwise turn a flat window into an arbitrary
		// score out of residues of the last bit.
		return 0
	}
	yMean := sum / float64(len(win))
	var sxy, syy float64
	for i, y := range win {
		dy := y - yMean
		sxy += (float64(i) - xMean) * dy
		syy += dy * dy
	}
	if !(syy > 0) || math.IsInf(syy, 0) {
		return math.NaN()
	}
	r2 := sxy / sxx * (sxy / syy)
	r2 = min(max(r2, 0), 1)
	if sxy < 0 {
		return -100 * r2
	}
	return 100 * r2
}
