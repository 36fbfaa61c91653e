package indicator

import (
	"errors"
	"math"
	"testing"

	"mdqs/internal/market"
)

// minuteBars builds 1m bars closing at consecutive minutes from hh:mm.
func minuteBars(hh, mm int, closes []float64, vols []int64) []market.Bar {
	bars := make([]market.Bar, len(closes))
	for i := range closes {
		ts := day1.At(hh, mm+i, 0).Unix()
		bars[i] = market.Bar{Day: day1, TS: ts, Open: closes[i], High: closes[i], Low: closes[i], Close: closes[i],
			Volume: vols[i], Amount: closes[i] * float64(vols[i]), TurnoverRate: nan, LargeOrderNet: nan}
	}
	return bars
}

func flatProfile() *VolumeProfile {
	var p VolumeProfile
	for i := range p {
		p[i] = 1
	}
	return &p
}

func checkMomentum(t *testing.T, call string, got, want Momentum, tol float64) {
	t.Helper()
	if !same(got.MicroVolRatio, want.MicroVolRatio, tol) || !same(got.VolAcc, want.VolAcc, tol) ||
		!same(got.TimeAdjustedVolRatio, want.TimeAdjustedVolRatio, tol) || !same(got.PriceSpeedRatio, want.PriceSpeedRatio, tol) {
		t.Errorf("%s = %v, want %v (±%g)", call, got, want, tol)
	}
}

// The hand-checked window: six 1m bars closing 10:01..10:06 (session minutes
// 31..36), volumes 100..500 then 900, closes 10.00 10.01 10.02 10.02 10.03 10.07.
//
//	micro_vol_ratio   = 900 / ((100+200+300+400+500)/5) = 900/300 = 3
//	vol_acc           = (400+500+900) / (100+200+300) - 1 = 1800/600 - 1 = 2
//	price_speed_ratio = (10.07-10.03) / ((0.01+0.01+0+0.01)/4) = 0.04/0.0075 = 16/3
var (
	handCloses = []float64{10.00, 10.01, 10.02, 10.02, 10.03, 10.07}
	handVols   = []int64{100, 200, 300, 400, 500, 900}
)

func TestMicroMomentumMinute(t *testing.T) {
	bars := minuteBars(10, 1, handCloses, handVols)
	// Minute 36 (10:06) typically twice as busy: A5 = 900/2 = 450, 450/300 = 1.5.
	spike := flatProfile()
	spike[35] = 2
	// Minute 1 is outside the window and changes nothing.
	unused := flatProfile()
	unused[0] = 9
	tests := []struct {
		name    string
		profile *VolumeProfile
		want    Momentum
		tol     float64
	}{
		// A flat profile adjusts nothing: time_adjusted = micro = 3.
		{"flat profile", flatProfile(), Momentum{3, 2, 3, 16.0 / 3}, 1e-9},
		{"busy minute", spike, Momentum{3, 2, 1.5, 16.0 / 3}, 1e-9},
		{"unused minutes do not matter", unused, Momentum{3, 2, 3, 16.0 / 3}, 1e-9},
		// Default profile weights of minutes 31..36 (see TestDefaultVolumeProfile
		// for Z): 0.968591 0.956613 0.945775 0.935968 0.927094 0.919065, so
		// A = 103.245 209.073 317.200 427.365 539.318 979.257,
		// mean(A0..A4) = 319.240 and 979.257/319.240 = 3.06746.
		{"default profile", nil, Momentum{3, 2, 3.067462863, 16.0 / 3}, 1e-6},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := MicroMomentum(bars, market.Min1, tc.profile)
			if err != nil {
				t.Fatalf("MicroMomentum error %v", err)
			}
			checkMomentum(t, "MicroMomentum(1m)", got, tc.want, tc.tol)
		})
	}
}

func TestMicroMomentumFiveMinute(t *testing.T) {
	// 5m bars closing 10:05, 10:10, ..., 10:30 (minutes 35, 40, ..., 60).
	bars := minuteBars(10, 1, handCloses, handVols)
	for i := range bars {
		bars[i].TS = day1.At(10, 5*(i+1), 0).Unix()
	}
	// Minutes 59 and 60 weigh 3.5: the last bar covers 56..60 with mean
	// weight (1+1+1+3.5+3.5)/5 = 2, so A5 = 450 and the ratio is 1.5. The
	// other bars cover weight-1 minutes only.
	p := flatProfile()
	p[58], p[59] = 3.5, 3.5
	got, err := MicroMomentum(bars, market.Min5, p)
	if err != nil {
		t.Fatalf("MicroMomentum error %v", err)
	}
	checkMomentum(t, "MicroMomentum(5m)", got, Momentum{3, 2, 1.5, 16.0 / 3}, 1e-9)
}

func TestMicroMomentumDaily(t *testing.T) {
	// Daily bars need no time adjustment: time_adjusted = micro = 3.
	got, err := MicroMomentum(dailyBars(handCloses, handVols), market.Daily, nil)
	if err != nil {
		t.Fatalf("MicroMomentum error %v", err)
	}
	checkMomentum(t, "MicroMomentum(D)", got, Momentum{3, 2, 3, 16.0 / 3}, 1e-9)

	// Only the latest six bars count: an older bar of any size changes nothing.
	more := append(dailyBars([]float64{99}, []int64{1e9}), dailyBars(handCloses, handVols)...)
	for i := range more {
		more[i].TS = int64(i + 1)
	}
	got, err = MicroMomentum(more, market.Daily, nil)
	if err != nil {
		t.Fatalf("MicroMomentum(7 bars) error %v", err)
	}
	checkMomentum(t, "MicroMomentum(7 bars)", got, Momentum{3, 2, 3, 16.0 / 3}, 1e-9)
}

func TestMicroMomentumEdges(t *testing.T) {
	tests := []struct {
		name   string
		closes []float64
		vols   []int64
		want   Momentum
	}{
		// No volume at all: every volume ratio divides by 0 -> NaN.
		{"all zero volume", handCloses, []int64{0, 0, 0, 0, 0, 0}, Momentum{nan, nan, nan, 16.0 / 3}},
		// Volume only on the newest bar: micro divides by mean 0 -> NaN;
		// vol_acc = 100/0 -> NaN.
		{"first volume", handCloses, []int64{0, 0, 0, 0, 0, 100}, Momentum{nan, nan, nan, 16.0 / 3}},
		// Newest bar empty: micro = 0/300 = 0; vol_acc = (400+500+0)/600 - 1 = 0.5.
		{"newest empty", handCloses, []int64{100, 200, 300, 400, 500, 0}, Momentum{0, 0.5, 0, 16.0 / 3}},
		// Motionless then one cent: reference floored at 0.001, 0.01/0.001 = 10.
		{"flat price", []float64{10, 10, 10, 10, 10, 10.01}, handVols, Momentum{3, 2, 3, 10}},
		// Falling: -0.02 / ((0.01+0.01+0.01+0.01)/4) = -2.
		{"falling", []float64{10.05, 10.04, 10.03, 10.02, 10.01, 9.99}, handVols, Momentum{3, 2, 3, -2}},
		{"no price", []float64{10, 10, nan, 10, 10, 10}, handVols, Momentum{3, 2, 3, nan}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := MicroMomentum(minuteBars(10, 1, tc.closes, tc.vols), market.Min1, flatProfile())
			if err != nil {
				t.Fatalf("MicroMomentum error %v", err)
			}
			checkMomentum(t, "MicroMomentum", got, tc.want, 1e-9)
		})
	}
}

func TestMicroMomentumErrors(t *testing.T) {
	bars := minuteBars(10, 1, handCloses, handVols)
	got, err := MicroMomentum(bars[:5], market.Min1, nil)
	if !errors.Is(err, ErrInsufficientData) || market.KindOf(err) != market.KindNotFound {
		t.Errorf("MicroMomentum(5 bars) error %v, want ErrInsufficientData of KindNotFound", err)
	}
	checkMomentum(t, "MicroMomentum(5 bars)", got, Momentum{nan, nan, nan, nan}, 0)

	swapped := append([]market.Bar(nil), bars...)
	swapped[2], swapped[3] = swapped[3], swapped[2]
	if _, err := MicroMomentum(swapped, market.Min1, nil); market.KindOf(err) != market.KindInvalid {
		t.Errorf("MicroMomentum(out of order) error %v, want KindInvalid", err)
	}
	if _, err := MicroMomentum(bars, market.Freq("1w"), nil); market.KindOf(err) != market.KindInvalid {
		t.Errorf("MicroMomentum(freq 1w) error %v, want KindInvalid", err)
	}
	bad := flatProfile()
	bad[100] = 0
	if _, err := MicroMomentum(bars, market.Min1, bad); market.KindOf(err) != market.KindInvalid {
		t.Errorf("MicroMomentum(profile with a 0) error %v, want KindInvalid", err)
	}
	// A bar outside the session has no time of day to adjust for.
	lunch := minuteBars(11, 58, handCloses, handVols) // 11:58 .. 12:03
	got, err = MicroMomentum(lunch, market.Min1, nil)
	if err != nil || !math.IsNaN(got.TimeAdjustedVolRatio) || got.MicroVolRatio != 3 {
		t.Errorf("MicroMomentum(over lunch) = %v, %v, want time_adjusted NaN and micro 3", got, err)
	}
}

func TestSessionMinute(t *testing.T) {
	tests := []struct {
		hh, mm int
		want   int
		ok     bool
	}{
		{9, 29, 0, false}, {9, 30, 1, true}, {9, 31, 1, true}, {9, 32, 2, true},
		{11, 30, 120, true}, {11, 31, 0, false}, {13, 0, 0, false}, {13, 1, 121, true},
		{14, 57, 237, true}, {15, 0, 240, true}, {15, 1, 0, false},
	}
	for _, tc := range tests {
		got, ok := SessionMinute(day1.At(tc.hh, tc.mm, 0).Unix())
		if got != tc.want || ok != tc.ok {
			t.Errorf("SessionMinute(%02d:%02d) = %d, %v, want %d, %v", tc.hh, tc.mm, got, ok, tc.want, tc.ok)
		}
	}
}

func TestDefaultVolumeProfile(t *testing.T) {
	// The raw weights' sum in closed form (geometric series):
	// 240 + (3+1)(1-e^-24)/(1-e^-0.1) + 0.5(1-e^-24)/(1-e^-0.2)
	// = 240 + 42.0333278 + 2.7583278 = 284.7916556, so Z = 284.7916556/240 = 1.1866319.
	g := 1 - math.Exp(-24)
	z := (240 + 4*g/(1-math.Exp(-0.1)) + 0.5*g/(1-math.Exp(-0.2))) / 240
	p := DefaultVolumeProfile()
	tests := []struct {
		minute int
		raw    float64
	}{
		{1, 1 + 3 + math.Exp(-23.9)},                                     // 09:31: opening surge
		{120, 1 + 3*math.Exp(-11.9) + math.Exp(-12)},                     // 11:30
		{121, 1 + 3*math.Exp(-12) + 0.5 + math.Exp(-11.9)},               // 13:01: lunch reopen
		{240, 1 + 3*math.Exp(-23.9) + 0.5*math.Exp(-23.8) + math.Exp(0)}, // 15:00: close
	}
	for _, tc := range tests {
		if want := tc.raw / z; !same(p[tc.minute-1], want, 1e-12) {
			t.Errorf("DefaultVolumeProfile()[minute %d] = %.15g, want %.15g", tc.minute, p[tc.minute-1], want)
		}
	}
	if m := mean(p[:]); !same(m, 1, 1e-12) {
		t.Errorf("mean(DefaultVolumeProfile()) = %v, want 1", m)
	}
}

func TestProfileFromBars(t *testing.T) {
	// Two sessions, minutes 1, 2 and 3 (bars closing 09:31, 09:32, 09:33):
	// minute 1: 300 then 100 -> mean 200; minute 2: 100, 100 -> 100;
	// minute 3: 0, 0 -> 0, floored. Other minutes are unseen.
	var bars []market.Bar
	for d, vols := range [][]int64{{300, 100, 0}, {100, 100, 0}} {
		day := day1.AddDays(d)
		for i, v := range vols {
			bars = append(bars, market.Bar{Day: day, TS: day.At(9, 31+i, 0).Unix(), Volume: v, Close: 10})
		}
	}
	p, err := ProfileFromBars(bars)
	if err != nil {
		t.Fatalf("ProfileFromBars error %v", err)
	}
	def := DefaultVolumeProfile()
	// Measured weights are scaled by (def1+def2+def3)/(200+100+0) before
	// flooring, so minute1/minute2 = 200/100 = 2, and unseen minutes keep the
	// default's proportions.
	if r := p[0] / p[1]; !same(r, 2, 1e-12) {
		t.Errorf("ProfileFromBars minute1/minute2 = %v, want 2", r)
	}
	if r, want := p[200]/p[100], def[200]/def[100]; !same(r, want, 1e-12) {
		t.Errorf("ProfileFromBars minute201/minute101 = %v, want default's %v", r, want)
	}
	// The empty minute sits at the floor 0.05, against the default's weight.
	if r, want := p[2]/p[100], 0.05/def[100]; !same(r, want, 1e-12) {
		t.Errorf("ProfileFromBars minute3/minute101 = %v, want 0.05/%v = %v", r, def[100], want)
	}
	scale := (def[0] + def[1] + def[2]) / 300
	if r, want := p[0]/p[100], 200*scale/def[100]; !same(r, want, 1e-12) {
		t.Errorf("ProfileFromBars minute1/minute101 = %v, want %v", r, want)
	}
	if m := mean(p[:]); !same(m, 1, 1e-12) {
		t.Errorf("mean(ProfileFromBars) = %v, want 1", m)
	}
	if _, err := ProfileFromBars(bars[2:3]); !errors.Is(err, ErrInsufficientData) {
		t.Errorf("ProfileFromBars(only a zero-volume minute) error %v, want ErrInsufficientData", err)
	}
	if _, err := ProfileFromBars(nil); !errors.Is(err, ErrInsufficientData) {
		t.Errorf("ProfileFromBars(nil) error %v, want ErrInsufficientData", err)
	}
}
