package demo

import "math/rand/v2"

// Every random number of the market comes from a PCG stream seeded from a
// hash of (seed, what, which, day), so any stock-day or board-day is drawn on
// its own, in any order, on any goroutine.
//
// Cross-machine determinism: prices are walked day after day, so one ulp of
// difference can move a later close by a cent. The model therefore uses
// only IEEE-exact operations (+ - * / and sqrt, which every platform rounds
// identically) and no math.Exp, math.Log or rand.NormFloat64, whose results
// differ between the amd64/arm64 assembly and the portable code. Products
// that feed a sum go through mul, because Go may fuse x*y+z into one FMA
// instruction (arm64 does) and an explicit conversion forbids that.

// Stream tags keep the streams of different uses apart.
const (
	tagUniverse uint64 = iota + 1
	tagStock
	tagFactor
	tagIdio
	tagVolume
	tagIntraday
	tagBridge
	tagConcepts
	tagDay     // a stock's daily range, amount and flow (intraday.go dayOf)
	tagActions // corporate actions (actions.go)
	tagLife    // renames, warnings, suspensions, delistings (life.go)
)

const golden = 0x9e3779b97f4a7c15

// mix is the SplitMix64 finaliser.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// hash2 combines two values into a well-mixed key.
func hash2(a, b uint64) uint64 { return mix(a ^ mix(b+golden)) }

func hash3(a, b, c uint64) uint64 { return hash2(hash2(a, b), c) }

type stream struct{ p rand.PCG }

// newStream seeds a stream from a key and a discriminator (usually a day).
// Both are mixed first: PCG states that differ in a few bits give
// correlated first outputs.
func newStream(key, sub uint64) stream {
	var s stream
	s.p.Seed(mix(key^mix(sub)), mix(sub+key*golden))
	return s
}

func (s *stream) u64() uint64 { return s.p.Uint64() }

// unit is uniform in [0, 1).
func (s *stream) unit() float64 { return float64(float64(s.p.Uint64()>>11) * 0x1p-53) }

// between is uniform in [lo, hi).
func (s *stream) between(lo, hi float64) float64 { return lo + mul(hi-lo, s.unit()) }

// intn is uniform in [0, n); n > 0.
func (s *stream) intn(n int) int { return int(s.p.Uint64() % uint64(n)) }

// normScale makes the sum of four 16-bit uniforms a unit-variance value.
const normScale = 1.7320508075688772 / 65536

// norm is an approximately standard normal value: the centred sum of four
// uniforms (Irwin-Hall), bounded at ±3.46. Bounded tails suit a price model
// whose big moves come from explicit jump terms.
func (s *stream) norm() float64 {
	u := s.p.Uint64()
	sum := int64(u&0xffff) + int64(u>>16&0xffff) + int64(u>>32&0xffff) + int64(u>>48)
	return float64(float64(sum-131070) * normScale)
}

// mul is a*b rounded on its own, so that the compiler cannot fuse it into
// a following addition. (A float64(x) conversion of a float64 compiles to
// a rounding barrier, which is what the helpers below rely on too.)
func mul(a, b float64) float64 { return float64(a * b) }

// sat is a smooth saturation into (-1, 1), x/(1+|x|).
func sat(x float64) float64 {
	if x < 0 {
		return x / (1 - x)
	}
	return x / (1 + x)
}

// ratio maps a normal value to a positive multiplier spread like a
// lognormal with sigma about spread: (1+k*z)^2 up, its inverse down. It
// replaces exp, which is not bit-reproducible across platforms.
func ratio(z, spread float64) float64 {
	k := spread / 2
	if z >= 0 {
		v := 1 + mul(k, z)
		return v * v
	}
	v := 1 - mul(k, z)
	return 1 / (v * v)
}

func clampF(x, lo, hi float64) float64 {
	if x < lo {
		return lo
	}
	if x > hi {
		return hi
	}
	return x
}

func clampI32(x, lo, hi int32) int32 {
	if x < lo {
		return lo
	}
	if x > hi {
		return hi
	}
	return x
}

// roundCents rounds a price in cents, saturating instead of overflowing.
func roundCents(x float64) int32 {
	switch {
	case !(x > 0): // also NaN
		return 0
	case x >= 2e9:
		return 2e9
	}
	return int32(float64(x) + 0.5)
}

// round2 rounds to two decimals, as EastMoney's fltt=2 numbers are.
func round2(x float64) float64 {
	if x != x || x > 1e15 || x < -1e15 {
		return x
	}
	return float64(int64Round(mul(x, 100))) / 100
}

func int64Round(x float64) int64 {
	if x < 0 {
		return -int64(float64(-x) + 0.5)
	}
	return int64(float64(x) + 0.5)
}

// roundYuan rounds money to whole yuan, so that sums of amounts and flows
// are exact in float64 whatever the order of addition.
func roundYuan(x float64) float64 { return float64(int64Round(x)) }
