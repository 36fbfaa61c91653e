package indicator

import (
	"math"

	"mdqs/internal/market"
)

// Period bounds for every moving window in the package. 250 is about one
// trading year, the longest average traders plot; the bound keeps a request
// from asking for work proportional to an arbitrary number.
const (
	MinPeriod = 1
	MaxPeriod = 250
)

// Seed selects how an exponential average starts.
type Seed uint8

const (
	// SeedFirst starts at the first known value, as the TongDaXin terminal
	// (and MetaStock) do, so our values match what traders see on screen.
	SeedFirst Seed = iota
	// SeedSMA starts with the simple mean of the first n known values and is
	// undefined before, as ta-lib's TA_EMA does in its default mode.
	SeedSMA
)

func (s Seed) String() string {
	switch s {
	case SeedFirst:
		return "first"
	case SeedSMA:
		return "sma"
	}
	return "seed(?)"
}

func checkPeriod(what string, n int) error {
	if n < MinPeriod || n > MaxPeriod {
		return market.Errorf(market.KindInvalid, "indicator: %s period %d out of range %d..%d", what, n, MinPeriod, MaxPeriod)
	}
	return nil
}

// grow returns dst resized to n, reusing its array when it is large enough,
// so that callers evaluating many series allocate once.
func grow[T any](dst []T, n int) []T {
	if cap(dst) >= n {
		return dst[:n]
	}
	return make([]T, n)
}

// SMA is the simple moving average of the last n values (TongDaXin's MA, not
// its three-argument SMA). out[t] is NaN until n values have been seen and
// whenever the window holds a NaN or ±Inf, or the mean overflows. dst is
// reused when large enough; it must not overlap src.
func SMA(dst, src []float64, n int) ([]float64, error) {
	if err := checkPeriod("SMA", n); err != nil {
		return dst[:0], err
	}
	out := grow(dst, len(src))
	// A running sum keeps the cost independent of n; NaNs are counted rather
	// than summed so that one bad value leaves the sum usable once it has
	// slid out of the window.
	var sum float64
	nans := 0
	for t, v := range src {
		if known(v) {
			sum += v
		} else {
			nans++
		}
		resum := !known(sum)
		if t >= n {
			if old := src[t-n]; known(old) {
				sum -= old
				// Removing a value far larger than what remains leaves
				// the remainder's digits lost to rounding (a 1e12 price
				// glitch would skew every later mean), so recount.
				resum = resum || math.Abs(old) > 1024*math.Abs(sum)
			} else {
				nans--
			}
		}
		if t < n-1 || nans > 0 {
			out[t] = math.NaN()
			continue
		}
		if resum || !known(sum) {
			sum = 0
			for _, x := range src[t-n+1 : t+1] {
				sum += x
			}
		}
		out[t] = finite(sum / float64(n))
	}
	return out, nil
}

// known reports a usable number: not NaN and not ±Inf.
func known(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// finite maps ±Inf to NaN: outputs must be JSON numbers or null.
func finite(v float64) float64 {
	if math.IsInf(v, 0) {
		return math.NaN()
	}
	return v
}

// EMA is the exponential moving average in the terminal's convention:
// Y(t) = (2*X(t) + (n-1)*Y(t-1)) / (n+1), Y = X at the first known value,
// evaluated as Y(t-1) + 2/(n+1)*(X(t)-Y(t-1)).
func EMA(dst, src []float64, n int) ([]float64, error) {
	return EMASeeded(dst, src, n, SeedFirst)
}

// EMASeeded is EMA with an explicit seed. Leading NaNs give NaN. A NaN after
// the start gives NaN at that point and leaves the average where it was, so a
// missing bar does not poison the rest of the series; ±Inf, and a value so
// large that the average would overflow, count as NaN. With SeedSMA a NaN
// inside the seed window restarts the seeding after it. dst is reused when
// large enough; it may be src itself.
func EMASeeded(dst, src []float64, n int, seed Seed) ([]float64, error) {
	if err := checkPeriod("EMA", n); err != nil {
		return dst[:0], err
	}
	out := grow(dst, len(src))
	switch seed {
	case SeedFirst:
		emaFirst(out, src, n)
	case SeedSMA:
		end := firstRunEnd(src, n)
		emaFrom(out, src, n, end)
	default:
		return out[:0], market.Errorf(market.KindInvalid, "indicator: unknown EMA seed %d", seed)
	}
	return out, nil
}

func emaFirst(out, src []float64, n int) {
	prev := math.NaN()
	k := 2 / float64(n+1)
	for t, v := range src {
		next := v
		if !math.IsNaN(prev) {
			// prev + k*(v-prev) is the terminal's formula rearranged.
			// Unlike (2v + (n-1)prev)/(n+1) as written, it returns a
			// constant input unchanged whatever its digits (the written
			// form turns 10.07 into 10.070000000000002, and about one
			// price in six likewise), so a flat stretch has MACD exactly 0
			// and cannot produce crosses out of rounding.
			next = prev + k*(v-prev)
		}
		if !known(next) {
			out[t] = math.NaN()
			continue
		}
		prev = next
		out[t] = prev
	}
}

// firstRunEnd is the index ending the first run of n consecutive known
// values, or -1 when there is none.
func firstRunEnd(src []float64, n int) int {
	run := 0
	for t := range src {
		if !known(src[t]) {
			run = 0
			continue
		}
		run++
		if run == n {
			return t
		}
	}
	return -1
}

// emaFrom writes an SMA-seeded EMA whose seed is the mean of the n values
// ending at end (all known), in ta-lib's recursion prev + k*(v-prev). Points
// before end are NaN; end < 0 means no seed exists and everything is NaN.
func emaFrom(out, src []float64, n, end int) {
	if end < 0 {
		for t := range out {
			out[t] = math.NaN()
		}
		return
	}
	// The seed is read before anything is written, so out may alias src.
	var sum float64
	for _, v := range src[end-n+1 : end+1] {
		sum += v
	}
	prev := sum / float64(n)
	if !known(prev) {
		// The sum overflowed; the mean of finite values cannot.
		prev = 0
		for _, v := range src[end-n+1 : end+1] {
			prev += v / float64(n)
		}
	}
	for t := 0; t < end; t++ {
		out[t] = math.NaN()
	}
	out[end] = prev
	k := 2 / float64(n+1)
	for t := end + 1; t < len(src); t++ {
		next := src[t]
		next = prev + k*(next-prev)
		if !known(next) {
			out[t] = math.NaN()
			continue
		}
		prev = next
		out[t] = prev
	}
}
