package tdx

import (
	"math"
	"math/bits"
	"strconv"
)

// Decimal32 is the float64 of f's shortest decimal: what the terminal meant
// by a value it stored as float32. Widening f itself keeps the binary
// error of its 24 bits, which then shows in every answer as digits the
// file never held (84.78 is stored as 84.77999877929688, an amount of
// 119640.68 as 119640.6796875, one of 3.8315348e9 as 3831534848). The
// decimal is the one strconv.FormatFloat(float64(f), 'g', -1, 32) writes,
// and it converts back to the same float32, so writing a value decoded
// here as float32 again (demo files, tests) stores the same bytes.
//
// Every float32 a file holds (gbbq values, .day and minute amounts, name
// file fields) is decoded through here, once. The .day decoder calls it
// for every record, so the usual values take an arithmetic path of a few
// nanoseconds (decimalFast) instead of strconv's formatting and parsing,
// about 150 ns; TestDecimal32IsStrconvs holds the two to the same values.
func Decimal32(f float32) float64 {
	if d, ok := decimalFast(f); ok {
		return d
	}
	return decimalSlow(f)
}

// decimalSlow is Decimal32 by definition.
func decimalSlow(f float32) float64 {
	x := float64(f)
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	var buf [32]byte
	d, err := strconv.ParseFloat(string(strconv.AppendFloat(buf[:0], x, 'e', -1, 32)), 64)
	if err != nil {
		return x
	}
	return d
}

// float64 powers of ten, exact up to 1e22.
var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

// decimalFast finds Decimal32(f) for f whose magnitude lies in
// [2^-13, 2^44) (prices, amounts, counts) by arithmetic, and says false
// for any other f and wherever it cannot be sure; TestDecimal32IsStrconvs
// checks it against strconv.
//
// f = M·2^e with a 24-bit M, so the float32s next to f are 2^e away and
// every number within 2^(e-1) of f reads back as f. The shortest decimal
// of f is then the multiple of 10^(j+1) in that interval, where
// 10^j ≤ 2^e < 10^(j+1) (the interval is narrower than 10^(j+1), so there
// is at most one, and any shorter decimal is such a multiple too), or else
// the multiple of 10^j nearest f, one of which the interval holds. Each
// candidate n·10^s is computed exactly: n = round(|f|/10^s) by integer
// division when f is an integer and s ≥ 0, and from the exact product
// |f|·10^-s (24 bits times at most 5^11's 26) when s < 0; then n·10^s is
// exact for s ≥ 0 and, for s < 0, the correctly rounded quotient
// n/10^-s, which is the float64 strconv.ParseFloat gives the decimal. A
// candidate is taken when it reads back as f; a tie between two
// candidates is left to strconv.
func decimalFast(f float32) (float64, bool) {
	x := float64(f)
	a := math.Abs(x)
	if !(a >= 0x1p-13 && a < 0x1p44) {
		return 0, false
	}
	e := int(math.Float32bits(f)>>23&0xff) - 150 // the exponent of f's last bit: the gap to its neighbours
	// j = floor(e·log10 2); 78913/2^18 is log10 2 to within 2^-21, exact
	// for every e here.
	j := (e * 78913) >> 18
	if j >= 0 {
		// f is an integer (e ≥ 0); one division gives both candidates.
		u := uint64(a)
		q, r := u, uint64(0)
		if j > 0 {
			q = divPow10(u, j)
			r = u - q*uint64(pow10[j])
		}
		p := uint64(pow10[j])
		// the multiple of 10^(j+1): q/10 and a remainder of (q%10)·p + r
		n, r10 := q/10, (q%10)*p+r
		if 2*r10 != 10*p {
			if 2*r10 > 10*p {
				n++
			}
			// (int64: converting one to float64 is one instruction, a
			// uint64 a branch; both are below 2^44.)
			if d := float64(int64(n)) * pow10[j+1]; float32(d) == float32(a) {
				return math.Copysign(d, x), true
			}
		}
		if 2*r == p {
			return 0, false
		}
		if 2*r > p {
			q++
		}
		if d := float64(int64(q)) * pow10[j]; float32(d) == float32(a) {
			return math.Copysign(d, x), true
		}
		return 0, false
	}
	for s := -j - 1; s <= -j; s++ { // steps of 10^(j+1), then 10^j
		y := a * pow10[s]
		n := math.Floor(y + 0.5)
		if n-y == 0.5 {
			return 0, false
		}
		if d := n / pow10[s]; float32(d) == float32(a) {
			return math.Copysign(d, x), true
		}
	}
	return 0, false
}

// divMagic[j] turns u / 10^j into a multiplication for u < 2^44 and
// 1 ≤ j ≤ 6 (the powers decimalFast divides by): m = ⌈2^(64+ℓ)/10^j⌉ with
// ℓ = ⌊log2 10^j⌋, and u / 10^j = ⌊u·m / 2^(64+ℓ)⌋ exactly, since
// u·(m·10^j − 2^(64+ℓ)) < 2^44·10^j ≤ 2^(64+ℓ). A 64-bit division takes
// tens of cycles, the multiplication three; TestDivPow10 checks it.
var divMagic = [...]struct {
	m     uint64
	shift uint
}{1: {0xcccccccccccccccd, 3}, 2: {0xa3d70a3d70a3d70b, 6}, 3: {0x83126e978d4fdf3c, 9},
	4: {0xd1b71758e219652c, 13}, 5: {0xa7c5ac471b478424, 16}, 6: {0x8637bd05af6c69b6, 19}}

// divPow10 is u / 10^j for u < 2^44 and 1 ≤ j ≤ 6.
func divPow10(u uint64, j int) uint64 {
	hi, _ := bits.Mul64(u, divMagic[j].m)
	return hi >> divMagic[j].shift
}
