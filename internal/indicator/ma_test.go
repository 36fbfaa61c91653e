package indicator

import (
	"math"
	"testing"

	"mdqs/internal/market"
)

func TestSMA(t *testing.T) {
	tests := []struct {
		name string
		src  []float64
		n    int
		want []float64
	}{
		// (1+2+3)/3 = 2, (2+3+4)/3 = 3, (3+4+5)/3 = 4.
		{"n3", []float64{1, 2, 3, 4, 5}, 3, []float64{nan, nan, 2, 3, 4}},
		{"n1 is identity", []float64{7, 8.5}, 1, []float64{7, 8.5}},
		// Prices with cents: (10.01+10.02)/2 = 10.015, (10.02+9.99)/2 = 10.005.
		{"cents", []float64{10.01, 10.02, 9.99}, 2, []float64{nan, 10.015, 10.005}},
		{"shorter than n", []float64{1, 2}, 3, []float64{nan, nan}},
		{"empty", nil, 5, []float64{}},
		// A NaN blanks the windows holding it and no others:
		// t3 = (3+4)/2 = 3.5 once the NaN at t1 has left.
		{"nan in window", []float64{1, nan, 3, 4}, 2, []float64{nan, nan, nan, 3.5}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := SMA(nil, tc.src, tc.n)
			if err != nil {
				t.Fatalf("SMA(%v, %d) error %v", tc.src, tc.n, err)
			}
			checkSeries(t, "SMA", got, tc.want, tol)
		})
	}
}

func TestEMATerminal(t *testing.T) {
	tests := []struct {
		name string
		src  []float64
		n    int
		want []float64
	}{
		// n=3: Y = (2X + 2Y')/4. Y0 = 10; Y1 = (22+20)/4 = 10.5;
		// Y2 = (24+21)/4 = 11.25; Y3 = (26+22.5)/4 = 12.125.
		{"n3", []float64{10, 11, 12, 13}, 3, []float64{10, 10.5, 11.25, 12.125}},
		// n=5: Y = (2X + 4Y')/6. Y1 = (22+40)/6 = 31/3;
		// Y2 = (24 + 124/3)/6 = 196/18 = 98/9.
		{"n5", []float64{10, 11, 12}, 5, []float64{10, 31.0 / 3, 98.0 / 9}},
		{"n1 is identity", []float64{3, 1, 4}, 1, []float64{3, 1, 4}},
		// Leading NaN stays NaN and the seed is the first known value; a
		// later NaN is NaN and is skipped: Y3 = (2*13 + 2*11)/4 = 12.
		{"nan", []float64{nan, 11, nan, 13}, 3, []float64{nan, 11, nan, 12}},
		// Exactly constant, not merely close, for any digits: prev +
		// k*(X-prev) adds exactly 0. (The written form (2X+11Y)/13 turns
		// 10.07 into 10.070000000000002.)
		{"constant exact", []float64{10.07, 10.07, 10.07}, 12, []float64{10.07, 10.07, 10.07}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := EMA(nil, tc.src, tc.n)
			if err != nil {
				t.Fatalf("EMA(%v, %d) error %v", tc.src, tc.n, err)
			}
			tolerance := tol
			if tc.name == "constant exact" {
				tolerance = 0
			}
			checkSeries(t, "EMA", got, tc.want, tolerance)
		})
	}
}

func TestEMATALib(t *testing.T) {
	tests := []struct {
		name string
		src  []float64
		n    int
		want []float64
	}{
		// Seed = (10+11+12)/3 = 11 at t2; k = 2/4 = 0.5;
		// t3 = 11 + 0.5*(13-11) = 12; t4 = 12 + 0.5*(14-12) = 13.
		{"n3", []float64{10, 11, 12, 13, 14}, 3, []float64{nan, nan, 11, 12, 13}},
		// n=4, k = 0.4: seed (2+4+6+8)/4 = 5; t4 = 5 + 0.4*(10-5) = 7.
		{"n4", []float64{2, 4, 6, 8, 10}, 4, []float64{nan, nan, nan, 5, 7}},
		// The NaN at t1 interrupts the seed window, which restarts:
		// seed = (3+4+5)/3 = 4 at t4; t5 = 4 + 0.5*(8-4) = 6.
		{"nan restarts seed", []float64{1, nan, 3, 4, 5, 8}, 3, []float64{nan, nan, nan, nan, 4, 6}},
		{"too short", []float64{1, 2}, 3, []float64{nan, nan}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := EMASeeded(nil, tc.src, tc.n, SeedSMA)
			if err != nil {
				t.Fatalf("EMASeeded(%v, %d, SeedSMA) error %v", tc.src, tc.n, err)
			}
			checkSeries(t, "EMASeeded", got, tc.want, tol)
		})
	}
}

func TestMovingAverageErrors(t *testing.T) {
	src := []float64{1, 2, 3}
	for _, n := range []int{-1, 0, 251, math.MaxInt} {
		if _, err := SMA(nil, src, n); market.KindOf(err) != market.KindInvalid {
			t.Errorf("SMA(src, %d) error %v, want KindInvalid", n, err)
		}
		if _, err := EMA(nil, src, n); market.KindOf(err) != market.KindInvalid {
			t.Errorf("EMA(src, %d) error %v, want KindInvalid", n, err)
		}
	}
	if _, err := EMASeeded(nil, src, 3, Seed(9)); market.KindOf(err) != market.KindInvalid {
		t.Errorf("EMASeeded(src, 3, Seed(9)) error %v, want KindInvalid", err)
	}
}

// Reusing dst is the point of the dst argument: no allocation once it is
// big enough, and EMA may even write over its input.
func TestMovingAverageReuse(t *testing.T) {
	src := []float64{10, 11, 12, 13}
	dst := make([]float64, 0, 8)
	got, _ := SMA(dst, src, 2)
	if &got[0] != &dst[:1][0] {
		t.Errorf("SMA(dst with cap 8, 4 values) allocated a new slice, want dst reused")
	}
	if a := testing.AllocsPerRun(100, func() { got, _ = EMA(got, src, 3) }); a != 0 {
		t.Errorf("EMA(reused dst) allocs = %v, want 0", a)
	}
	in := []float64{10, 11, 12, 13, 14}
	got, _ = EMASeeded(in, in, 3, SeedSMA)
	checkSeries(t, "EMASeeded(src as dst)", got, []float64{nan, nan, 11, 12, 13}, tol)
	in = []float64{10, 11, 12, 13}
	got, _ = EMA(in, in, 3)
	checkSeries(t, "EMA(src as dst)", got, []float64{10, 10.5, 11.25, 12.125}, tol)
}

// One absurd value (a feed glitch) must not skew the means after it has left
// the window, nor overflow while inside it.
func TestSMAGlitch(t *testing.T) {
	src := []float64{10.01, 1e300, 10.02, 10.03, 10.04, 10.05}
	got, _ := SMA(nil, src, 2)
	// (10.02+10.03)/2 = 10.025, (10.03+10.04)/2 = 10.035, (10.04+10.05)/2 = 10.045
	checkSeries(t, "SMA(glitch)", got, []float64{nan, 5e299, 5e299, 10.025, 10.035, 10.045}, 1e-12)
	got, _ = SMA(nil, []float64{1, math.MaxFloat64, math.MaxFloat64, 3, 5}, 2)
	// MaxFloat64 + MaxFloat64 overflows: NaN, never Inf; (MaxFloat64+3)/2
	// rounds to MaxFloat64/2; then (3+5)/2 = 4.
	checkSeries(t, "SMA(overflow)", got[2:], []float64{nan, math.MaxFloat64 / 2, 4}, 0)
}
