package demo

import (
	"math"
	"math/big"
	"slices"
	"strconv"

	"mdqs/internal/adjust"
	"mdqs/internal/market"
	"mdqs/internal/tdx"
)

// Ex-dates in the price walk. On a stock's ex-date (除权除息日) the
// exchange does not compare the day's prices with the previous close but
// with its reference price (除权参考价), the previous close mapped by the
// event: per 10 shares,
//
//	ref = (10·close − cash + rights price·rights) / (10 + bonus + rights)
//
// rounded to the cent, the map adjust.Event.Ex and the terminal's
// 前复权 apply. The demo's walk does the same: the day's return, its
// limits, its open and its paths start from the reference price, which
// quotes and the K-line's previous close report; so raw bars drop by the
// event on its ex-date and 前复权 runs on across it as on any other day.
// Walking back from the anchor, the close before an ex-date is the one
// whose reference price the day moved from (cumOf).
//
// The walk's pull toward the stock's base price follows the share events
// (bonus shares and rights) too, so that a 10-for-10 bonus halves the
// price level the walk reverts to instead of being pulled back to the old
// one. Share counts stay as they are: the demo's float and total shares
// are today's on every day.

// exEvent is one of a stock's price events (gbbq category 1) on timeline
// day i, with the values the gbbq stores and its map p ↦ a·p + b (yuan).
type exEvent struct {
	i    int
	f    [4]float32 // cash per 10, rights price, bonus per 10, rights per 10
	m    float64    // (10 + bonus + rights) / 10: how many shares one becomes
	a, b float64
}

func newExEvent(i int, f [4]float32) exEvent {
	// As adjust.Event.Ex computes it, from the values as written (0.55,
	// not the float32's 0.550000011920929), each product rounded on its own
	// so that no platform fuses a multiply-add (rng.go).
	cash, price, bonus, rights := adjust.Written(float64(f[0])), adjust.Written(float64(f[1])), adjust.Written(float64(f[2])), adjust.Written(float64(f[3]))
	m := (10 + bonus + rights) / 10
	c := (cash - float64(price*rights)) / 10
	return exEvent{i: i, f: f, m: m, a: 1 / m, b: -c / m}
}

// ref is the reference price, in cents, of the ex-date for a previous
// close p (cents), rounded half up as the exchanges round it and as
// adjust rounds the map, never below a cent. A value the float map puts
// within a hair of a half cent (10.36 − 0.055 = 10.305) is settled in
// exact arithmetic on the written decimals, not by float noise.
func (e *exEvent) ref(p int32) int32 {
	x := float64(float64(e.a*(float64(p)/100))+e.b) * 100
	n := math.Round(x)
	if math.Abs(math.Abs(x-n)-0.5) < 1e-6 {
		n = e.exactRef(p)
	}
	return max(1, int32(n))
}

// exactRef is ref in rationals: (10·p/100 − cash + price·rights) /
// (10 + bonus + rights), in cents, halves up (a price is positive).
func (e *exEvent) exactRef(p int32) float64 {
	w := func(v float32) *big.Rat {
		r, _ := new(big.Rat).SetString(strconv.FormatFloat(float64(v), 'g', -1, 32))
		return r
	}
	cash, price, bonus, rights := w(e.f[0]), w(e.f[1]), w(e.f[2]), w(e.f[3])
	num := new(big.Rat).SetFrac64(int64(p), 10) // 10·p/100 yuan
	num.Sub(num, cash).Add(num, new(big.Rat).Mul(price, rights))
	den := new(big.Rat).Add(big.NewRat(10, 1), bonus)
	den.Add(den, rights)
	cents := num.Quo(num, den).Mul(num, big.NewRat(100, 1))
	half := cents.Add(cents, big.NewRat(1, 2))
	q := new(big.Int).Quo(half.Num(), half.Denom())
	return float64(q.Int64())
}

// exOn is the stock's price event on timeline day i, nil when none.
func (s *stock) exOn(i int) *exEvent {
	ex := s.ex
	if len(ex) == 0 || i < ex[0].i || i > ex[len(ex)-1].i {
		return nil
	}
	lo, hi := 0, len(ex)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if ex[m].i < i {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(ex) && ex[lo].i == i {
		return &ex[lo]
	}
	return nil
}

// refOf is day i's previous close as the exchange states it: the close of
// the day before, mapped when day i is an ex-date.
func (s *stock) refOf(i int, prev int32) int32 { return refWith(s.exOn(i), prev) }

// refWith is refOf with the day's event (nil: none) already found.
func refWith(e *exEvent, prev int32) int32 {
	if e != nil {
		return e.ref(prev)
	}
	return prev
}

// exCursor finds the price events of one day for stocks asked in code
// order, the universe walk's order: a step over the day's few events
// instead of a search per stock.
type exCursor struct {
	evs []dayEx
	k   int
}

// dayEx is stock si's event ev of a day.
type dayEx struct {
	si int32
	ev *exEvent
}

// at is stock si's event of the cursor's day, nil when none; si must not
// decrease from one call to the next.
func (c *exCursor) at(si int) *exEvent {
	for c.k < len(c.evs) && int(c.evs[c.k].si) < si {
		c.k++
	}
	if c.k < len(c.evs) && int(c.evs[c.k].si) == si {
		return c.evs[c.k].ev
	}
	return nil
}

// exCursor is a cursor over timeline day i's events.
func (m *Market) exCursor(i int) exCursor { return exCursor{evs: m.exDays[i]} }

// cumOf is the close of the day before day i, walking back: ref is the
// previous close the day's move started from (stepBack's), c the day's
// close. On an ex-date it is the close whose reference price is nearest
// ref while c stays inside the limits of that reference price.
func (s *stock) cumOf(i int, d market.Day, ref, c int32) int32 {
	return s.cumWith(s.exOn(i), d, ref, c)
}

// cumWith is cumOf with the day's event (nil: none) already found.
func (s *stock) cumWith(e *exEvent, d market.Day, ref, c int32) int32 {
	if e == nil {
		return ref
	}
	p := max(1, int32(math.Round(float64(float64(ref)*e.m)-float64(e.b*e.m)*100)))
	lo, hi := predecessors(c, s.limitOn(d))
	for n := 0; n < 64 && e.ref(p) < lo; n++ {
		p++
	}
	for n := 0; n < 64 && e.ref(p) > hi && p > 1; n++ {
		p--
	}
	return p
}

// target is the price the walk pulls day i's prices toward: the base
// price, at the anchor's share count, carried across the share events
// between day i and the day the walk starts from (baseIdx).
func (s *stock) target(i int) float64 {
	t := float64(s.base)
	if !s.shareEvents {
		return t
	}
	for k := range s.ex {
		e := &s.ex[k]
		switch {
		case e.m == 1:
		case i < e.i && e.i <= s.baseIdx:
			t = mul(t, e.m)
		case s.baseIdx < e.i && e.i <= i:
			t /= e.m
		}
	}
	return t
}

// buildEx places every stock's price events on the timeline, through the
// horizon (ActionsAsOf shows those of a day), and the day each walk
// starts from. It runs once the lives and the rights issue are drawn.
func (m *Market) buildEx() {
	// The first timeline index on or after each calendar day of the
	// timeline, by days since its first day.
	e0 := m.days[0].EpochDays()
	m.e0 = e0
	m.ceil = make([]int32, m.days[len(m.days)-1].EpochDays()-e0+1)
	k := 0
	for e := range m.ceil {
		for m.days[k].EpochDays() < e0+int64(e) {
			k++
		}
		m.ceil[e] = int32(k)
	}
	y0, y1 := m.days[0].Year(), m.days[len(m.days)-1].Year()
	jan5 := make([]int64, y1-y0+1)
	for y := range jan5 {
		jan5[y] = market.NewDay(y0+y, 1, 5).EpochDays()
	}
	count := make([]int32, len(m.days))
	total := 0
	for si := range m.u.stocks {
		s := &m.u.stocks[si]
		s.baseIdx = s.first - 1 // listed after the anchor: its issue price
		if a := min(m.anchor, s.last); s.first <= a {
			s.baseIdx = a
		}
		s.ex = m.exEvents(int32(si), y0, jan5)
		for _, e := range s.ex {
			s.shareEvents = s.shareEvents || e.m != 1
			count[e.i]++
		}
		total += len(s.ex)
	}
	// Each day's events in code order, sliced from one array.
	all := make([]dayEx, total)
	m.exDays = make([][]dayEx, len(m.days))
	for i, n := range count {
		m.exDays[i], all = all[:0:n], all[n:]
	}
	for si := range m.u.stocks {
		s := &m.u.stocks[si]
		for k := range s.ex {
			e := &s.ex[k]
			m.exDays[e.i] = append(m.exDays[e.i], dayEx{int32(si), e})
		}
	}
}

// ceilEpoch is the first timeline index on or after a day given as days
// since 1970-01-01 (len(days) past the timeline's end).
func (m *Market) ceilEpoch(day int64) int {
	e := day - m.e0
	switch {
	case e < 0:
		return 0
	case e >= int64(len(m.ceil)):
		return len(m.days)
	}
	return int(m.ceil[e])
}

// exEvents are a stock's price events (see actions.go for what they are),
// by day: a drawn dividend most years, with bonus shares on a few, and the
// market's rights issue joined to the dividend of its day. jan5 holds 5
// January of each timeline year from y0, as days since 1970.
func (m *Market) exEvents(si int32, y0 int, jan5 []int64) []exEvent {
	s := &m.u.stocks[si]
	ps := newStream(hash2(s.key, tagActions), 0)
	payer := ps.unit() < 0.8 && s.eps > 0
	// Bonus shares (送转) come from the dearer stocks, as in the market:
	// none priced under 10 yuan at the anchor halves its price.
	bonus := ps.unit() < 0.1 && s.base >= 1000
	payout := ps.between(0.15, 0.5)
	offset := ps.intn(350) // days after 5 January
	if ps.unit() < 0.6 {
		offset = 116 + ps.intn(90) // 1 May to 29 July
	}
	var out []exEvent
	if payer {
		out = make([]exEvent, 0, len(jan5)+1)
	}
	for y := y0; payer && y < y0+len(jan5); y++ {
		ys := newStream(hash2(s.key, tagActions), uint64(y))
		i := m.ceilEpoch(jan5[y-y0] + int64(offset+ys.intn(15)-7))
		if i >= len(m.days) {
			break
		}
		if i <= s.first || i > s.last || s.haltedOn(m.days[i]) {
			continue // an ex-date is a day the stock trades
		}
		cash := round2(mul(mul(mul(10, s.eps), payout), ys.between(0.8, 1.2)))
		var shares float32
		if bonus && ys.unit() < 0.4 {
			shares = [...]float32{2, 3, 4, 5, 10}[ys.intn(5)]
		}
		if cash <= 0 && shares == 0 {
			continue
		}
		out = append(out, newExEvent(i, [4]float32{float32(cash), 0, shares, 0}))
	}
	if r := m.rights; r.si == si {
		// The terminal keeps one 除权除息 record a day, with cash and
		// rights side by side.
		k, found := slices.BinarySearchFunc(out, r.day, func(e exEvent, i int) int { return e.i - i })
		if found {
			f := out[k].f
			f[1], f[3] = r.price, 3
			out[k] = newExEvent(r.day, f)
		} else {
			out = slices.Insert(out, k, newExEvent(r.day, [4]float32{0, r.price, 0, 3}))
		}
	}
	return out
}

// gbbqEvent is the event as a gbbq record of code, its values as the
// decoder reads the file's float32s (tdx.Decimal32).
func (e *exEvent) gbbqEvent(code market.Code, day market.Day) tdx.GBBQEvent {
	var f [4]float64
	for i, v := range e.f {
		f[i] = tdx.Decimal32(v)
	}
	return tdx.GBBQEvent{Code: code, Day: day, Category: tdx.Dividend, F: f}
}
