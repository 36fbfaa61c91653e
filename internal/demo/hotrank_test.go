package demo

import (
	"context"
	"reflect"
	"testing"

	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

var infoDay = market.Day(20261120) // a Friday

func hotPage(t *testing.T, m *Market, day market.Day, page, size int) upstream.HotRankPage {
	t.Helper()
	p, err := m.HotRankPage(context.Background(), day, page, size)
	if err != nil {
		t.Fatalf("HotRankPage(%v, %d, %d): %v", day, page, size, err)
	}
	return p
}

func TestHotRankIsAConsistentList(t *testing.T) {
	m, _ := newMarket(t, smallConfig(7), at(infoDay, 20, 0, 0))
	full := hotPage(t, m, infoDay, 1, 100)
	if len(full.Rows) != HotRankDepth {
		t.Fatalf("%d rows, want %d", len(full.Rows), HotRankDepth)
	}
	names := map[market.Code]Stock{}
	for _, s := range m.Stocks() {
		names[s.Code] = s
	}
	seen := map[market.Code]bool{}
	for i, r := range full.Rows {
		s, ok := names[r.Code]
		if r.Rank != i+1 || seen[r.Code] || !ok || s.Name != r.Name || s.Listed > infoDay {
			t.Fatalf("row %d: %+v (stock %+v)", i, r, s)
		}
		seen[r.Code] = true
	}
	if !full.At.Equal(at(infoDay, 15, 0, 0)) {
		t.Errorf("a past evening's list is as of %v, want the close", full.At)
	}
	// Pages are slices of the one list; nothing past its depth.
	p3 := hotPage(t, m, infoDay, 3, 20)
	if !reflect.DeepEqual(p3.Rows, full.Rows[40:60]) || p3.Page != 3 || p3.Size != 20 {
		t.Errorf("page 3 of 20 is not rows 41-60")
	}
	if p := hotPage(t, m, infoDay, 2, 100); len(p.Rows) != 0 {
		t.Errorf("page 2 of 100 has %d rows, want none (the list is 100 deep)", len(p.Rows))
	}
	// Deterministic: another market of the same config agrees.
	m2, _ := newMarket(t, smallConfig(7), at(infoDay, 20, 0, 0))
	if !reflect.DeepEqual(hotPage(t, m2, infoDay, 1, 100).Rows, full.Rows) {
		t.Error("two markets of one config rank differently")
	}
	if reflect.DeepEqual(hotPage(t, m, infoDay.AddDays(-1), 1, 100).Rows, full.Rows) {
		t.Error("two days have the same list")
	}
}

// The list follows the prices: the ranked stocks moved more than the
// market did, and a stock at its limit is ranked.
func TestHotRankFollowsPrices(t *testing.T) {
	m, _ := newMarket(t, smallConfig(11), at(infoDay, 20, 0, 0))
	quotes := quotesAt(t, m, at(infoDay, 15, 0, 0))
	pct := map[market.Code]float64{}
	all := 0.0
	for _, q := range quotes {
		pct[q.Code] = abs(q.Pct)
		all += abs(q.Pct)
	}
	all /= float64(len(quotes))
	rows := hotPage(t, m, infoDay, 1, 100).Rows
	top := 0.0
	for _, r := range rows[:20] {
		top += pct[r.Code]
	}
	if top /= 20; top < 2*all {
		t.Errorf("mean |pct| of the top 20 is %.2f, of the market %.2f: the list ignores the prices", top, all)
	}
	ranked := map[market.Code]bool{}
	for _, r := range rows {
		ranked[r.Code] = true
	}
	for _, s := range m.u.stocks {
		if q, ok := pct[s.code]; ok && q >= float64(s.limit)-0.05 && !ranked[s.code] {
			t.Errorf("%s at its %d%% limit is not ranked", s.code, s.limit)
		}
	}
}

func TestHotRankToday(t *testing.T) {
	m, clk := newMarket(t, smallConfig(7), at(infoDay, 10, 30, 0))
	morning := hotPage(t, m, infoDay, 1, 50)
	if !morning.At.Equal(at(infoDay, 10, 30, 0)) {
		t.Errorf("today's list is as of %v, want now", morning.At)
	}
	clk.Set(at(infoDay, 14, 0, 0))
	if reflect.DeepEqual(hotPage(t, m, infoDay, 1, 50).Rows, morning.Rows) {
		t.Error("the list did not change between 10:30 and 14:00")
	}
	for _, tc := range []struct {
		day        market.Day
		page, size int
	}{{infoDay.AddDays(1), 1, 10}, {infoDay, 0, 10}, {infoDay, 1, 0}, {infoDay, 1, 101}} {
		if _, err := m.HotRankPage(context.Background(), tc.day, tc.page, tc.size); market.KindOf(err) != market.KindInvalid {
			t.Errorf("HotRankPage(%v, %d, %d) = %v, want invalid", tc.day, tc.page, tc.size, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.HotRankPage(ctx, infoDay, 1, 10); upstream.KindOf(err) != upstream.KindCanceled {
		t.Errorf("canceled: %v", err)
	}
}
