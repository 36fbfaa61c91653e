package indicator

import (
	"math"
	"testing"

	"mdqs/internal/market"
)

// tol is the default absolute tolerance of float comparisons. Expected
// values are exact fractions or decimals worked out by hand; the only error
// is float64 rounding over a handful of operations on numbers near 10, far
// below 1e-9.
const tol = 1e-9

var nan = math.NaN()

// same reports got == want within tol, NaN matching only NaN.
func same(got, want, tol float64) bool {
	if math.IsNaN(want) || math.IsNaN(got) {
		return math.IsNaN(want) && math.IsNaN(got)
	}
	return math.Abs(got-want) <= tol
}

func checkSeries(t *testing.T, call string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s = %d values %v, want %d values %v", call, len(got), got, len(want), want)
	}
	for i := range want {
		if !same(got[i], want[i], tol) {
			t.Errorf("%s[%d] = %.12g, want %.12g (±%g)", call, i, got[i], want[i], tol)
		}
	}
}

// day1 is a Monday; bar i of a daily series falls i days later, which is
// enough for maths that never consults the calendar.
const day1 = market.Day(20250303)

func dailyBars(closes []float64, vols []int64) []market.Bar {
	bars := make([]market.Bar, len(closes))
	for i, c := range closes {
		d := day1.AddDays(i)
		bars[i] = market.Bar{Day: d, TS: d.At(15, 0, 0).Unix(), Open: c, High: c, Low: c, Close: c,
			TurnoverRate: nan, LargeOrderNet: nan}
		if vols != nil {
			bars[i].Volume = vols[i]
			bars[i].Amount = c * float64(vols[i])
		}
	}
	return bars
}

func noInf(t *testing.T, call string, xs []float64) {
	t.Helper()
	for i, x := range xs {
		if math.IsInf(x, 0) {
			t.Fatalf("%s[%d] = %v, want a finite value or NaN", call, i, x)
		}
	}
}
