package kline

import (
	"context"
	"math"
	"sync/atomic"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/internal/market"
)

// minutes builds one day's 1-minute bars 09:31..11:30, 13:01..15:00 with
// volume 100 each and close rising by 0.01 a minute.
func minutes(d market.Day) []market.Bar {
	var out []market.Bar
	add := func(h, m int) {
		i := len(out)
		c := 10 + float64(i)*0.01
		out = append(out, market.Bar{Day: d, TS: d.At(h, m, 0).Unix(), Open: c - 0.005, High: c + 0.02, Low: c - 0.02, Close: c,
			Volume: 100, Amount: 100 * c, TurnoverRate: 0.001, LargeOrderNet: 1})
	}
	for t := 9*60 + 31; t <= 11*60+30; t++ {
		add(t/60, t%60)
	}
	for t := 13*60 + 1; t <= 15*60; t++ {
		add(t/60, t%60)
	}
	return out
}

func TestAggregateLabelsAndSums(t *testing.T) {
	d := market.Day(20261123)
	m := minutes(d)
	five := Aggregate(m, market.Min5)
	if len(five) != 48 {
		t.Fatalf("%d five-minute bars, want 48", len(five))
	}
	for i, want := range map[int]string{0: "09:35", 23: "11:30", 24: "13:05", 47: "15:00"} {
		if got := time.Unix(five[i].TS, 0).In(market.Shanghai()).Format("15:04"); got != want {
			t.Errorf("5m bar %d ends %s, want %s", i, got, want)
		}
	}
	first := five[0]
	if first.Volume != 500 || first.Open != m[0].Open || first.Close != m[4].Close || first.High != m[4].High || first.Low != m[0].Low {
		t.Fatalf("first 5m bar = %+v", first)
	}
	if math.Abs(first.TurnoverRate-0.005) > 1e-12 || first.LargeOrderNet != 5 {
		t.Fatalf("first 5m bar sums: turnover %v, large %v", first.TurnoverRate, first.LargeOrderNet)
	}
	day := Aggregate(m, market.Daily)
	if len(day) != 1 || day[0].Volume != 24000 || day[0].TS != d.At(15, 0, 0).Unix() || day[0].Close != m[239].Close {
		t.Fatalf("daily aggregate = %+v", day)
	}
	// A partial session aggregates what is there; a minute without the
	// large-order measure makes the sum unknown, not a silent partial sum.
	part := minutes(d)[:7]
	part[6].LargeOrderNet = math.NaN()
	five = Aggregate(part, market.Min5)
	if len(five) != 2 || five[1].Volume != 200 || !math.IsNaN(five[1].LargeOrderNet) || five[0].LargeOrderNet != 5 {
		t.Fatalf("partial session = %+v", five)
	}
}

func TestGapsAndMerge(t *testing.T) {
	cal := market.DefaultCalendar()
	cov := db.Span{First: 20261102, Last: 20261113}
	tests := []struct {
		from, to market.Day
		want     []db.Span
	}{
		{20261104, 20261110, nil},
		{20261020, 20261110, []db.Span{{First: 20261020, Last: 20261101}}},
		{20261110, 20261120, []db.Span{{First: 20261114, Last: 20261120}}},
		{20261020, 20261120, []db.Span{{First: 20261020, Last: 20261101}, {First: 20261114, Last: 20261120}}},
	}
	for _, tt := range tests {
		got := gaps(cov, true, tt.from, tt.to)
		if len(got) != len(tt.want) {
			t.Fatalf("gaps(%v..%v) = %v, want %v", tt.from, tt.to, got, tt.want)
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Fatalf("gaps(%v..%v) = %v, want %v", tt.from, tt.to, got, tt.want)
			}
		}
	}
	if got := gaps(db.Span{}, false, 20261101, 20261120); len(got) != 1 || got[0] != (db.Span{First: 20261101, Last: 20261120}) {
		t.Fatalf("gaps without coverage = %v", got)
	}
	// Friday's coverage and Monday's fetch touch: nothing trades between.
	if got := MergeCoverage(cal, db.Span{First: 20261116, Last: 20261120}, true, db.Span{First: 20261123, Last: 20261123}); got != (db.Span{First: 20261116, Last: 20261123}) {
		t.Fatalf("merge across a weekend = %v", got)
	}
	// A fetch after a gap of trading days replaces the older coverage.
	if got := MergeCoverage(cal, db.Span{First: 20261102, Last: 20261106}, true, db.Span{First: 20261116, Last: 20261120}); got != (db.Span{First: 20261116, Last: 20261120}) {
		t.Fatalf("merge with a gap = %v", got)
	}
	if got := MergeCoverage(cal, db.Span{First: 20261116, Last: 20261120}, true, db.Span{First: 20261102, Last: 20261106}); got != (db.Span{First: 20261116, Last: 20261120}) {
		t.Fatalf("an older disjoint fetch replaced newer coverage: %v", got)
	}
}

// countingTrends serves a fixed session and counts fetches per code.
type countingTrends struct {
	calls atomic.Int64
	bars  []market.Bar
}

func (c *countingTrends) Trends(ctx context.Context, code market.Code, ndays int) ([]market.Bar, error) {
	c.calls.Add(1)
	return c.bars, nil
}

func TestIntradayRefreshAndEviction(t *testing.T) {
	clock := market.NewFixedClock(time.Date(2026, 11, 23, 10, 0, 0, 0, market.Shanghai()))
	src := &countingTrends{bars: minutes(20261123)[:30]}
	window := market.Window{Start: 9*60 + 25, End: 15 * 60}
	pinned := market.MustCode("600519.SH")
	in := NewIntraday(src, market.DefaultCalendar(), window, clock, IntradayConfig{Watch: []market.Code{pinned}, MaxWatched: 2, RefreshAge: time.Minute})
	ctx := context.Background()
	if _, err := in.Get(ctx, pinned); err != nil {
		t.Fatal(err)
	}
	clock.Advance(30 * time.Second)
	in.Get(ctx, pinned)
	if src.calls.Load() != 1 {
		t.Fatalf("a 30 s old series was fetched again (%d calls)", src.calls.Load())
	}
	clock.Advance(31 * time.Second)
	in.Get(ctx, pinned)
	if src.calls.Load() != 2 {
		t.Fatalf("a 61 s old series inside the window was not refetched (%d calls)", src.calls.Load())
	}
	// Two more codes with room for two: the least recently used unpinned
	// one goes, the pinned one stays.
	a, b := market.MustCode("000001.SZ"), market.MustCode("300750.SZ")
	in.Get(ctx, a)
	in.Get(ctx, b)
	got := map[market.Code]bool{}
	for _, c := range in.Watched() {
		got[c] = true
	}
	if !got[pinned] || !got[b] || got[a] || len(got) != 2 {
		t.Fatalf("watched = %v, want the pinned code and the newest", in.Watched())
	}
	// After the close a series fetched before it is due once, then final.
	clock.Set(time.Date(2026, 11, 23, 15, 5, 0, 0, market.Shanghai()))
	before := src.calls.Load()
	in.Get(ctx, pinned)
	in.Get(ctx, pinned)
	clock.Advance(time.Hour)
	in.Get(ctx, pinned)
	if src.calls.Load() != before+1 {
		t.Fatalf("after the close: %d fetches, want exactly one", src.calls.Load()-before)
	}
	if err := in.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
}
