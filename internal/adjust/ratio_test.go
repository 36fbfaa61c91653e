package adjust_test

import (
	"math"
	"testing"

	"mdqs/internal/adjust"
	"mdqs/internal/market"
)

// events002709 reads the 除权除息 rows of another author's decoded gbbq
// (testdata/multiplicative/002709_gbbq_events.csv), stored as float32.
func events002709(t *testing.T) []adjust.Event {
	var out []adjust.Event
	for _, r := range readCSV(t, "multiplicative/002709_gbbq_events.csv") {
		if r["类别"] != "除权除息" {
			continue
		}
		out = append(out, adjust.Event{Day: day(t, r["权息日"]), CashPer10: f32(t, r["分红-前流通盘"]),
			RightsPrice: f32(t, r["配股价-前总股本"]), BonusPer10: f32(t, r["送转股-后流通盘"]), RightsPer10: f32(t, r["配股-后总股本"])})
	}
	return out
}

// TestRatio002709: a published ratio-method qfq series is reproduced on
// every day of the .day file, and the terminal's method is not it.
func TestRatio002709(t *testing.T) {
	events := events002709(t)
	if len(events) != 9 {
		t.Fatalf("%d events, want 9", len(events))
	}
	// Its rows equal the bundled gbbq's up to 2021 (the bundle ends there).
	for i, e := range eventsOf(t, "002709.SZ") {
		if e != events[i] {
			t.Errorf("event %d: bundled %+v, CSV %+v", i, e, events[i])
		}
	}
	bars := barsOf(t, "raw/redmine-2023/sz002709.day")
	asOf := market.Day(20230421) // the CSV's last row
	s, err := adjust.Ratio(events, bars, adjust.QFQ, asOf)
	if err != nil {
		t.Fatal(err)
	}
	ratio := s.Apply(bars)
	affine := factors(t, events, adjust.QFQ, asOf).Apply(bars)
	want := map[market.Day]map[string]string{}
	for _, r := range readCSV(t, "multiplicative/002709_qfq_ratio.csv") {
		want[day(t, r["date"])] = r
	}
	matched, maxGap := 0, 0.0
	for i, b := range ratio {
		w, ok := want[b.Day]
		if !ok {
			t.Fatalf("%s: not in the published series", b.Day)
		}
		for _, f := range ohlc {
			if g, w := field(b, f), num(t, w[f]); g != w {
				t.Errorf("%s: ratio qfq %s = %v, want %v", b.Day, f, g, w)
			}
			maxGap = math.Max(maxGap, math.Abs(field(affine[i], f)-num(t, w[f])))
		}
		matched++
	}
	if matched != 1807 {
		t.Errorf("%d days compared, want 1807", matched)
	}
	// adjust README: the affine method misses this series by up to 0.38.
	if adjust.Round(maxGap) != 0.38 {
		t.Errorf("affine vs ratio: largest gap %v, want 0.38", maxGap)
	}
}

// TestSinaQFQFactor: Sina's qfq factors of 000002 are 1/A of the ratio
// schedule built from the bundled gbbq and the .day closes, to ~5e-9.
func TestSinaQFQFactor(t *testing.T) {
	bars := barsOf(t, "raw/redmine-2023/sz000002.day")
	// akshare recorded them on 2020-12-18; the 2021-08-25 event came later.
	s, err := adjust.Ratio(eventsOf(t, "000002.SZ"), bars, adjust.QFQ, 20201218)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, r := range readCSV(t, "multiplicative/sina_000002_qfq_factor.csv") {
		d := day(t, r["from_date"])
		switch r["check"] {
		case "match":
			g := 1 / s.At(d).A
			if sina := num(t, r["sina_qfq_factor"]); math.Abs(g-sina) > 1e-8 {
				t.Errorf("%s: factor %.10f, Sina %.10f", d, g, sina)
			}
			if c := num(t, r["computed_from_gbbq_and_prevclose"]); math.Abs(g-c) > 6e-11 {
				t.Errorf("%s: factor %.10f, README's %.10f", d, g, c)
			}
			got["match"]++
		default:
			// Needs closes before the first bar (2015-09-02).
			if d >= bars[0].Day {
				t.Errorf("%s: marked %q but the bundle has its closes", d, r["check"])
			}
			got["not_checked"]++
		}
	}
	if got["match"] != 6 || got["not_checked"] != 27 {
		t.Errorf("rows %v, want 6 match, 27 not checked", got)
	}
}

// TestSinaHFQ: Sina's hfq is raw × one factor per event-free stretch,
// rounded like the terminal's.
func TestSinaHFQ(t *testing.T) {
	bars := barsOf(t, "raw/redmine-2023/sz000002.day")
	n := 0
	for _, r := range readCSV(t, "multiplicative/sina_000002_hfq.csv") {
		s := adjust.Schedule{Mode: adjust.HFQ, Steps: []adjust.Step{{Affine: adjust.Affine{A: num(t, r["hfq_factor"])}}}}
		raw := barOn(t, bars, day(t, r["date"]))
		adj := s.Apply([]market.Bar{raw})[0]
		for _, f := range []string{"open", "high", "low"} {
			if field(raw, f) != num(t, r["raw_"+f]) {
				t.Errorf("%s: .day %s %v, source %s", r["date"], f, field(raw, f), r["raw_"+f])
			}
			if g, w := field(adj, f), num(t, r[f]); g != w {
				t.Errorf("%s: hfq %s %v, Sina %v", r["date"], f, g, w)
			}
		}
		n++
	}
	if n != 10 {
		t.Errorf("%d rows, want 10", n)
	}
}

func TestRatioErrors(t *testing.T) {
	bars := []market.Bar{{Day: 20200102, Close: 1}, {Day: 20200101, Close: 1}}
	if _, err := adjust.Ratio(nil, bars, adjust.QFQ, 20200102); err == nil {
		t.Error("unordered bars accepted")
	}
	bars = []market.Bar{{Day: 20200102, Close: 1}}
	// A cash dividend of the whole price leaves no reference price.
	if _, err := adjust.Ratio([]adjust.Event{{Day: 20200103, CashPer10: 10}}, bars, adjust.QFQ, 20200103); err == nil {
		t.Error("non-positive reference price accepted")
	}
	// No bar before the event: it counts as 1.
	s, err := adjust.Ratio([]adjust.Event{{Day: 20200101, CashPer10: 1}}, bars, adjust.HFQ, 0)
	if err != nil || s.At(20200102) != adjust.Identity {
		t.Errorf("event before the first bar: %v, %v", s.At(20200102), err)
	}
}
