package indicator

import (
	"testing"

	"mdqs/internal/market"
)

func TestMACDTerminalSmall(t *testing.T) {
	// MACD(2,3,2) on closes 10, 12, 11, 13, terminal convention.
	// EMA2: Y = (2X + Y')/3: 10, (24+10)/3 = 34/3, (22+34/3)/3 = 100/9, (26+100/9)/3 = 334/27
	// EMA3: Y = (2X + 2Y')/4: 10, (24+20)/4 = 11, (22+22)/4 = 11, (26+22)/4 = 12
	// DIF:  0, 34/3-11 = 1/3, 100/9-11 = 1/9, 334/27-12 = 10/27
	// DEA = EMA2(DIF): 0, (2/3+0)/3 = 2/9, (2/9+2/9)/3 = 4/27, (20/27+4/27)/3 = 8/27
	// Hist = 2(DIF-DEA): 0, 2(3/9-2/9) = 2/9, 2(3/27-4/27) = -2/27, 2(10/27-8/27) = 4/27
	var m MACDSeries
	if err := MACD(&m, []float64{10, 12, 11, 13}, MACDParams{2, 3, 2}, SeedFirst); err != nil {
		t.Fatalf("MACD error %v", err)
	}
	checkSeries(t, "MACD(2,3,2).DIF", m.DIF, []float64{0, 1.0 / 3, 1.0 / 9, 10.0 / 27}, tol)
	checkSeries(t, "MACD(2,3,2).DEA", m.DEA, []float64{0, 2.0 / 9, 4.0 / 27, 8.0 / 27}, tol)
	checkSeries(t, "MACD(2,3,2).Hist", m.Hist, []float64{0, 2.0 / 9, -2.0 / 27, 4.0 / 27}, tol)
}

func TestMACDTerminalDefault(t *testing.T) {
	// MACD(12,26,9) on 10, 10, 10, 11, 11. Flat bars give exactly 0.
	// t3: EMA12 = (22 + 11*10)/13 = 10 + 2/13; EMA26 = (22 + 25*10)/27 = 10 + 2/27
	//     DIF = 2/13 - 2/27 = (54-26)/351 = 28/351
	//     DEA = (2*28/351 + 8*0)/10 = 28/1755;  Hist = 2(28/351 - 28/1755) = 224/1755
	// t4: EMA12 = (22 + 11(10+2/13))/13 = 10 + 48/169
	//     EMA26 = (22 + 25(10+2/27))/27 = 10 + 104/729
	//     DIF = 48/169 - 104/729 = (34992-17576)/123201 = 17416/123201
	//     DEA = (2*17416/123201 + 8*28/1755)/10 = 126392/3080025
	//     Hist = 2(17416/123201 - 126392/3080025) = 618016/3080025
	var m MACDSeries
	if err := MACD(&m, []float64{10, 10, 10, 11, 11}, DefaultMACDParams(), SeedFirst); err != nil {
		t.Fatalf("MACD error %v", err)
	}
	checkSeries(t, "MACD.DIF", m.DIF, []float64{0, 0, 0, 28.0 / 351, 17416.0 / 123201}, tol)
	checkSeries(t, "MACD.DEA", m.DEA, []float64{0, 0, 0, 28.0 / 1755, 126392.0 / 3080025}, tol)
	checkSeries(t, "MACD.Hist", m.Hist, []float64{0, 0, 0, 224.0 / 1755, 618016.0 / 3080025}, tol)
}

func TestMACDTALib(t *testing.T) {
	// ta-lib TA_MACD(2,3,2) on 10, 12, 11, 14, 13, 15.
	// Slow EMA3 (k=1/2) is seeded at t2 = (10+12+11)/3 = 11;
	//   t3 = 11 + (14-11)/2 = 12.5; t4 = 12.5 + (13-12.5)/2 = 12.75; t5 = 12.75 + (15-12.75)/2 = 13.875
	// Fast EMA2 (k=2/3) is seeded at the same bar with (12+11)/2 = 11.5;
	//   t3 = 11.5 + 2/3(14-11.5) = 79/6; t4 = 79/6 + 2/3(13-79/6) = 235/18;
	//   t5 = 235/18 + 2/3(15-235/18) = 775/54
	// DIF: t2 = 1/2, t3 = 79/6-25/2 = 2/3, t4 = 235/18-51/4 = 11/36, t5 = 775/54-111/8 = 103/216
	// DEA (k=2/3) seeded at t3 = (1/2+2/3)/2 = 7/12;
	//   t4 = 7/12 + 2/3(11/36-7/12) = 43/108; t5 = 43/108 + 2/3(103/216-43/108) = 73/162
	// ta-lib reports nothing before t3, the DEA seed.
	// Hist = 2(DIF-DEA): t3 = 2(2/3-7/12) = 1/6; t4 = 2(11/36-43/108) = -5/27;
	//   t5 = 2(103/216-73/162) = 17/324
	var m MACDSeries
	if err := MACD(&m, []float64{10, 12, 11, 14, 13, 15}, MACDParams{2, 3, 2}, SeedSMA); err != nil {
		t.Fatalf("MACD error %v", err)
	}
	checkSeries(t, "MACD(SeedSMA).DIF", m.DIF, []float64{nan, nan, nan, 2.0 / 3, 11.0 / 36, 103.0 / 216}, tol)
	checkSeries(t, "MACD(SeedSMA).DEA", m.DEA, []float64{nan, nan, nan, 7.0 / 12, 43.0 / 108, 73.0 / 162}, tol)
	checkSeries(t, "MACD(SeedSMA).Hist", m.Hist, []float64{nan, nan, nan, 1.0 / 6, -5.0 / 27, 17.0 / 324}, tol)
}

// ta-lib's default (12,26,9) on a ramp: the lines are NaN up to bar 32 and
// defined from bar 33 = 26+9-2, ta-lib's MACD lookback.
func TestMACDTALibLookback(t *testing.T) {
	closes := make([]float64, 40)
	for i := range closes {
		closes[i] = 10 + float64(i)/10
	}
	var m MACDSeries
	if err := MACD(&m, closes, DefaultMACDParams(), SeedSMA); err != nil {
		t.Fatalf("MACD error %v", err)
	}
	for i, v := range m.DEA {
		if defined := v == v; defined != (i >= 33) {
			t.Errorf("MACD(SeedSMA).DEA[%d] = %v, want defined only from 33", i, v)
		}
	}
	// On a ramp of slope s an EMA(n) seeded with the SMA lags by exactly
	// (n-1)/2*s, and the recursion keeps that lag: DIF = s*(26-12)/2 = 0.7,
	// DEA = 0.7, Hist = 0 from the first reported bar.
	for i := 33; i < 40; i++ {
		if !same(m.DIF[i], 0.7, 1e-9) || !same(m.Hist[i], 0, 1e-9) {
			t.Errorf("MACD(SeedSMA) on ramp at %d = DIF %v Hist %v, want 0.7 and 0", i, m.DIF[i], m.Hist[i])
		}
	}
}

func TestMACDErrors(t *testing.T) {
	for _, p := range []MACDParams{{0, 26, 9}, {12, 251, 9}, {12, 26, 0}, {26, 12, 9}, {12, 12, 9}} {
		var m MACDSeries
		if err := MACD(&m, []float64{1, 2}, p, SeedFirst); market.KindOf(err) != market.KindInvalid {
			t.Errorf("MACD(%+v) error %v, want KindInvalid", p, err)
		}
	}
	if err := MACD(nil, []float64{1}, DefaultMACDParams(), SeedFirst); market.KindOf(err) != market.KindInvalid {
		t.Errorf("MACD(nil dst) error %v, want KindInvalid", err)
	}
	var m MACDSeries
	if err := MACD(&m, []float64{1}, DefaultMACDParams(), Seed(7)); market.KindOf(err) != market.KindInvalid {
		t.Errorf("MACD(Seed(7)) error %v, want KindInvalid", err)
	}
}
