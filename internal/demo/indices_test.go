package demo

import (
	"cmp"
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"mdqs/internal/adjust"
	"mdqs/internal/market"
)

var indexCodes = []market.Code{market.MustCode("000001.SH"), market.MustCode("000300.SH"), market.MustCode("399001.SZ"), market.MustCode("399006.SZ")}

// The indices' universes: the SH main board, every SZ stock, ChiNext, and
// the 300 largest SH and SZ stocks (all of them at a small scale).
func TestIndexUniverses(t *testing.T) {
	m, _ := newMarket(t, smallConfig(21), at(20261120, 16, 0, 0))
	list := m.Indices()
	if len(list) != 4 {
		t.Fatalf("Indices() = %d indices, want 4", len(list))
	}
	names := map[string]string{"000001.SH": "上证指数", "000300.SH": "沪深300", "399001.SZ": "深证成指", "399006.SZ": "创业板指"}
	for i, ix := range list {
		if ix.Code != indexCodes[i] || ix.Name != names[ix.Code.String()] || len(ix.Members) == 0 {
			t.Fatalf("index %d = %v %q with %d members", i, ix.Code, ix.Name, len(ix.Members))
		}
		if !slices.IsSortedFunc(ix.Members, func(a, b market.Code) int { return cmpCode(a, b) }) {
			t.Errorf("%v: members not in code order", ix.Code)
		}
		for _, c := range ix.Members {
			ok := false
			switch ix.Code.String() {
			case "000001.SH":
				ok = c.Exchange == market.SH && c.Symbol[0] == '6' && c.Symbol[:3] != "688"
			case "399001.SZ":
				ok = c.Exchange == market.SZ
			case "399006.SZ":
				ok = c.Symbol[:3] == "300" || c.Symbol[:3] == "301"
			case "000300.SH":
				ok = c.Exchange != market.BJ
			}
			if !ok {
				t.Fatalf("%v lists %v", ix.Code, c)
			}
		}
	}
	if got := len(list[1].Members); got != 300 {
		t.Errorf("沪深300 has %d members at 600 stocks, want 300", got)
	}
}

func cmpCode(a, b market.Code) int {
	switch {
	case a.String() < b.String():
		return -1
	case a.String() > b.String():
		return 1
	}
	return 0
}

// An index's day is its members' day: the change is their float-cap
// weighted change, the open their weighted open, and volume, amount and
// main-force net their sums; the range lies inside the members' weighted
// range. Days on both sides of the anchor and far back are checked.
func TestIndexBarsAreTheirMembers(t *testing.T) {
	m, _ := newMarket(t, smallConfig(22), at(20270331, 16, 0, 0))
	fs := map[market.Code]float64{}
	for _, s := range m.Stocks() {
		fs[s.Code] = float64(s.FloatShares)
	}
	cal := market.DefaultCalendar()
	days := []market.Day{20150106, 20190620, 20181217, 20261120, 20261214, 20261231, 20270104, 20270330}
	// Every member's two daily bars of each day it is a member, and its
	// price events, read once a stock, its latest day first: the demo
	// keeps a few dozen stocks' series, and one that covers a day covers
	// the days before it. Index by index, day by day, a stock in several
	// indices was made again for each, and again for each later day.
	type memberDay struct {
		code market.Code
		day  market.Day
	}
	membersOn := map[market.Day]map[market.Code][]market.Code{}
	memberDays := map[market.Code][]market.Day{}
	for _, d := range days {
		membersOn[d] = m.IndexMembersOn(d)
		for _, codes := range membersOn[d] {
			for _, c := range codes {
				if !slices.Contains(memberDays[c], d) {
					memberDays[c] = append(memberDays[c], d)
				}
			}
		}
	}
	memberBars := map[memberDay][]market.Bar{}
	exOf := map[market.Code]map[market.Day]adjust.Event{}
	for c, ds := range memberDays {
		slices.SortFunc(ds, func(a, b market.Day) int { return cmp.Compare(b, a) })
		for _, d := range ds {
			memberBars[memberDay{c, d}] = klines(t, m, c, market.Daily, cal.Prev(d), d)
		}
		exOf[c] = exMaps(m, c)
	}
	for _, d := range days {
		prevDay := cal.Prev(d)
		members := membersOn[d]
		for _, ix := range m.Indices() {
			bars := klines(t, m, ix.Code, market.Daily, prevDay, d)
			if len(bars) != 2 || bars[1].Day != d {
				t.Fatalf("%v %v: %d bars", ix.Code, d, len(bars))
			}
			prevLevel, bar := bars[0].Close, bars[1]
			var num, den, numO, numH, numL, amt, mf float64
			var vol int64
			for _, c := range members[ix.Code] {
				mb := memberBars[memberDay{c, d}]
				switch {
				case len(mb) == 0 || mb[len(mb)-1].Day != d:
					continue // not listed yet
				case len(mb) == 1:
					t.Fatalf("%v lists on %v: pick another day", c, d) // its previous close is the issue price
				}
				p, b := refClose(exOf[c], d, mb[0].Close), mb[1]
				w := fs[c]
				num += w * (b.Close - p)
				numO += w * (b.Open - p)
				numH += w * (b.High - p)
				numL += w * (b.Low - p)
				den += w * p
				vol += b.Volume
				amt += b.Amount
				mf += b.LargeOrderNet
			}
			pct := (bar.Close/prevLevel - 1) * 100
			if want := num / den * 100; math.Abs(pct-want) > 0.001 {
				t.Errorf("%v %v: change %.5f %%, members' cap-weighted change %.5f %%", ix.Code, d, pct, want)
			}
			if want := prevLevel * (1 + numO/den); math.Abs(bar.Open-want) > 0.011 {
				t.Errorf("%v %v: open %v, members' weighted open %.3f", ix.Code, d, bar.Open, want)
			}
			if bar.Volume != vol || bar.Amount != amt || bar.LargeOrderNet != mf {
				t.Errorf("%v %v: volume %d amount %.0f flow %.0f; members' sums %d %.0f %.0f", ix.Code, d, bar.Volume, bar.Amount, bar.LargeOrderNet, vol, amt, mf)
			}
			hiB, loB := prevLevel*(1+numH/den), prevLevel*(1+numL/den)
			if bar.High > hiB+0.011 || bar.Low < loB-0.011 || bar.High < max(bar.Open, bar.Close) || bar.Low > min(bar.Open, bar.Close) {
				t.Errorf("%v %v: range %v..%v, open %v close %v, members' weighted range %.2f..%.2f", ix.Code, d, bar.Low, bar.High, bar.Open, bar.Close, loB, hiB)
			}
			if !math.IsNaN(bar.TurnoverRate) {
				t.Errorf("%v %v: turnover %v, want unknown", ix.Code, d, bar.TurnoverRate)
			}
		}
	}
}

// As a stock's, an index's daily bar is the aggregate of its minutes and
// of its five-minute bars, labelled as the exchanges label them.
func TestIndexDailyBarIsTheAggregateOfItsMinutes(t *testing.T) {
	m, _ := newMarket(t, smallConfig(23), at(20270331, 16, 0, 0))
	for _, c := range indexCodes {
		for _, d := range []market.Day{20150105, 20261120, 20270104} {
			daily := klines(t, m, c, market.Daily, d, d)
			one := klines(t, m, c, market.Min1, d, d)
			five := klines(t, m, c, market.Min5, d, d)
			if len(daily) != 1 || len(one) != 240 || len(five) != 48 {
				t.Fatalf("%v %v: %d daily, %d one-minute, %d five-minute bars", c, d, len(daily), len(one), len(five))
			}
			if got := aggregateBars(one); !sameOHLCV(got, daily[0]) {
				t.Fatalf("%v %v: daily bar %+v, aggregate of minutes %+v", c, d, daily[0], got)
			}
			if got := aggregateBars(five); !sameOHLCV(got, daily[0]) {
				t.Fatalf("%v %v: daily bar %+v, aggregate of 5-minute bars %+v", c, d, daily[0], got)
			}
			if one[0].TS != d.At(9, 31, 0).Unix() || one[239].TS != d.At(15, 0, 0).Unix() || five[0].TS != d.At(9, 35, 0).Unix() {
				t.Fatalf("%v %v: bar labels wrong", c, d)
			}
			for i := range one {
				b := one[i]
				if b.Low > min(b.Open, b.Close) || b.High < max(b.Open, b.Close) || b.Volume < 0 || b.Volume%100 != 0 {
					t.Fatalf("%v %v minute %d: %+v", c, d, i, b)
				}
				if i > 0 && b.Open != one[i-1].Close {
					t.Fatalf("%v %v: minute %d opens at %v after a close of %v", c, d, i, b.Open, one[i-1].Close)
				}
			}
		}
	}
}

// The level chain does not depend on the order days are asked for: a
// market asked for one recent day agrees with one that walked ten years.
func TestIndexBarsDoNotDependOnTheOrderAsked(t *testing.T) {
	now := at(20270331, 16, 0, 0)
	a, _ := newMarket(t, smallConfig(24), now)
	b, _ := newMarket(t, smallConfig(24), now)
	for _, c := range indexCodes {
		klines(t, b, c, market.Daily, 0, 0)
	}
	for _, c := range indexCodes {
		for _, d := range []market.Day{20270330, 20261120, 20180102} {
			if fa, fb := fingerprint(t, klines(t, a, c, market.Daily, d, d)), fingerprint(t, klines(t, b, c, market.Daily, d, d)); fa != fb {
				t.Fatalf("%v %v: %s asked alone, %s after the whole history", c, d, fa, fb)
			}
			if fa, fb := fingerprint(t, klines(t, a, c, market.Min1, d, d)), fingerprint(t, klines(t, b, c, market.Min1, d, d)); fa != fb {
				t.Fatalf("%v %v: minute bars differ with the order asked", c, d)
			}
		}
	}
}

// Trends and Klines treat an index as a stock: completed bars only, the
// latest session before today's first minute is yesterday's.
func TestIndexTrendsAndCut(t *testing.T) {
	m, clk := newMarket(t, smallConfig(25), at(20261120, 10, 47, 30))
	c := market.MustCode("000001.SH")
	bars := klines(t, m, c, market.Min1, 20261120, 20261120)
	if len(bars) != 77 || bars[76].TS != at(20261120, 10, 47, 0).Unix() {
		t.Fatalf("%d bars up to 10:47:30, want 77 ending 10:47", len(bars))
	}
	if d := klines(t, m, c, market.Daily, 20261119, 0); len(d) != 1 || d[0].Day != 20261119 {
		t.Fatalf("daily bars before today's close: %+v", d)
	}
	tr, err := m.Trends(context.Background(), c, 2)
	if err != nil || len(tr) != 240+77 || tr[0].Day != 20261119 {
		t.Fatalf("Trends = %d bars, %v", len(tr), err)
	}
	clk.Set(at(20261123, 9, 0, 0))
	if tr, _ := m.Trends(context.Background(), c, 1); len(tr) != 240 || tr[0].Day != 20261120 {
		t.Fatalf("Trends before the open = %d bars from %v, want Friday's 240", len(tr), tr[0].Day)
	}
	if _, err := m.Klines(context.Background(), market.MustCode("000002.SH"), market.Daily, 0, 0); market.KindOf(err) != market.KindNotFound {
		t.Fatalf("an index the demo does not compute: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	fresh, _ := newMarket(t, smallConfig(25), at(20261120, 16, 0, 0))
	if _, err := fresh.Klines(ctx, c, market.Daily, 0, 0); err == nil {
		t.Fatal("a canceled request walked the whole history")
	}
}

// Ten years of an index's daily bars cost one pass over the members a day.
func TestIndexHistoryIsCheap(t *testing.T) {
	if testing.Short() {
		t.Skip("walks ten years")
	}
	m, _ := newMarket(t, smallConfig(26), at(20261120, 16, 0, 0))
	start := time.Now()
	bars := klines(t, m, market.MustCode("000300.SH"), market.Daily, 0, 0)
	if len(bars) < 2400 || time.Since(start) > 20*time.Second {
		t.Fatalf("%d bars in %v", len(bars), time.Since(start))
	}
}

// 沪深300 is reviewed as CSI reviews it: its members change only on the
// trading day after the second Friday of June and December, a handful at
// a time, always 300; the composites gain a stock the day it lists.
func TestIndexReviews(t *testing.T) {
	m, _ := newMarket(t, Config{Seed: 1}, at(20270331, 16, 0, 0))
	hs300 := market.MustCode("000300.SH")
	cal := market.DefaultCalendar()
	prev := m.IndexMembersOn(20260102)[hs300]
	changes := map[market.Day]int{}
	for d := cal.Next(20260102); d <= 20270331; d = cal.Next(d) {
		cur := m.IndexMembersOn(d)[hs300]
		if len(cur) != 300 {
			t.Fatalf("%v: %d members", d, len(cur))
		}
		if !slices.Equal(cur, prev) {
			in := 0
			for _, c := range cur {
				if !slices.Contains(prev, c) {
					in++
				}
			}
			changes[d] = in
		}
		prev = cur
	}
	if len(changes) != 2 || changes[20260615] == 0 || changes[20261214] == 0 || changes[20260615] > 30 || changes[20261214] > 30 {
		t.Errorf("review changes = %v, want a handful on 2026-06-15 and 2026-12-14 only", changes)
	}
	// Between sessions a day takes the session before's members.
	if a, b := m.IndexMembersOn(20261213)[hs300], m.IndexMembersOn(20261211)[hs300]; !slices.Equal(a, b) {
		t.Error("members on Sunday 2026-12-13 differ from Friday's")
	}
	// A composite counts a stock from its listing day.
	sz := market.MustCode("399001.SZ")
	for _, s := range m.Stocks() {
		if s.Code.Exchange != market.SZ || s.Listed <= 20260105 || s.Listed > 20270331 || s.Delisted != 0 {
			continue
		}
		if slices.Contains(m.IndexMembersOn(cal.Prev(s.Listed))[sz], s.Code) || !slices.Contains(m.IndexMembersOn(s.Listed)[sz], s.Code) {
			t.Errorf("%v listed %v: not a 深证成指 member from that day on only", s.Code, s.Listed)
		}
		break
	}
}
