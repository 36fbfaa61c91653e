package indicator

import (
	"strings"
	"testing"

	"mdqs/internal/market"
)

func marksString(ms []Mark) string {
	var b strings.Builder
	for _, m := range ms {
		if m == NoMark {
			b.WriteByte('.')
		} else {
			b.WriteString(m.String())
		}
	}
	return b.String()
}

// The state machine on hand-written inputs: each case isolates one rule.
// Warm-up is 2 unless stated; threshold 1.2; "." is no mark.
func TestMarkRules(t *testing.T) {
	const hot, cold, up, flatVol = 1.5, 1.0, 1.1, 1.0
	tests := []struct {
		name     string
		hist     []float64
		volTrend []float64
		heat     []float64
		warm     int
		want     string
	}{
		{"B needs cross, rising volume and heat",
			[]float64{0, -1, 1}, []float64{up, up, up}, []float64{hot, hot, hot}, 2, "..B"},
		{"B from exactly zero",
			[]float64{0, 0, 1}, []float64{up, up, up}, []float64{hot, hot, hot}, 2, "..B"},
		{"no B without rising volume (trend exactly 1)",
			[]float64{0, -1, 1}, []float64{up, up, flatVol}, []float64{hot, hot, hot}, 2, "..."},
		{"no B when not hot",
			[]float64{0, -1, 1}, []float64{up, up, up}, []float64{hot, hot, 1.19}, 2, "..."},
		{"B at heat exactly the threshold",
			[]float64{0, -1, 1}, []float64{up, up, up}, []float64{hot, hot, 1.2}, 2, "..B"},
		{"no B without a cross (already above)",
			[]float64{1, 1, 2}, []float64{up, up, up}, []float64{hot, hot, hot}, 2, "..."},
		{"an unconfirmed cross is not marked later",
			[]float64{0, -1, 1, 2}, []float64{up, up, flatVol, up}, []float64{hot, hot, hot, hot}, 2, "...."},
		{"no mark before warm-up",
			[]float64{0, -1, 1, 2}, []float64{up, up, up, up}, []float64{hot, hot, hot, hot}, 3, "...."},
		{"S on the first negative bar while long, without volume",
			[]float64{0, -1, 1, 0.5, -0.1, -1}, []float64{up, up, up, 0.5, 0.5, 0.5}, []float64{hot, hot, hot, cold, cold, cold}, 2, "..B.S."},
		{"no S when flat",
			[]float64{0, 1, 0.5, -0.5}, []float64{up, up, up, up}, []float64{hot, hot, hot, hot}, 2, "...."},
		{"S then B again on the next cross",
			[]float64{0, -1, 1, -1, 1}, []float64{up, up, up, up, up}, []float64{hot, hot, hot, hot, hot}, 2, "..BSB"},
		// Long from t2; hist 1, 2 (rising), 1.5 (pullback), 1.8 (turns up, hot) -> A.
		{"A on the turn after a pullback",
			[]float64{0, -1, 1, 2, 1.5, 1.8}, []float64{up, up, up, up, up, up}, []float64{hot, hot, hot, cold, cold, hot}, 2, "..B..A"},
		{"no A when the turn is not hot",
			[]float64{0, -1, 1, 2, 1.5, 1.8}, []float64{up, up, up, up, up, up}, []float64{hot, hot, hot, hot, hot, cold}, 2, "..B..."},
		// A plateau is not a pullback: 2, 2, 2.5 -> no A.
		{"no A after a plateau",
			[]float64{0, -1, 1, 2, 2, 2.5}, []float64{up, up, up, up, up, up}, []float64{hot, hot, hot, hot, hot, hot}, 2, "..B..."},
		// Still rising: no pullback, no A.
		{"no A without a pullback",
			[]float64{0, -1, 1, 2, 3}, []float64{up, up, up, up, up}, []float64{hot, hot, hot, hot, hot}, 2, "..B.."},
		// One A per trough: 1.8 then 2.0 keep rising, the second rise is not a turn.
		{"one A per trough",
			[]float64{0, -1, 1, 2, 1.5, 1.8, 2.0, 1.0, 1.2}, []float64{up, up, up, up, up, up, up, up, up},
			[]float64{hot, hot, hot, hot, hot, hot, hot, hot, hot}, 2, "..B..A..A"},
		// A pullback to exactly 0 is not a cross down (S needs H < 0), and
		// the turn from 0 up to 0.4 is a turn after a pullback: A.
		{"pullback to zero then turn",
			[]float64{0, -1, 1, 0, 0.4}, []float64{up, up, up, up, up}, []float64{hot, hot, hot, hot, hot}, 2, "..B.A"},
		{"no A when flat",
			[]float64{1, 2, 1.5, 1.8}, []float64{up, up, up, up}, []float64{hot, hot, hot, hot}, 2, "...."},
		// NaN makes every rule false and keeps the state: the B at t2
		// survives a NaN at t3, and S still fires at t5.
		{"NaN keeps state",
			[]float64{0, -1, 1, nan, 1, -1}, []float64{up, up, up, nan, up, up}, []float64{hot, hot, hot, nan, hot, hot}, 2, "..B..S"},
		{"NaN heat blocks B",
			[]float64{0, -1, 1}, []float64{up, up, up}, []float64{hot, hot, nan}, 2, "..."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := make([]Mark, len(tc.hist))
			markSeries(got, tc.hist, tc.volTrend, tc.heat, tc.warm, 1.2)
			if s := marksString(got); s != tc.want {
				t.Errorf("markSeries(hist %v) = %s, want %s", tc.hist, s, tc.want)
			}
		})
	}
}

// End to end with small periods so that every number can be checked by
// hand: MACD(2,3,2), volume trend SMA2/SMA3, heat against SMA3, threshold
// 1.2; Warmup = max(3+2-2, 3-1, 3-1, 2) = 3.
func TestMACDMarksHandChecked(t *testing.T) {
	closes := []float64{10, 10, 10, 10, 11, 12, 12.2, 13, 12, 11, 11.5, 12}
	vols := []int64{100, 100, 100, 100, 200, 200, 150, 300, 100, 100, 100, 100}
	// Closes are flat to t3: DIF = DEA = H = 0.
	// t4: EMA2 = (22+10)/3 = 32/3, EMA3 = (22+20)/4 = 21/2, DIF = 1/6,
	//     DEA = (2/6+0)/3 = 1/9, H = 2(1/6-1/9) = 1/9 > 0 and H3 = 0: cross up.
	//     VolTrend = SMA2/SMA3 = 150/(400/3) = 9/8 > 1; Heat = 200/(400/3) = 3/2 >= 1.2 -> B
	// t5: EMA2 = (24+32/3)/3 = 104/9, EMA3 = (24+21)/4 = 45/4, DIF = 11/36,
	//     DEA = (22/36+1/9)/3 = 13/54, H = 2(11/36-13/54) = 7/54 (rising)
	// t6: EMA2 = (24.4+104/9)/3 = 1618/135, EMA3 = (24.4+22.5)/4 = 11.725, DIF = 281/1080,
	//     DEA = (562/1080+13/54)/3 = 137/540, H = 2(281/1080-274/1080) = 7/540 (pullback, > 0)
	//     Heat = 150/(550/3) = 9/11: cold anyway
	// t7: EMA2 = (26+1618/135)/3 = 12.6617..., EMA3 = (26+23.45)/4 = 12.3625, DIF = 1939/6480,
	//     DEA = 2761/9720, H = 59/1944 = 0.03035 > 7/540 = 0.01296 (turns up);
	//     Heat = 300/((200+150+300)/3) = 18/13 = 1.385 >= 1.2 -> A
	// t8: DIF = 1529/38880 = 0.0393, DEA = 7051/58320 = 0.1209, H = -1903/11664 < 0 -> S
	// t9: H = -7897/38880 < 0, flat: nothing.
	// t10: DIF = -106879/1399680, DEA = -164413/2099520, H = 8189/2099520 > 0: a cross up,
	//     but VolTrend = 100/100 = 1 (not > 1) and Heat = 1 < 1.2 -> no B
	// t11: H = 1080311/12597120, no cross (H10 > 0) -> nothing
	bars := dailyBars(closes, vols)
	p := MarkParams{MACD: MACDParams{2, 3, 2}, VolFast: 2, VolSlow: 3, HeatPeriod: 3, HeatThreshold: 1.2}
	if w := p.Warmup(); w != 3 {
		t.Fatalf("Warmup() = %d, want 3", w)
	}
	var got MACDBS
	if err := MACDMarks(&got, bars, p); err != nil {
		t.Fatalf("MACDMarks error %v", err)
	}
	if s, want := marksString(got.Marks), "....B..AS..."; s != want {
		t.Errorf("MACDMarks marks = %s, want %s", s, want)
	}
	checkSeries(t, "Hist", got.Hist[:9], []float64{0, 0, 0, 0, 1.0 / 9, 7.0 / 54, 7.0 / 540, 59.0 / 1944, -1903.0 / 11664}, tol)
	checkSeries(t, "Hist", got.Hist[9:], []float64{-7897.0 / 38880, 8189.0 / 2099520, 1080311.0 / 12597120}, tol)
	// VolTrend = SMA2/SMA3: t2 = 100/100 = 1; t4 = 150/(400/3) = 9/8; t5 = 200/(500/3) = 6/5;
	// t6 = 175/(550/3) = 21/22; t7 = 225/(650/3) = 27/26.
	checkSeries(t, "VolTrend", got.VolTrend[:8], []float64{nan, nan, 1, 1, 9.0 / 8, 6.0 / 5, 21.0 / 22, 27.0 / 26}, tol)
	// Heat = V/SMA3: t4 = 200/(400/3) = 3/2; t5 = 200/(500/3) = 6/5; t6 = 150/(550/3) = 9/11;
	// t7 = 300/(650/3) = 18/13; t8 = 100/(550/3) = 6/11.
	checkSeries(t, "Heat", got.Heat[:9], []float64{nan, nan, 1, 1, 3.0 / 2, 6.0 / 5, 9.0 / 11, 18.0 / 13, 6.0 / 11}, tol)

	// Reuse: a second run over the same bars allocates nothing.
	if a := testing.AllocsPerRun(20, func() { _ = MACDMarks(&got, bars, p) }); a != 0 {
		t.Errorf("MACDMarks(reused dst) allocs = %v, want 0", a)
	}
}

// Default parameters: 40 flat bars, then a 10% step on doubled volume. The
// step bar (t40) is past Warmup 33.
// H39 = 0 and H40 = 1.6*DIF40 > 0 (TestMACDTerminalDefault: DIF = 28/351 per
// yuan of step, DEA = DIF/5). VolTrend = ((4*100+200)/5) / ((9*100+200)/10)
// = 120/110 > 1; Heat = 200 / ((19*100+200)/20) = 200/105 = 1.905 >= 1.2 -> B.
// The price then stays at 11: DIF peaks and decays towards 0 while DEA lags
// above it, so H turns negative once, with no volume needed -> one S.
func TestMACDMarksDefaults(t *testing.T) {
	closes := make([]float64, 80)
	vols := make([]int64, 80)
	for i := range closes {
		closes[i], vols[i] = 10, 100
		if i >= 40 {
			closes[i] = 11
		}
	}
	vols[40] = 200
	var got MACDBS
	if err := MACDMarks(&got, dailyBars(closes, vols), DefaultMarkParams()); err != nil {
		t.Fatalf("MACDMarks error %v", err)
	}
	if got.Marks[40] != Buy {
		t.Errorf("MACDMarks mark at 40 = %q, want B", got.Marks[40])
	}
	if !same(got.Heat[40], 200.0/105, tol) || !same(got.VolTrend[40], 120.0/110, tol) {
		t.Errorf("MACDMarks at 40 = heat %v trend %v, want 200/105 and 120/110", got.Heat[40], got.VolTrend[40])
	}
	sells := 0
	firstNeg := -1
	for i, m := range got.Marks {
		if m == Sell {
			sells++
		}
		if i > 40 && got.Hist[i] < 0 && firstNeg < 0 {
			firstNeg = i
		}
		if m != NoMark && i != 40 && m != Sell {
			t.Errorf("MACDMarks mark at %d = %q, want none", i, m)
		}
	}
	if sells != 1 || firstNeg < 0 || got.Marks[firstNeg] != Sell {
		t.Errorf("MACDMarks sells = %d (first negative hist at %d), want one S there", sells, firstNeg)
	}
}

func TestMarkParamsValidate(t *testing.T) {
	mod := func(f func(*MarkParams)) MarkParams {
		p := DefaultMarkParams()
		f(&p)
		return p
	}
	bad := map[string]MarkParams{
		"macd":           mod(func(p *MarkParams) { p.MACD.Fast = 30 }),
		"vol fast 0":     mod(func(p *MarkParams) { p.VolFast = 0 }),
		"vol slow <=":    mod(func(p *MarkParams) { p.VolSlow = 5 }),
		"heat period":    mod(func(p *MarkParams) { p.HeatPeriod = 300 }),
		"threshold 0":    mod(func(p *MarkParams) { p.HeatThreshold = 0 }),
		"threshold NaN":  mod(func(p *MarkParams) { p.HeatThreshold = nan }),
		"threshold +Inf": mod(func(p *MarkParams) { p.HeatThreshold = 1 / zero() }),
	}
	for name, p := range bad {
		var got MACDBS
		if err := MACDMarks(&got, dailyBars([]float64{1}, []int64{1}), p); market.KindOf(err) != market.KindInvalid {
			t.Errorf("MACDMarks(%s) error %v, want KindInvalid", name, err)
		}
	}
	if err := DefaultMarkParams().Validate(); err != nil {
		t.Errorf("DefaultMarkParams().Validate() = %v, want nil", err)
	}
	if err := MACDMarks(nil, nil, DefaultMarkParams()); market.KindOf(err) != market.KindInvalid {
		t.Errorf("MACDMarks(nil) error %v, want KindInvalid", err)
	}
}

func zero() float64 { return 0 }

func TestMarkString(t *testing.T) {
	for m, want := range map[Mark]string{Buy: "B", Sell: "S", Add: "A", NoMark: "", Mark('x'): ""} {
		if got := m.String(); got != want {
			t.Errorf("Mark(%d).String() = %q, want %q", m, got, want)
		}
	}
}

// Zero volume must give NaN heat and trend, not Inf, and no marks.
func TestMACDMarksZeroVolume(t *testing.T) {
	closes := make([]float64, 50)
	for i := range closes {
		closes[i] = 10 + float64(i%7)
	}
	var got MACDBS
	if err := MACDMarks(&got, dailyBars(closes, make([]int64, 50)), DefaultMarkParams()); err != nil {
		t.Fatalf("MACDMarks error %v", err)
	}
	for i := range closes {
		if got.Heat[i] == got.Heat[i] || got.VolTrend[i] == got.VolTrend[i] || got.Marks[i] != NoMark {
			t.Errorf("MACDMarks(zero volume)[%d] = heat %v trend %v mark %q, want NaN, NaN, none", i, got.Heat[i], got.VolTrend[i], got.Marks[i])
		}
	}
}
