package minutepack

import "math"

// maxMag bounds every integer a record derives from a float: below 2^53 a
// float64 holds each integer exactly, and deltas of two such integers
// cannot overflow an int64.
const maxMag = 1 << 53

// gcdOf is the greatest common divisor of the magnitudes of vs, at least
// 1: a column stored divided by it costs fewer bytes (volumes in lots of
// 100 shares, prices in cents). Above MaxInt64 (only -2^63 alone) it is 1.
func gcdOf(vs []int64) int64 {
	var g uint64
	for _, v := range vs {
		m := uint64(v)
		if v < 0 {
			m = -m
		}
		for m != 0 {
			g, m = m, g%m
		}
		if g == 1 {
			return 1
		}
	}
	if g == 0 || g > math.MaxInt64 {
		return 1
	}
	return int64(g)
}

// roundInt rounds x to an integer, 0 when it is not below maxMag in
// magnitude (NaN and infinities too): predictions only need to agree
// between encoder and decoder, not to be right.
func roundInt(x float64) int64 {
	if !(math.Abs(x) < maxMag) {
		return 0
	}
	return int64(math.Round(x))
}

func zigzag(v int64) uint64   { return uint64(v<<1) ^ uint64(v>>63) }
func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }
