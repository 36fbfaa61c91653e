package demo

import (
	"time"

	"cmp"
	"context"
	"math"
	"slices"
	"sync"

	"mdqs/internal/market"
)

// Stock indices: 上证指数 000001.SH (the SH main board), 深证成指
// 399001.SZ (every SZ stock), 创业板指 399006.SZ (ChiNext 300xxx/301xxx)
// and 沪深300 000300.SH (300 SH and SZ stocks, ST stocks left out, reviewed
// twice a year as CSI reviews it: effective the trading day after the
// second Friday of June and of December; see reviewTop). Each is float-cap
// weighted over the members listed by the day, as the boards are:
//
//	close(d) = close(d-1) * sum(fs*c) / sum(fs*p)    over members with a previous close p
//	open(d)  = close(d-1) * sum(fs*o) / sum(fs*p)
//
// so a day's percent change is exactly the members' cap-weighted change,
// and levels chain from a base level at the anchor close, forward and
// backward, like the boards' levels. Volume, amount and main-force net are
// the members' sums. The members' high and low at the same instant bound
// the index's range from outside; the day's high and low are part of the
// way there (a per-day draw), since members do not all peak together.
// The intraday path runs from the open to the close through the market
// factor's bridge and one of the index's own, shaped to reach that high
// and low, with the members' volume spread by the stocks' U-shaped
// profile: the daily bar is the aggregate of its minutes, as a stock's is.
// A day costs one pass over the members' daily figures (dayOf, O(1) each),
// about 1 ms for the four indices at the default scale.

// tagIndex keeps the indices' streams apart from rng.go's and hotrank.go's.
const tagIndex uint64 = 201

// Index is a stock index of the demo market.
type Index struct {
	Code    market.Code
	Name    string
	Members []market.Code // every stock it counts once listed, ascending
}

// indexDef describes one index.
type indexDef struct {
	code   string
	name   string
	base   float64 // level at the anchor close
	top    int     // > 0: the largest top stocks of the SH and SZ boards
	member func(s *stock) bool
	own    float64 // the index's own intraday noise, in units of the market factor's
}

func indexDefs() []indexDef {
	return []indexDef{
		{code: "000001.SH", name: "上证指数", base: 3380, own: 0.3,
			member: func(s *stock) bool { return s.code.Exchange == market.SH && s.lb == boardMain }},
		{code: "399001.SZ", name: "深证成指", base: 10650, own: 0.4,
			member: func(s *stock) bool { return s.code.Exchange == market.SZ }},
		{code: "399006.SZ", name: "创业板指", base: 2180, own: 0.6,
			member: func(s *stock) bool { return s.lb == boardChiNext }},
		{code: "000300.SH", name: "沪深300", base: 3960, own: 0.3, top: 300},
	}
}

// indexSpec is an index resolved against the universe.
type indexSpec struct {
	def     indexDef
	code    market.Code
	members []int32 // stock indices, ascending: the members at the anchor
	// periods are a reviewed index's member sets, each from its effective
	// timeline day on (the first from day 0); nil for the composites,
	// whose members are fixed and counted once listed.
	periods []memberPeriod
	beta    float64 // cap-weighted loading of the members on the market factor
}

// memberPeriod is a reviewed index's members from timeline day from on.
type memberPeriod struct {
	from    int
	members []int32 // ascending
}

// membersAt are the members an index counts on timeline day i.
func (sp *indexSpec) membersAt(i int) []int32 {
	if sp.periods == nil {
		return sp.members
	}
	k, _ := slices.BinarySearchFunc(sp.periods, i+1, func(p memberPeriod, t int) int { return cmp.Compare(p.from, t) })
	return sp.periods[max(k-1, 0)].members
}

// indexDay is one index's day in levels (unrounded); n is how many members
// traded, 0 before the first one listed.
type indexDay struct {
	open, high, low, close float64
	vol                    int64 // lots of 100 shares
	amt, mf                float64
	n                      int
}

// indexBook holds the indices and the days computed so far. Levels chain
// from the anchor, so the known levels are one span around it.
type indexBook struct {
	once  sync.Once
	specs []indexSpec
	union []int32 // stocks in any index, ascending

	mu     sync.Mutex
	lv     [][]float64 // per index: lv[k][i+1] is the close level of timeline day i, lv[k][0] the one before day 0
	ja, jb int         // known span of lv positions
	days   [][]indexDay
	figs   []indexFig // scratch of indexPass, per stock
}

// indexFig is a member's daily figures, as its daily bar has them.
type indexFig struct {
	open, high, low int32
	vday            int64
	amt, mf         float64
}

func (m *Market) indexBook() *indexBook {
	b := &m.ix
	b.once.Do(func() {
		for _, def := range indexDefs() {
			sp := indexSpec{def: def, code: market.MustCode(def.code)}
			switch {
			case def.top > 0:
				sp.periods = m.reviewTop(def.top)
				sp.members = sp.periods[0].members
				for _, p := range sp.periods {
					if p.from <= m.anchor {
						sp.members = p.members
					}
					b.union = append(b.union, p.members...)
				}
			default:
				for si := range m.u.stocks {
					// A stock delisted some day is in no index: an
					// index's members are the stocks listed all along.
					if s := &m.u.stocks[si]; def.member(s) && s.delistedDay() == 0 {
						sp.members = append(sp.members, int32(si))
					}
				}
			}
			var wb, w float64
			for _, si := range sp.members {
				s := &m.u.stocks[si]
				c := mul(s.fsF, float64(s.base))
				wb += mul(c, s.beta)
				w += c
			}
			sp.beta = 1
			if w > 0 {
				sp.beta = wb / w
			}
			b.specs = append(b.specs, sp)
			b.union = append(b.union, sp.members...)
		}
		slices.Sort(b.union)
		b.union = slices.Compact(b.union)
		b.lv = make([][]float64, len(b.specs))
		for k := range b.lv {
			b.lv[k] = make([]float64, len(m.days)+1)
			b.lv[k][m.anchor+1] = b.specs[k].def.base
		}
		b.ja, b.jb = m.anchor+1, m.anchor+1
		b.days = make([][]indexDay, len(m.days))
	})
	return b
}

// Indices lists the indices in code order.
func (m *Market) Indices() []Index {
	b := m.indexBook()
	out := make([]Index, len(b.specs))
	for k, sp := range b.specs {
		ms := make([]market.Code, len(sp.members))
		for i, si := range sp.members {
			ms[i] = m.u.stocks[si].code
		}
		out[k] = Index{Code: sp.code, Name: sp.def.name, Members: ms}
	}
	slices.SortFunc(out, func(a, b Index) int { return cmp.Compare(a.Code.String(), b.Code.String()) })
	return out
}

// IndexMembersOn is each index's members on day, by index code: the
// stocks its level counts that day. A composite counts its stocks once
// they have listed; 沪深300 its reviewed set of that day (a day outside
// the timeline takes the nearest one's).
func (m *Market) IndexMembersOn(day market.Day) map[market.Code][]market.Code {
	b := m.indexBook()
	i, found := slices.BinarySearch(m.days, day)
	if !found {
		i-- // a day between sessions counts as the one before
	}
	i = min(max(i, 0), len(m.days)-1)
	out := make(map[market.Code][]market.Code, len(b.specs))
	for _, sp := range b.specs {
		var ms []market.Code
		for _, si := range sp.membersAt(i) {
			if s := &m.u.stocks[si]; sp.periods != nil || s.first <= i {
				ms = append(ms, s.code)
			}
		}
		out[sp.code] = ms
	}
	return out
}

// Review figures of 沪深300: the review effective after the second
// Friday of June and December; a stock is eligible once listed for
// reviewSeasoning sessions; incumbents ranked within reviewKeep stay and
// newcomers ranked within reviewEnter come in (CSI's buffer zones of
// 240/360 for 300), the rest filled by rank.
const (
	reviewSeasoning = 60
	reviewEnter     = 240
	reviewKeep      = 360
	reviewDraw      = 0.15 // spread of the drawn float value at a review
)

// reviewDays are the timeline indices of the review effective days.
func (m *Market) reviewDays() []int {
	var out []int
	first, last := m.days[0], m.days[len(m.days)-1]
	for y := first.Year(); y <= last.Year(); y++ {
		for _, mo := range []time.Month{time.June, time.December} {
			fridays := 0
			for d := market.NewDay(y, mo, 1); ; d = d.AddDays(1) {
				if d.Weekday() != time.Friday {
					continue
				}
				if fridays++; fridays == 2 {
					i, _ := slices.BinarySearch(m.days, d.AddDays(1)) // the next session
					if i > 0 && i < len(m.days) {
						out = append(out, i)
					}
					break
				}
			}
		}
	}
	return out
}

// reviewTop is a top-n index's member sets: the n largest eligible SH and
// SZ stocks at day 0, then at each review a ranking by float value (the
// anchor's, times a draw of the review: the market moved since) with
// CSI's buffer zones, so a review swaps a handful of stocks near the
// cut-off and brings in large new listings. Stocks delisted some day are
// in no index.
func (m *Market) reviewTop(n int) []memberPeriod {
	eligible := func(s *stock, from int) bool {
		return (s.code.Exchange == market.SH || s.code.Exchange == market.SZ) && !s.st && s.delistedDay() == 0 &&
			(s.first+reviewSeasoning <= from || s.first == 0)
	}
	rank := func(from, k int) []int32 {
		var cands []int32
		var val []float64
		for si := range m.u.stocks {
			s := &m.u.stocks[si]
			if !eligible(s, from) {
				continue
			}
			v := mul(s.fsF, float64(s.base))
			if k > 0 {
				rs := newStream(hash3(m.seed, tagIndex, uint64(1000+k)), uint64(si))
				v = mul(v, 1+mul(reviewDraw, rs.norm()))
			}
			cands = append(cands, int32(si))
			val = append(val, v)
		}
		order := make([]int, len(cands))
		for j := range order {
			order[j] = j
		}
		slices.SortFunc(order, func(a, b int) int {
			if c := cmp.Compare(val[b], val[a]); c != 0 {
				return c
			}
			return cmp.Compare(cands[a], cands[b])
		})
		out := make([]int32, len(order))
		for j, o := range order {
			out[j] = cands[o]
		}
		return out
	}
	first := rank(0, 0)
	periods := []memberPeriod{{from: 0, members: slices.Sorted(slices.Values(first[:min(n, len(first))]))}}
	enter, keep := n*reviewEnter/300, n*reviewKeep/300
	for k, from := range m.reviewDays() {
		prev := map[int32]bool{}
		for _, si := range periods[len(periods)-1].members {
			prev[si] = true
		}
		ranked := rank(from, k+1)
		var sel []int32
		for r, si := range ranked {
			if (prev[si] && r < keep) || (!prev[si] && r < enter) {
				sel = append(sel, si)
			}
		}
		sel = sel[:min(n, len(sel))]
		chosen := map[int32]bool{}
		for _, si := range sel {
			chosen[si] = true
		}
		for _, si := range ranked {
			if len(sel) >= n {
				break
			}
			if !chosen[si] {
				sel = append(sel, si)
				chosen[si] = true
			}
		}
		slices.Sort(sel)
		if slices.Equal(sel, periods[len(periods)-1].members) {
			continue
		}
		periods = append(periods, memberPeriod{from: from, members: sel})
	}
	return periods
}

// indexOf is the position of an index among the specs.
func (m *Market) indexOf(code market.Code) (int, bool) {
	if market.Classify(code) != market.TypeIndex {
		return 0, false
	}
	for k, sp := range m.indexBook().specs {
		if sp.code == code {
			return k, true
		}
	}
	return 0, false
}

// indexSums are one index's member sums of one day.
type indexSums struct {
	num, den, numO, numH, numL float64
	vol                        int64
	amt, mf                    float64
	n                          int
}

// indexPass sums day i over every index's members; with details, also
// opens, ranges, volumes and amounts (otherwise only the closes, which is
// all the level chain needs). The caller holds b.mu.
func (m *Market) indexPass(b *indexBook, i int, details bool) []indexSums {
	m.uniMu.Lock()
	cur := m.state(i)
	var before *uniState
	if i > 0 {
		before = m.state(i - 1)
	}
	prev := m.prevCloses(i, cur, before)
	m.uniMu.Unlock()
	close := cur.close
	d := m.days[i]
	if details {
		if b.figs == nil {
			b.figs = make([]indexFig, len(m.u.stocks))
		}
		for _, si := range b.union {
			p := prev[si]
			if p <= 0 {
				continue
			}
			s := &m.u.stocks[si]
			vday := dailyVolume(s, d, p, close[si])
			db := m.dayOf(s, d, p, close[si], vday)
			b.figs[si] = indexFig{db.open, db.high, db.low, vday, db.amt, db.mf}
		}
	}
	out := make([]indexSums, len(b.specs))
	for k, sp := range b.specs {
		o := &out[k]
		for _, si := range sp.membersAt(i) {
			p := prev[si]
			if p <= 0 {
				continue
			}
			s := &m.u.stocks[si]
			c := close[si]
			o.num += mul(s.fsF, float64(c-p))
			o.den += mul(s.fsF, float64(p))
			o.n++
			if details {
				f := &b.figs[si]
				o.numO += mul(s.fsF, float64(f.open-p))
				o.numH += mul(s.fsF, float64(f.high-p))
				o.numL += mul(s.fsF, float64(f.low-p))
				o.vol += f.vday
				o.amt += f.amt
				o.mf += f.mf
			}
		}
	}
	return out
}

// ratio is the day's close over the previous close.
func (x indexSums) ratio() float64 {
	if x.den <= 0 {
		return 1
	}
	return 1 + x.num/x.den
}

// indexDayFrom turns a day's sums and levels into the index's day.
func (m *Market) indexDayFrom(k int, d market.Day, x indexSums, prev, close float64) indexDay {
	day := indexDay{close: close, open: prev, high: max(prev, close), low: min(prev, close), vol: x.vol, amt: x.amt, mf: x.mf, n: x.n}
	if x.den <= 0 {
		return day
	}
	day.open = mul(prev, 1+x.numO/x.den)
	top, bottom := max(day.open, close), min(day.open, close)
	hiB, loB := mul(prev, 1+x.numH/x.den), mul(prev, 1+x.numL/x.den)
	ks := newStream(hash3(m.seed, tagIndex, uint64(k)), uint64(d))
	day.high = top + mul(ks.between(0.45, 0.75), max(0, hiB-top))
	day.low = bottom - mul(ks.between(0.45, 0.75), max(0, bottom-loB))
	return day
}

// indexDays makes sure days lo..hi (timeline positions) of every index are
// known, extending the level chain from the anchor as far as they need.
// The walk goes outward from the anchor, the direction the universe walk
// caches best.
func (m *Market) indexDays(ctx context.Context, lo, hi int) error {
	b := m.indexBook()
	b.mu.Lock()
	defer b.mu.Unlock()
	want := func(i int) bool { return i >= lo && i <= hi && b.days[i] == nil }
	store := func(i int, sums []indexSums) {
		row := make([]indexDay, len(b.specs))
		for k := range b.specs {
			row[k] = m.indexDayFrom(k, m.days[i], sums[k], b.lv[k][i], b.lv[k][i+1])
		}
		b.days[i] = row
	}
	steps := 0
	check := func() error {
		if steps++; steps%32 == 0 {
			return ctxErr(ctx)
		}
		return nil
	}
	for b.ja > lo { // day b.ja-1 closes at lv[b.ja]; its pass gives the close before it
		if err := check(); err != nil {
			return err
		}
		i := b.ja - 1
		sums := m.indexPass(b, i, want(i))
		for k := range b.specs {
			b.lv[k][i] = b.lv[k][i+1] / sums[k].ratio()
		}
		b.ja--
		if want(i) {
			store(i, sums)
		}
	}
	for b.jb <= hi { // day b.jb opens from lv[b.jb]
		if err := check(); err != nil {
			return err
		}
		i := b.jb
		sums := m.indexPass(b, i, want(i))
		for k := range b.specs {
			b.lv[k][i+1] = mul(b.lv[k][i], sums[k].ratio())
		}
		b.jb++
		if want(i) {
			store(i, sums)
		}
	}
	for i := min(hi, m.anchor); i >= lo; i-- {
		if want(i) {
			if err := check(); err != nil {
				return err
			}
			store(i, m.indexPass(b, i, true))
		}
	}
	for i := max(lo, m.anchor+1); i <= hi; i++ {
		if want(i) {
			if err := check(); err != nil {
				return err
			}
			store(i, m.indexPass(b, i, true))
		}
	}
	return nil
}

// hundredths rounds a level to the 0.01 the exchanges quote.
func hundredths(x float64) int64 { return int64Round(mul(x, 100)) }

// indexBar is day i's daily bar of index k; ok is false before the index
// has a member.
func (m *Market) indexBar(k, i int) (market.Bar, bool) {
	b := m.indexBook()
	b.mu.Lock()
	x := b.days[i][k]
	b.mu.Unlock()
	if x.n == 0 {
		return market.Bar{}, false
	}
	o, h, l, c := m.indexOHLC(x)
	d := m.days[i]
	return market.Bar{Day: d, TS: d.At(15, 0, 0).Unix(), Open: float64(o) / 100, High: float64(h) / 100, Low: float64(l) / 100,
		Close: float64(c) / 100, Volume: x.vol * 100, Amount: x.amt, TurnoverRate: market.Unknown(), LargeOrderNet: x.mf}, true
}

// indexOHLC is a day's prices in hundredths, ordered.
func (m *Market) indexOHLC(x indexDay) (o, h, l, c int64) {
	o, c = hundredths(x.open), hundredths(x.close)
	h = max(hundredths(x.high), o, c)
	l = max(1, min(hundredths(x.low), o, c))
	return o, h, l, c
}

// indexMinutes are day i's 240 one-minute bars of index k, the auction
// folded into the first; they add up to indexBar exactly.
func (m *Market) indexMinutes(k, i int) []market.Bar {
	b := m.indexBook()
	b.mu.Lock()
	x := b.days[i][k]
	sp := b.specs[k]
	b.mu.Unlock()
	if x.n == 0 {
		return nil
	}
	d := m.days[i]
	o, h, l, c := m.indexOHLC(x)
	var mk, own [241]float64
	m.bridge(0, d, &mk)
	rs := newStream(hash3(m.seed, tagIndex, uint64(100+k)), uint64(d))
	w := 0.0
	for j := 1; j <= 240; j++ {
		w += rs.norm()
		own[j] = w
	}
	open, close := float64(o), float64(c)
	ref := (open + close) / 2
	cm, co := mul(sp.beta, m.mkMin), mul(sp.def.own, m.mkMin)
	top, bottom := max(open, close), min(open, close)
	var x1 [240]float64
	var above, below float64
	for j := 1; j < 240; j++ {
		u := float64(j) / 240
		dev := mul(cm, mk[j]) + mul(co, own[j]-mul(own[240], u))
		x1[j-1] = open + mul(close-open, u) + mul(ref, dev)
		above, below = max(above, x1[j-1]-top), max(below, bottom-x1[j-1])
	}
	var cs, hs, ls [240]int64
	exc := mul(ref, mul(co, 0.8))
	last := o
	for j := 1; j <= 240; j++ {
		cl := c
		if j < 240 {
			v := x1[j-1]
			switch {
			case v > top && above > 0:
				v = top + mul(v-top, (float64(h)-top)/above)
			case v < bottom && below > 0:
				v = bottom - mul(bottom-v, (bottom-float64(l))/below)
			}
			cl = min(max(int64Round(v), l), h)
		}
		r := rs.u64()
		up := int64(mul(exc, float64(r&0xffff)/65536))
		dn := int64(mul(exc, float64(r>>16&0xffff)/65536))
		cs[j-1] = cl
		hs[j-1] = min(max(last, cl)+up, h)
		ls[j-1] = max(min(last, cl)-dn, l)
		last = cl
	}
	hiAt, loAt := 0, 0
	for j := range hs {
		if hs[j] > hs[hiAt] {
			hiAt = j
		}
		if ls[j] < ls[loAt] {
			loAt = j
		}
	}
	hs[hiAt], ls[loAt] = h, l
	// Volume: the auction's share, then the stocks' U-shaped profile times
	// noise times the minute's move; amounts and flows in proportion.
	var wt [240]float64
	sumW := 0.0
	last = o
	for j := 1; j <= 240; j++ {
		noise := 0.6 + mul(float64(rs.u64()>>32&0xffff), 0.8/65536)
		diff := math.Abs(float64(cs[j-1] - last))
		wt[j-1] = mul(mul(m.shape[j], noise), 1+25*diff/ref)
		sumW += wt[j-1]
		last = cs[j-1]
	}
	aVol := int64(mul(float64(x.vol), rs.between(0.004, 0.016)))
	var vs [240]int64
	var tot int64
	busiest := 0
	for j := range vs {
		vs[j] = int64(float64(x.vol-aVol) * wt[j] / sumW)
		tot += vs[j]
		if vs[j] > vs[busiest] {
			busiest = j
		}
	}
	vs[0] += x.vol - aVol - tot
	share := func(total float64, v int64) float64 {
		if x.vol <= 0 {
			return 0
		}
		return roundYuan(mul(total, float64(v)) / float64(x.vol))
	}
	aAmt, aMF := share(x.amt, aVol), share(x.mf, aVol)
	var amts, mfs [240]float64
	sumA, sumF := aAmt, aMF
	for j := range vs {
		amts[j], mfs[j] = share(x.amt, vs[j]), share(x.mf, vs[j])
		sumA += amts[j]
		sumF += mfs[j]
	}
	amts[busiest] += x.amt - sumA
	mfs[busiest] += x.mf - sumF
	out := make([]market.Bar, 240)
	last = o
	for j := range out {
		bar := market.Bar{Day: d, TS: barEnd(d, j+1), Open: float64(last) / 100, High: float64(hs[j]) / 100, Low: float64(ls[j]) / 100,
			Close: float64(cs[j]) / 100, Volume: vs[j] * 100, Amount: amts[j], TurnoverRate: market.Unknown(), LargeOrderNet: mfs[j]}
		if j == 0 {
			bar.Volume += aVol * 100
			bar.Amount += aAmt
			bar.LargeOrderNet += aMF
		}
		out[j] = bar
		last = cs[j]
	}
	return out
}

// klineSpan is the timeline days [lo, hi] a K-line request of an index or
// a fund for freq from..to covers as of the clock (cut, its Unix second,
// bounds the bars): every day for daily bars without a start, the last
// five for minutes; lo > hi when none. Too many days of minutes is
// invalid.
func (m *Market) klineSpan(freq market.Freq, from, to market.Day) (lo, hi int, cut int64, err error) {
	now := m.clock.Now()
	cut = now.Unix()
	end := market.DayOf(now)
	if to != 0 && to < end {
		end = to
	}
	hi = m.onOrBefore(end)
	switch {
	case from != 0:
		lo, _ = slices.BinarySearch(m.days, from)
	case freq == market.Daily:
		lo = 0
	default:
		lo = hi - 4
	}
	lo = max(lo, 0)
	if hi < 0 || lo > hi {
		return 1, 0, cut, nil
	}
	if freq != market.Daily && hi-lo+1 > maxMinuteDays {
		return 0, 0, cut, market.Errorf(market.KindInvalid, "%d days of minute bars: at most %d per request", hi-lo+1, maxMinuteDays)
	}
	return lo, hi, cut, nil
}

// indexKlines is Klines for index k, with the same rules as a stock's.
func (m *Market) indexKlines(ctx context.Context, k int, freq market.Freq, from, to market.Day) ([]market.Bar, error) {
	lo, hi, cut, err := m.klineSpan(freq, from, to)
	bars := []market.Bar{}
	if err != nil || lo > hi {
		return bars, err
	}
	if err := m.indexDays(ctx, lo, hi); err != nil {
		return nil, err
	}
	for i := lo; i <= hi; i++ {
		if freq == market.Daily {
			if b, ok := m.indexBar(k, i); ok && b.TS <= cut {
				bars = append(bars, b)
			}
			continue
		}
		day := m.indexMinutes(k, i)
		if freq == market.Min5 {
			day = fiveMinute(day, 0)
		}
		for _, b := range day {
			if b.TS <= cut {
				bars = append(bars, b)
			}
		}
	}
	return bars, nil
}

// trendsSpan is the timeline days [lo, latest] of the latest ndays
// sessions, with a stock's rule for which session is the latest (today's
// once its first minute has ended), and the clock's Unix second (cut)
// that bounds the bars; lo > latest when none.
func (m *Market) trendsSpan(ndays int) (lo, latest int, cut int64) {
	now := m.clock.Now()
	cut = now.Unix()
	today := market.DayOf(now)
	latest = m.onOrBefore(today)
	if i, ok := m.index(today); ok && now.Unix() < barEnd(today, 1) {
		latest = i - 1
	}
	if latest < 0 {
		return 1, 0, cut
	}
	return max(0, latest-ndays+1), latest, cut
}

// indexTrends is Trends for index k: the latest ndays sessions' one-minute
// bars, with a stock's rule for which session is the latest.
func (m *Market) indexTrends(ctx context.Context, k, ndays int) ([]market.Bar, error) {
	lo, latest, cut := m.trendsSpan(ndays)
	bars := []market.Bar{}
	if lo > latest {
		return bars, nil
	}
	if err := m.indexDays(ctx, lo, latest); err != nil {
		return nil, err
	}
	for i := lo; i <= latest; i++ {
		for _, b := range m.indexMinutes(k, i) {
			if b.TS <= cut {
				bars = append(bars, b)
			}
		}
	}
	return bars, nil
}
