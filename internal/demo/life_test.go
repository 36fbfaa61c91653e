package demo

import (
	"context"
	"math"
	"testing"

	"mdqs/internal/market"
)

// eventful finds the stocks of a market with each kind of event.
func eventful(m *Market) (renamed, warned, halted, delisted []*stock) {
	for i := range m.u.stocks {
		s := &m.u.stocks[i]
		if s.life == nil {
			continue
		}
		if s.life.former != "" {
			renamed = append(renamed, s)
		}
		if len(s.life.warnings) > 0 && s.life.delisted == 0 {
			warned = append(warned, s)
		}
		if len(s.life.halts) > 0 {
			halted = append(halted, s)
		}
		if s.life.delisted != 0 {
			delisted = append(delisted, s)
		}
	}
	return
}

func TestEveryKindOfEventHappensAndWellKnownStocksHaveNone(t *testing.T) {
	m, _ := newMarket(t, DefaultConfig(), at(20261120, 16, 0, 0))
	r, w, h, d := eventful(m)
	n := len(m.u.stocks)
	// Rates of the real market: about 5 % renamed, 3 % put under a warning,
	// 6 % suspended at some point, 1 % delisted over the few years around
	// the anchor.
	for _, c := range []struct {
		what string
		got  int
		lo   int
	}{{"renamed", len(r), n / 40}, {"warned", len(w), n / 80}, {"halted", len(h), n / 30}, {"delisted", len(d), n / 200}} {
		if c.got < c.lo || c.got > n/5 {
			t.Errorf("%d stocks %s of %d; want %d..%d", c.got, c.what, n, c.lo, n/5)
		}
	}
	for i := range m.u.stocks {
		if s := &m.u.stocks[i]; s.wk && s.life != nil {
			t.Errorf("well-known %v %s has events %+v", s.code, s.name, *s.life)
		}
	}
}

// A delisted stock trades until the day before its delisting, then leaves
// every list; its history stays.
func TestDelistedStockLeavesTheMarketAndKeepsItsHistory(t *testing.T) {
	m, clk := newMarket(t, smallConfig(5), at(20261120, 16, 0, 0))
	_, _, _, delisted := eventful(m)
	checked := 0
	for _, s := range delisted {
		dl := s.life.delisted
		i, _ := m.index(dl)
		lastDay := m.days[i-1]
		if dl > market.DayOf(clk.Now()) {
			continue
		}
		checked++
		bars := klines(t, m, s.code, market.Daily, lastDay.AddDays(-40), 0)
		if len(bars) == 0 || bars[len(bars)-1].Day != lastDay {
			t.Fatalf("%v delisted %v: daily bars end %v; want its last day %v", s.code, dl, bars[len(bars)-1].Day, lastDay)
		}
		if n := klines(t, m, s.code, market.Min1, lastDay, 0); len(n) != 240 {
			t.Fatalf("%v: %d minute bars from its last day on; want that day's 240", s.code, len(n))
		}
		// Its last weeks are under *ST, with the ±5 % rule of the main boards.
		if name := s.nameOn(lastDay); name[:3] != "*ST" {
			t.Fatalf("%v on its last day is named %q; want *ST", s.code, name)
		}
		listedBefore := false
		for _, q := range quotesAt(t, m, lastDay.At(15, 0, 0)) {
			listedBefore = listedBefore || q.Code == s.code
		}
		for _, q := range quotesAt(t, m, dl.At(15, 0, 0)) {
			if q.Code == s.code {
				t.Fatalf("%v is in the quote list of its delisting day %v", s.code, dl)
			}
		}
		if !listedBefore {
			t.Fatalf("%v is not in the quote list of its last day", s.code)
		}
		if _, ok := m.NamesOn(lastDay)[s.code]; !ok {
			t.Fatalf("%v missing from NamesOn its last day", s.code)
		}
		if _, ok := m.NamesOn(dl)[s.code]; ok {
			t.Fatalf("%v in NamesOn its delisting day", s.code)
		}
		if m.DelistingDays()[s.code] != dl {
			t.Fatalf("DelistingDays()[%v] = %v; want %v", s.code, m.DelistingDays()[s.code], dl)
		}
	}
	if checked == 0 {
		t.Fatal("no delisting before the clock's today in this market")
	}
	// After the delisting, a quote of it says so.
	s := delisted[0]
	clk.Set(s.life.delisted.At(10, 0, 0))
	if _, err := m.Quote(context.Background(), s.code); market.KindOf(err) != market.KindNotFound {
		t.Fatalf("Quote of %v on its delisting day: %v; want not found", s.code, err)
	}
}

// Under a risk warning a main-board stock is named ST or *ST and moves at
// most 5 % a day; on some of those days it closes at the limit.
func TestWarningSpellsCarryTheNameAndTheFivePercentRule(t *testing.T) {
	m, _ := newMarket(t, DefaultConfig(), at(20261231, 16, 0, 0))
	_, warned, _, _ := eventful(m)
	atLimit, days := 0, 0
	for _, s := range warned[:min(len(warned), 12)] {
		w := s.life.warnings[0]
		ev := exMaps(m, s.code)
		bars := klines(t, m, s.code, market.Daily, w.from.AddDays(-20), min(w.to.AddDays(20), 20261231))
		for k := 1; k < len(bars); k++ {
			prev, b := bars[k-1], bars[k]
			pct := int32(10)
			if w.has(b.Day) {
				pct = 5
				days++
			}
			lo, hi := limits(int32(math.Round(refClose(ev, b.Day, prev.Close)*100)), pct)
			c := int32(math.Round(b.Close * 100))
			if c < lo || c > hi || int32(math.Round(b.High*100)) > hi || int32(math.Round(b.Low*100)) < lo {
				t.Fatalf("%v %v (limit %d %%): close %v high %v low %v outside %v..%v", s.code, b.Day, pct, b.Close, b.High, b.Low, lo, hi)
			}
			if pct == 5 && (c == hi || c == lo) {
				atLimit++
			}
		}
		for _, d := range []market.Day{w.from, w.to} {
			base := s.name
			if s.life.former != "" && d < s.life.renamed {
				base = s.life.former
			}
			want := "ST" + base
			if w.star {
				want = "*" + want
			}
			if name := s.nameOn(d); name != want {
				t.Fatalf("%v on %v named %q; want %q", s.code, d, name, want)
			}
		}
		if i, _ := m.index(w.from); s.nameOn(m.days[i-1]) != s.name && s.life.former == "" {
			t.Fatalf("%v named %q the day before its warning", s.code, s.nameOn(m.days[i-1]))
		}
	}
	if days == 0 || atLimit == 0 {
		t.Fatalf("%d warned days, %d at the 5 %% limit; want some of each", days, atLimit)
	}
}

// A suspended stock has no bar and no trade; the quote list shows it with
// the previous close only, and the walk carries its close over the gap.
func TestSuspensionsHaveNoBars(t *testing.T) {
	m, _ := newMarket(t, smallConfig(5), at(20261231, 16, 0, 0))
	_, _, halted, _ := eventful(m)
	checked := 0
	for _, s := range halted {
		h := s.life.halts[0]
		if h.to > 20261231 || h.from < 20200101 {
			continue
		}
		checked++
		bars := klines(t, m, s.code, market.Daily, h.from.AddDays(-10), h.to.AddDays(10))
		for _, b := range bars {
			if h.has(b.Day) {
				t.Fatalf("%v has a bar on %v, inside its suspension %v..%v", s.code, b.Day, h.from, h.to)
			}
		}
		if mins := klines(t, m, s.code, market.Min1, h.from, h.to); len(mins) != 0 {
			t.Fatalf("%v: %d minute bars while suspended", s.code, len(mins))
		}
		var q *market.Quote
		for _, x := range quotesAt(t, m, h.from.At(14, 0, 0)) {
			if x.Code == s.code {
				q = &x
			}
		}
		if q == nil || !math.IsNaN(q.Price) || q.Volume != 0 || !(q.PrevClose > 0) {
			t.Fatalf("%v quoted on %v, a suspended day, as %+v; want listed, no price, no volume", s.code, h.from, q)
		}
		if !m.SuspendedOn(h.from)[s.code] {
			t.Fatalf("SuspendedOn(%v) misses %v", h.from, s.code)
		}
		// The bar before the halt closed where the quote's previous close is.
		before := bars[0]
		for _, b := range bars {
			if b.Day < h.from {
				before = b
			}
		}
		if before.Close != q.PrevClose {
			t.Fatalf("%v: last close before the halt %v, the halted day's previous close %v", s.code, before.Close, q.PrevClose)
		}
	}
	if checked == 0 {
		t.Fatal("no suspension to check")
	}
}

// A renamed stock trades under its former name before the rename day and
// under its name from then on, in the quote list too.
func TestRenameShowsTheNameOfTheDay(t *testing.T) {
	m, _ := newMarket(t, smallConfig(5), at(20261231, 16, 0, 0))
	renamed, _, _, _ := eventful(m)
	checked := 0
	for _, s := range renamed {
		r := s.life.renamed
		i, _ := m.index(r)
		before := m.days[i-1]
		if r > 20261231 || s.haltedOn(before) || s.haltedOn(r) || !s.listedOn(r) {
			continue
		}
		checked++
		names := map[market.Day]string{}
		for _, d := range []market.Day{before, r} {
			for _, q := range quotesAt(t, m, d.At(15, 0, 0)) {
				if q.Code == s.code {
					names[d] = q.Name
				}
			}
		}
		if STless(names[before]) != s.life.former || STless(names[r]) != s.name || s.life.former == s.name {
			t.Fatalf("%v renamed %v: quoted as %q then %q; want %q then %q", s.code, r, names[before], names[r], s.life.former, s.name)
		}
		if m.NamesOn(before)[s.code] != names[before] || m.NamesOn(r)[s.code] != names[r] {
			t.Fatalf("%v: NamesOn disagrees with the quote list around %v", s.code, r)
		}
	}
	if checked == 0 {
		t.Fatal("no rename to check")
	}
}

// STless drops a warning's prefix.
func STless(name string) string {
	for _, p := range []string{"*ST", "ST"} {
		if len(name) > len(p) && name[:len(p)] == p {
			return name[len(p):]
		}
	}
	return name
}
