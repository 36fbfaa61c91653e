package indicator

import (
	"testing"

	"mdqs/internal/market"
)

func TestTrendStrength(t *testing.T) {
	tests := []struct {
		name string
		src  []float64
		n    int
		want []float64
	}{
		{"straight rise", []float64{1, 2, 3, 4, 5}, 5, []float64{nan, nan, nan, nan, 100}},
		{"straight fall", []float64{5, 4, 3, 2, 1}, 5, []float64{nan, nan, nan, nan, -100}},
		// x = 0..4 (mean 2), y = 1 3 2 4 3 (mean 2.6):
		// Sxy = (-2)(-1.6) + (-1)(0.4) + 0 + (1)(1.4) + (2)(0.4) = 5
		// Sxx = 4+1+0+1+4 = 10; Syy = 2.56+0.16+0.36+1.96+0.16 = 5.2
		// R² = 25/(10*5.2) = 25/52 -> 100*25/52 = 48.0769...
		{"noisy rise", []float64{1, 3, 2, 4, 3}, 5, []float64{nan, nan, nan, nan, 2500.0 / 52}},
		// Rolling n=3: [1 2 3] -> 100; [2 3 2]: Sxy = (-1)(-1/3) + (1)(-1/3) = 0 -> 0; [3 2 1] -> -100.
		{"rolling", []float64{1, 2, 3, 2, 1}, 3, []float64{nan, nan, 100, 0, -100}},
		{"flat is zero", []float64{10.01, 10.01, 10.01}, 3, []float64{nan, nan, 0}},
		{"nan window", []float64{1, nan, 3, 4, 5}, 3, []float64{nan, nan, nan, nan, 100}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := TrendStrength(nil, tc.src, tc.n)
			if err != nil {
				t.Fatalf("TrendStrength(%v, %d) error %v", tc.src, tc.n, err)
			}
			checkSeries(t, "TrendStrength", got, tc.want, 1e-9)
		})
	}
}

// Shifting and scaling prices changes nothing: the score is about shape.
func TestTrendStrengthInvariance(t *testing.T) {
	src := []float64{10.2, 10.5, 10.1, 10.8, 11.0, 10.7, 11.3}
	moved := make([]float64, len(src))
	for i, v := range src {
		moved[i] = 3*v + 7
	}
	a, _ := TrendStrength(nil, src, 5)
	b, _ := TrendStrength(nil, moved, 5)
	checkSeries(t, "TrendStrength(3x+7)", b, a, 1e-9)
	if !(a[6] > 0 && a[6] < 100) {
		t.Errorf("TrendStrength(noisy rise)[6] = %v, want in (0, 100)", a[6])
	}
}

func TestTrendStrengthErrors(t *testing.T) {
	for _, n := range []int{-1, 0, 2, 251} {
		if _, err := TrendStrength(nil, []float64{1, 2, 3}, n); market.KindOf(err) != market.KindInvalid {
			t.Errorf("TrendStrength(n=%d) error %v, want KindInvalid", n, err)
		}
	}
}
