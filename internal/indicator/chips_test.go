package indicator

import (
	"errors"
	"testing"

	"mdqs/internal/market"
)

// chipBar is a daily bar with turnover rate tr (percent) and average price
// vwap (amount/volume with a volume of 1000 shares).
func chipBar(i int, low, high, close, vwap, tr float64) market.Bar {
	d := day1.AddDays(i)
	return market.Bar{Day: d, TS: d.At(15, 0, 0).Unix(), Open: close, High: high, Low: low, Close: close,
		Volume: 1000, Amount: vwap * 1000, TurnoverRate: tr, LargeOrderNet: nan}
}

func checkChips(t *testing.T, call string, got, want ChipMetrics, tol float64) {
	t.Helper()
	pairs := []struct {
		name      string
		got, want float64
	}{
		{"Close", got.Close, want.Close}, {"BucketWidth", got.BucketWidth, want.BucketWidth},
		{"AvgCost", got.AvgCost, want.AvgCost}, {"ProfitRatio", got.ProfitRatio, want.ProfitRatio},
		{"Cost70Low", got.Cost70Low, want.Cost70Low}, {"Cost70High", got.Cost70High, want.Cost70High},
		{"Concentration70", got.Concentration70, want.Concentration70},
		{"Cost90Low", got.Cost90Low, want.Cost90Low}, {"Cost90High", got.Cost90High, want.Cost90High},
		{"Concentration90", got.Concentration90, want.Concentration90}, {"PeakPrice", got.PeakPrice, want.PeakPrice},
	}
	for _, p := range pairs {
		if !same(p.got, p.want, tol) {
			t.Errorf("%s.%s = %.10g, want %.10g (±%g)", call, p.name, p.got, p.want, tol)
		}
	}
	if got.Day != want.Day || got.Days != want.Days {
		t.Errorf("%s day, days = %v, %d, want %v, %d", call, got.Day, got.Days, want.Day, want.Days)
	}
}

func conc(lo, hi float64) float64 { return (hi - lo) / (hi + lo) }

// Two days, both with 50% turnover, on a cent grid.
// Day 1: [10.00, 10.02], peak 10.01. The triangle's CDF at the bucket edges:
// F(10.005) = 0.005²/(0.02*0.01) = 1/8 and F(10.015) = 1 - 1/8, so buckets
// 10.00 / 10.01 / 10.02 get 1/8, 3/4, 1/8. Day 2: [10.02, 10.04], peak 10.03, likewise.
// Weights: day 2 = 0.5; day 1 = 0.5 * (1-0.5) = 0.25; normalised 1/3 and 2/3.
// Shares: 10.00 = 1/24, 10.01 = 1/4, 10.02 = 1/24 + 1/12 = 1/8, 10.03 = 1/2, 10.04 = 1/12.
// Cumulative after each: 1/24, 7/24, 10/24, 22/24, 1.
func twoDays() []market.Bar {
	return []market.Bar{
		chipBar(0, 10.00, 10.02, 10.01, 10.01, 50),
		chipBar(1, 10.02, 10.04, 10.03, 10.03, 50),
	}
}

func twoDaysWant() ChipMetrics {
	m := ChipMetrics{
		Day: day1.AddDays(1), Close: 10.03, Days: 2, BucketWidth: 0.01,
		// 10 + 0.01/4 + 0.02/8 + 0.03/2 + 0.04/12 = 10.0233333 (= 1/3*10.01 + 2/3*10.03)
		AvgCost: 10 + 0.07/3,
		// Below 10.03: 1/24 + 1/4 + 1/8 + half of the 10.03 bucket (1/4) = 2/3.
		ProfitRatio: 2.0 / 3,
		// P(0.05): bucket 10.01 = [10.005, 10.015), (0.05 - 1/24) / (1/4) = 1/30 -> 10.005 + 0.01/30
		Cost90Low: 10.005 + 0.01/30,
		// P(0.15): (0.15 - 1/24) * 4 = 13/30 -> 10.005 + 0.13/30
		Cost70Low: 10.005 + 0.13/30,
		// P(0.85): bucket 10.03 = [10.025, 10.035), (0.85 - 10/24) / (1/2) = 13/15 -> 10.025 + 0.13/15
		Cost70High: 10.025 + 0.13/15,
		// P(0.95): bucket 10.04, (0.95 - 22/24) / (1/12) = 0.4 -> 10.035 + 0.004 = 10.039
		Cost90High: 10.039,
		PeakPrice:  10.03,
	}
	m.Concentration70 = conc(m.Cost70Low, m.Cost70High) // 0.02433/20.04300 = 0.0012140
	m.Concentration90 = conc(m.Cost90Low, m.Cost90High) // 0.03367/20.04433 = 0.0016796
	return m
}

func TestChipsTwoDays(t *testing.T) {
	got, err := Chips(twoDays(), ChipParams{})
	if err != nil {
		t.Fatalf("Chips error %v", err)
	}
	checkChips(t, "Chips(two days)", got, twoDaysWant(), 1e-9)
	if c := got.Concentration90; !same(c, 0.0016796, 1e-7) {
		t.Errorf("Chips(two days).Concentration90 = %v, want 0.0016796", c)
	}
}

// Days that cannot carry chips (NaN turnover, bad range) and days before the
// window change nothing.
func TestChipsSkipsAndWindow(t *testing.T) {
	bars := twoDays()
	junk := chipBar(5, 50, 60, 55, 55, 80)
	nanTurnover := chipBar(6, 1, 99, 50, 50, nan)
	inverted := chipBar(7, 12, 11, 11.5, 11.5, 30)
	negative := chipBar(8, 9, 11, 10, 10, -5)
	series := []market.Bar{junk, bars[0], nanTurnover, inverted, negative, bars[1]}
	got, err := Chips(series, ChipParams{Window: 5})
	if err != nil {
		t.Fatalf("Chips error %v", err)
	}
	checkChips(t, "Chips(with skipped days)", got, twoDaysWant(), 1e-9)
}

// 100% turnover replaces everything before it; above 100% counts as 100%.
// Day 0 [9.00, 9.50] is wiped by day 1 (150% -> 100%), weight 1*(1-0.6) = 0.4;
// day 2 weighs 0.6. Shares: 10.00 = 0.4/8 = 0.05, 10.01 = 0.4*3/4 = 0.3,
// 10.02 = 0.05 + 0.6/8 = 0.125, 10.03 = 0.6*3/4 = 0.45, 10.04 = 0.075;
// cumulative 0.05, 0.35, 0.475, 0.925, 1.
func TestChipsFullTurnover(t *testing.T) {
	bars := []market.Bar{
		chipBar(0, 9.00, 9.50, 9.2, 9.2, 80),
		chipBar(1, 10.00, 10.02, 10.01, 10.01, 150),
		chipBar(2, 10.02, 10.04, 10.03, 10.03, 60),
	}
	got, err := Chips(bars, ChipParams{})
	if err != nil {
		t.Fatalf("Chips error %v", err)
	}
	want := ChipMetrics{
		Day: day1.AddDays(2), Close: 10.03, Days: 2, BucketWidth: 0.01,
		AvgCost:     10.022,                     // 0.4*10.01 + 0.6*10.03
		ProfitRatio: 0.05 + 0.3 + 0.125 + 0.225, // half of the 10.03 bucket: 0.7
		Cost90Low:   10.005,                     // P(0.05) ends bucket 10.00: 9.995 + 0.01*0.05/0.05
		Cost70Low:   10.005 + 0.01/3,            // bucket 10.01: (0.15-0.05)/0.3 = 1/3
		Cost70High:  10.025 + 0.01*5/6,          // bucket 10.03: (0.85-0.475)/0.45 = 5/6
		Cost90High:  10.035 + 0.01/3,            // bucket 10.04: (0.95-0.925)/0.075 = 1/3
		PeakPrice:   10.03,
	}
	want.Concentration70 = conc(want.Cost70Low, want.Cost70High)
	want.Concentration90 = conc(want.Cost90Low, want.Cost90High)
	checkChips(t, "Chips(full turnover)", got, want, 1e-9)
}

// One day over [10.00, 10.20] peaking at 10.10, with MaxBuckets 10: the 21
// cent ticks need width ceil(21/10) = 3 cents, 7 buckets with edges 9.995,
// 10.025, 10.055, 10.085, 10.115, 10.145, 10.175, 10.205 and centres
// 10.01, 10.04, ..., 10.19. F(x) = (x-10)²/0.02 below the peak, so
// F = 0.03125, 0.15125, 0.36125, 0.63875, 0.84875, 0.96875 at the inner edges and
// shares are 0.03125, 0.12, 0.21, 0.2775, 0.21, 0.12, 0.03125.
func TestChipsBucketCap(t *testing.T) {
	got, err := Chips([]market.Bar{chipBar(0, 10.00, 10.20, 10.10, 10.10, 40)}, ChipParams{MaxBuckets: 10})
	if err != nil {
		t.Fatalf("Chips error %v", err)
	}
	want := ChipMetrics{
		Day: day1, Close: 10.10, Days: 1, BucketWidth: 0.03,
		AvgCost:     10.10,                             // symmetric
		ProfitRatio: 0.5,                               // 0.03125+0.12+0.21 + half of 0.2775
		Cost90Low:   10.025 + 0.03*(0.05-0.03125)/0.12, // 10.0296875
		Cost70Low:   10.025 + 0.03*(0.15-0.03125)/0.12, // 10.0546875
		Cost70High:  10.145 + 0.03*(0.85-0.84875)/0.12, // 10.1453125
		Cost90High:  10.145 + 0.03*(0.95-0.84875)/0.12, // 10.1703125
		PeakPrice:   10.10,
	}
	want.Concentration70 = conc(want.Cost70Low, want.Cost70High)
	want.Concentration90 = conc(want.Cost90Low, want.Cost90High)
	checkChips(t, "Chips(MaxBuckets 10)", got, want, 1e-9)
}

// Without a usable average price the peak is (H+L+C)/3; an average price
// outside the range is clamped to it.
func TestChipsPeakFallback(t *testing.T) {
	b := chipBar(0, 10.00, 10.02, 10.01, 0, 50)
	b.Volume, b.Amount = 0, 0
	// (10.02+10.00+10.01)/3 = 10.01: shares 1/8, 3/4, 1/8; P(0.05) = 10.00 bucket: 9.995 + 0.01*0.05/0.125 = 9.999, clamped to 10.00.
	got, err := Chips([]market.Bar{b}, ChipParams{})
	if err != nil {
		t.Fatalf("Chips error %v", err)
	}
	if !same(got.AvgCost, 10.01, 1e-9) || !same(got.Cost90Low, 10.00, 1e-9) || !same(got.PeakPrice, 10.01, 1e-9) {
		t.Errorf("Chips(no volume) = avg %v p05 %v peak %v, want 10.01, 10.00, 10.01", got.AvgCost, got.Cost90Low, got.PeakPrice)
	}
	// Average price 11 is above the range: peak at High = 10.02, F(x) = (x-10)²/0.0004:
	// F(10.005) = 1/16, F(10.015) = 9/16: shares 1/16, 1/2, 7/16;
	// avg = 10 + 0.01/2 + 0.02*7/16 = 10.01375.
	got, err = Chips([]market.Bar{chipBar(0, 10.00, 10.02, 10.01, 11, 50)}, ChipParams{})
	if err != nil {
		t.Fatalf("Chips error %v", err)
	}
	if !same(got.AvgCost, 10.01375, 1e-9) {
		t.Errorf("Chips(vwap above high).AvgCost = %v, want 10.01375", got.AvgCost)
	}
	// A one-price day (limit board) puts everything in one bucket.
	got, err = Chips([]market.Bar{chipBar(0, 11.00, 11.00, 11.00, 11.00, 3)}, ChipParams{})
	if err != nil || !same(got.AvgCost, 11, 1e-9) || !same(got.Cost90Low, 11, 1e-9) || !same(got.Cost90High, 11, 1e-9) || got.Concentration90 != 0 {
		t.Errorf("Chips(one price) = %+v, %v, want everything at 11.00 and concentration 0", got, err)
	}
}

// Equal shares in two buckets: the peak is the lower price. Day 0 turns
// over 100% at one price 10.00, day 1 50% at 10.05: weights 1*(1-0.5) = 0.5
// and 0.5, exactly.
func TestChipsPeakTie(t *testing.T) {
	got, err := Chips([]market.Bar{chipBar(0, 10.00, 10.00, 10.00, 10.00, 100), chipBar(1, 10.05, 10.05, 10.05, 10.05, 50)}, ChipParams{})
	if err != nil {
		t.Fatalf("Chips error %v", err)
	}
	// avg = (10.00+10.05)/2; half the chips (the 10.00 ones, plus half of
	// the 10.05 bucket at close 10.05) are below the close: 0.75.
	if !same(got.PeakPrice, 10.00, 1e-9) || !same(got.AvgCost, 10.025, 1e-9) || !same(got.ProfitRatio, 0.75, 1e-9) {
		t.Errorf("Chips(tie) = peak %v avg %v profit %v, want 10.00, 10.025, 0.75", got.PeakPrice, got.AvgCost, got.ProfitRatio)
	}
}

func TestChipsErrors(t *testing.T) {
	if _, err := Chips(nil, ChipParams{}); !errors.Is(err, ErrInsufficientData) {
		t.Errorf("Chips(nil) error %v, want ErrInsufficientData", err)
	}
	noTurnover := []market.Bar{chipBar(0, 10, 11, 10.5, 10.5, nan), chipBar(1, 10, 11, 10.5, 10.5, 0)}
	if m, err := Chips(noTurnover, ChipParams{}); !errors.Is(err, ErrInsufficientData) || m.AvgCost == m.AvgCost {
		t.Errorf("Chips(no turnover) = avg %v, error %v, want NaN and ErrInsufficientData", m.AvgCost, err)
	}
	for _, p := range []ChipParams{{Window: -1}, {Window: 1001}, {MaxBuckets: 9}, {MaxBuckets: 100001}, {Tick: 0.0001}, {Tick: 2}, {Tick: nan}} {
		if _, err := Chips(twoDays(), p); market.KindOf(err) != market.KindInvalid {
			t.Errorf("Chips(%+v) error %v, want KindInvalid", p, err)
		}
	}
}

func TestChipsReuse(t *testing.T) {
	var c ChipCalculator
	bars := twoDays()
	if _, err := c.Compute(bars, ChipParams{}); err != nil {
		t.Fatalf("Compute error %v", err)
	}
	if a := testing.AllocsPerRun(50, func() { _, _ = c.Compute(bars, ChipParams{}) }); a != 0 {
		t.Errorf("ChipCalculator.Compute(reused) allocs = %v, want 0", a)
	}
	got, _ := c.Compute(bars, ChipParams{})
	checkChips(t, "Compute(reused)", got, twoDaysWant(), 1e-9)
}
