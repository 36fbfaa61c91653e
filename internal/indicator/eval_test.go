package indicator

import (
	"testing"

	"mdqs/internal/market"
)

func TestEval(t *testing.T) {
	bars := dailyBars([]float64{10, 11, 12, 13, 14}, []int64{100, 200, 300, 400, 500})
	specs, err := ParseList("ma3,EMA3,vma2,macd")
	if err != nil {
		t.Fatalf("ParseList error %v", err)
	}
	cols, err := Eval(bars, specs)
	if err != nil {
		t.Fatalf("Eval error %v", err)
	}
	var m MACDSeries
	_ = MACD(&m, []float64{10, 11, 12, 13, 14}, DefaultMACDParams(), SeedFirst)
	want := []Column{
		// (10+11+12)/3 = 11, then 12, 13
		{"ma3", []float64{nan, nan, 11, 12, 13}},
		// 10, (22+20)/4 = 10.5, (24+21)/4 = 11.25, (26+22.5)/4 = 12.125, (28+24.25)/4 = 13.0625
		{"ema3", []float64{10, 10.5, 11.25, 12.125, 13.0625}},
		// (100+200)/2 = 150, 250, 350, 450
		{"vma2", []float64{nan, 150, 250, 350, 450}},
		{"macd_dif", m.DIF}, {"macd_dea", m.DEA}, {"macd_hist", m.Hist},
	}
	if len(cols) != len(want) {
		t.Fatalf("Eval = %d columns, want %d", len(cols), len(want))
	}
	for i, w := range want {
		if cols[i].Name != w.Name {
			t.Errorf("Eval column %d = %q, want %q", i, cols[i].Name, w.Name)
		}
		checkSeries(t, "Eval "+w.Name, cols[i].Values, w.Values, tol)
	}
	// DIF at bar 1: 10 + 2/13 - (10 + 2/27) = 28/351, as in TestMACDTerminalDefault.
	if !same(cols[3].Values[1], 28.0/351, tol) {
		t.Errorf("Eval macd_dif[1] = %v, want 28/351", cols[3].Values[1])
	}
	if got := Lookback(specs); got != 121 {
		t.Errorf("Lookback(%v) = %d, want 121 (macd)", specs, got)
	}
}

func TestEvalErrors(t *testing.T) {
	bars := dailyBars([]float64{10, 11}, nil)
	for name, specs := range map[string][]Spec{
		"duplicate": {{SpecMA, 5}, {SpecMA, 5}},
		"invalid":   {{SpecEMA, 0}},
	} {
		if _, err := Eval(bars, specs); market.KindOf(err) != market.KindInvalid {
			t.Errorf("Eval(%s %v) error %v, want KindInvalid", name, specs, err)
		}
	}
	if cols, err := Eval(bars, nil); cols != nil || err != nil {
		t.Errorf("Eval(no specs) = %v, %v, want nil, nil", cols, err)
	}
}
