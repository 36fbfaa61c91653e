package adjust_test

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"mdqs/internal/adjust"
	"mdqs/internal/market"
)

// ExampleFactors is rqalpha#359's point: 600519's close of 2014-07-03,
// 143.26, shows as 102.30 in the terminal's qfq in August 2018.
func ExampleFactors() {
	events := []adjust.Event{
		{Day: 20150717, CashPer10: 43.74, BonusPer10: 1}, // 10派43.74送1
		{Day: 20160701, CashPer10: 61.71},
		{Day: 20170707, CashPer10: 67.87},
		{Day: 20180615, CashPer10: 109.99},
	}
	s, _ := adjust.Factors(events, adjust.QFQ, 20180805)
	f := s.At(20140703)
	fmt.Printf("%.6f·p %+.6f → %.2f\n", f.A, f.B, adjust.Round(f.Price(143.26)))
	// Output: 0.909091·p -27.933364 → 102.30
}

func TestFactorsRules(t *testing.T) {
	ev := func(d market.Day, cash, bonus float64) adjust.Event {
		return adjust.Event{Day: d, CashPer10: cash, BonusPer10: bonus}
	}
	events := []adjust.Event{ev(20200701, 10, 0), ev(20190101, 0, 10), ev(20210701, 20, 0)} // unsorted on purpose
	tests := []struct {
		mode   adjust.Mode
		anchor market.Day
		day    market.Day
		raw    float64
		want   float64
		why    string
	}{
		{adjust.QFQ, 20201231, 20181231, 20, 9, "both past events: 20/2 - 1, the future one ignored"},
		{adjust.QFQ, 20201231, 20190101, 20, 19, "the ex-date itself is already ex"},
		{adjust.QFQ, 20201231, 20200701, 20, 20, "no event after the bar"},
		{adjust.QFQ, 20211231, 20200701, 20, 18, "the 2021 event once it is effective"},
		{adjust.QFQ, 20210701, 20200630, 20, 17, "anchor on the ex-date includes it"},
		{adjust.HFQ, 20180101, 20181231, 20, 20, "nothing before the first ex-date"},
		{adjust.HFQ, 20180101, 20190101, 10, 20, "2·p"},
		{adjust.HFQ, 20180101, 20200701, 10, 22, "2·p + 2·1"},
		{adjust.HFQ, 20190101, 20200701, 10, 11, "an event on the listing day is ignored"},
		{adjust.None, 0, 20200701, 10.123, 10.12, "identity, rounded"},
	}
	for _, tt := range tests {
		s := factors(t, events, tt.mode, tt.anchor)
		if got := adjust.Round(s.At(tt.day).Price(tt.raw)); got != tt.want {
			t.Errorf("%v anchor %s: %s %v → %v, want %v (%s)", tt.mode, tt.anchor, tt.day, tt.raw, got, tt.want, tt.why)
		}
	}
}

// Two ex-dates inside one suspension both apply to the bars before it, by
// date and not by bar (adjust.md §4.2); events of one day compose.
func TestEventsWithoutBars(t *testing.T) {
	bars := []market.Bar{{Day: 20060518, Open: 40, High: 40, Low: 40, Close: 40}, {Day: 20060526, Open: 20, High: 20, Low: 20, Close: 20}}
	twoDays := []adjust.Event{{Day: 20060519, BonusPer10: 10}, {Day: 20060524, BonusPer10: 1.2}}
	sameDay := []adjust.Event{{Day: 20060524, BonusPer10: 10}, {Day: 20060524, BonusPer10: 1.2}}
	for _, events := range [][]adjust.Event{twoDays, sameDay} {
		got := factors(t, events, adjust.QFQ, 20060526).Apply(bars)
		if got[0].Close != adjust.Round(40/2.0/1.12) || got[1].Close != 20 {
			t.Errorf("%v: closes %v, %v", events, got[0].Close, got[1].Close)
		}
		h := factors(t, events, adjust.HFQ, 20010827).Apply(bars)
		if h[0].Close != 40 || h[1].Close != adjust.Round(20*2*1.12) {
			t.Errorf("%v: hfq closes %v, %v", events, h[0].Close, h[1].Close)
		}
	}
}

// hfq = (qfq − B0)/A0 with (A0, B0) the qfq map of the listing day, the
// first bar of this full-history file
// (adjust.md §4.3), on 000001's 24 events since 1991.
func TestHFQFromQFQ(t *testing.T) {
	events := eventsOf(t, "000001.SZ")
	bars := barsOf(t, "raw/rustdx-2021/sz000001.day")
	list, last := bars[0].Day, bars[len(bars)-1].Day
	q := factors(t, events, adjust.QFQ, last)
	h := factors(t, events, adjust.HFQ, list)
	f0 := q.At(list)
	if n := len(h.Steps) - 1; n != 24 {
		t.Errorf("%d hfq steps after listing, want 24", n)
	}
	for _, b := range bars {
		fq, fh := q.At(b.Day), h.At(b.Day)
		want := (fq.Price(b.Close) - f0.B) / f0.A
		if got := fh.Price(b.Close); math.Abs(got-want) > 1e-9*math.Abs(want) {
			t.Fatalf("%s: hfq %v, from qfq %v", b.Day, got, want)
		}
	}
}

func TestApply(t *testing.T) {
	s := factors(t, []adjust.Event{{Day: 20200102, CashPer10: 1}}, adjust.QFQ, 20200103)
	bars := []market.Bar{
		{Day: 20200103, Open: 10, High: 11, Low: 9, Close: 10.5, Volume: 100, Amount: 1000, TurnoverRate: market.Unknown()},
		{Day: 20200101, Open: 10, High: 11, Low: 9, Close: 10.5, Volume: 100, Amount: 1000},
		{Day: 20200102, Open: 10, High: 11, Low: 9, Close: 10.5},
	}
	orig := slices.Clone(bars)
	got := s.Apply(bars)
	if !slices.EqualFunc(bars, orig, sameBar) {
		t.Fatal("Apply changed its input")
	}
	want := []float64{10.5, 10.4, 10.5} // out of order: the lookup copes
	for i, b := range got {
		if b.Close != want[i] || b.Volume != bars[i].Volume || b.Amount != bars[i].Amount || b.Day != bars[i].Day {
			t.Errorf("bar %d: %+v", i, b)
		}
	}
	if !math.IsNaN(got[0].TurnoverRate) {
		t.Error("unknown turnover lost")
	}
	s.ApplyTo(bars, bars) // in place
	if !slices.EqualFunc(bars, got, sameBar) {
		t.Errorf("in place %v, want %v", bars, got)
	}
}

func sameBar(a, b market.Bar) bool { return fmt.Sprint(a) == fmt.Sprint(b) }

func TestRound(t *testing.T) {
	for _, tt := range []struct{ in, want float64 }{
		{8.654, 8.65}, {8.656, 8.66}, {-260.974, -260.97}, {-260.976, -260.98}, {0.125, 0.13}, {-0.125, -0.13}, {0.005, 0.01}, {0.0025, 0},
	} {
		if got := adjust.Round(tt.in); got != tt.want {
			t.Errorf("Round(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestBadEvents(t *testing.T) {
	for _, e := range []adjust.Event{
		{Day: 20200101, CashPer10: math.NaN()},
		{Day: 20200101, BonusPer10: math.Inf(1)},
		{Day: 20200101, BonusPer10: -10},
	} {
		if _, err := adjust.Factors([]adjust.Event{e}, adjust.QFQ, 20210101); err == nil {
			t.Errorf("%+v accepted", e)
		}
	}
	if _, err := adjust.Factors(nil, adjust.Mode(9), 0); err == nil {
		t.Error("unknown mode accepted")
	}
}

func TestParseMode(t *testing.T) {
	for _, m := range []adjust.Mode{adjust.None, adjust.QFQ, adjust.HFQ} {
		if got, err := adjust.ParseMode(m.String()); got != m || err != nil {
			t.Errorf("ParseMode(%q) = %v, %v", m, got, err)
		}
	}
	if _, err := adjust.ParseMode("QFQ"); err == nil {
		t.Error("QFQ accepted: the adj parameter is lower case")
	}
}

// BenchmarkAdjustYear: a year of daily bars (000001, 2020, 243 bars) with
// 10 events spread over it. copy is the cost of not adjusting; factors+apply
// is what a request pays when nothing is cached.
func BenchmarkAdjustYear(b *testing.B) {
	var bars []market.Bar
	for _, bar := range barsOf(b, "raw/redmine-2023/sz000001.day") {
		if bar.Day.Year() == 2020 {
			bars = append(bars, bar)
		}
	}
	var events []adjust.Event
	for i := range 10 {
		events = append(events, adjust.Event{Day: bars[12+i*24].Day, CashPer10: 1.5, BonusPer10: float64(i % 3)})
	}
	asOf := bars[len(bars)-1].Day
	s, err := adjust.Factors(events, adjust.QFQ, asOf)
	if err != nil {
		b.Fatal(err)
	}
	dst := make([]market.Bar, len(bars))
	b.Run("copy", func(b *testing.B) {
		for b.Loop() {
			copy(dst, bars)
		}
	})
	b.Run("apply", func(b *testing.B) {
		for b.Loop() {
			s.ApplyTo(dst, bars)
		}
	})
	fund := s
	fund.Decimals = 3 // a fund's 0.001: math.Pow10 and a division instead of Round's constant
	b.Run("apply-3-decimals", func(b *testing.B) {
		for b.Loop() {
			fund.ApplyTo(dst, bars)
		}
	})
	b.Run("factors+apply", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s, _ := adjust.Factors(events, adjust.QFQ, asOf)
			s.ApplyTo(dst, bars)
		}
	})
	b.Run("hfq", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s, _ := adjust.Factors(events, adjust.HFQ, 0)
			s.ApplyTo(dst, bars)
		}
	})
}

// A fund is quoted to 0.001 and its adjusted prices keep that tick: a
// schedule of 3 decimals rounds to it, the zero schedule to a stock's
// cent. With no event the prices come back unchanged.
func TestApplyRoundsToTheSecurityDecimals(t *testing.T) {
	bars := []market.Bar{{Day: 20200101, Open: 3.762, High: 3.783, Low: 3.707, Close: 3.725}, {Day: 20200103, Close: 3.725}}
	cash := factors(t, []adjust.Event{{Day: 20200102, CashPer10: 0.5}}, adjust.QFQ, 20200103) // 0.05 a share
	none := factors(t, nil, adjust.QFQ, 20200103)
	for _, tt := range []struct {
		name     string
		s        adjust.Schedule
		decimals int
		want     [2]float64 // the two closes
	}{
		{"a stock's cent", cash, 0, [2]float64{3.68, 3.73}},
		{"a fund's 0.001", cash, 3, [2]float64{3.675, 3.725}},
		{"a fund without events", none, 3, [2]float64{3.725, 3.725}},
	} {
		tt.s.Decimals = tt.decimals
		got := tt.s.Apply(bars)
		if got[0].Close != tt.want[0] || got[1].Close != tt.want[1] {
			t.Errorf("%s: closes %v, %v; want %v", tt.name, got[0].Close, got[1].Close, tt.want)
		}
		if tt.name == "a fund without events" && (got[0].Open != 3.762 || got[0].High != 3.783 || got[0].Low != 3.707) {
			t.Errorf("%s: %+v", tt.name, got[0])
		}
	}
	if got := adjust.RoundTo(3.72451, 3); got != 3.725 {
		t.Errorf("RoundTo(3.72451, 3) = %v, want 3.725", got)
	}
}
