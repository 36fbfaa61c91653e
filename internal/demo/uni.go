package demo

import "math"

// The universe walk: every stock's close and every board's index level,
// day by day away from the anchor. Snapshots need the previous and current
// close of every stock on one day, and board levels compound daily moves
// from the anchor, so this walk is the one place that steps all stocks.
// States are kept at checkpoints every cpEvery days plus a few recent ones,
// so any day costs at most cpEvery steps once its side of the anchor has
// been walked.

const cpEvery = 16

// uniState is the market at the close of one day.
type uniState struct {
	idx   int
	close []int32   // per stock, cents; 0 when not listed by that day
	level []float64 // per board (industries, then concepts), index level
}

// dayState is what a snapshot of one day needs besides the intraday paths.
type dayState struct {
	idx       int
	prev      []int32   // previous close per stock; 0 when not listed
	close     []int32   // close per stock
	vday      []int64   // the day's volume per stock, lots
	avg5      []float64 // mean daily volume of the previous five days, lots; NaN without history
	levelPrev []float64 // board index levels at the previous close
}

func (m *Market) nBoards() int { return m.nInd + len(m.u.concepts) }

func (m *Market) anchorState() *uniState {
	st := &uniState{idx: m.anchor, close: make([]int32, len(m.u.stocks)), level: make([]float64, m.nBoards())}
	for si := range m.u.stocks {
		if s := &m.u.stocks[si]; s.first <= m.anchor && s.last >= m.anchor {
			st.close[si] = s.base
		}
	}
	for i, b := range m.u.industries {
		st.level[i] = b.base
	}
	for j, b := range m.u.concepts {
		st.level[m.nInd+j] = b.base
	}
	return st
}

// boardPct is each board's float-cap-weighted percent move from prev to
// px: sum(fs*(px-prev)) / sum(fs*prev) * 100 over members with a previous
// close. Snapshots and the walk both use it, so a board's close in a
// snapshot equals the level the walk compounds.
func (m *Market) boardPct(prev, px []int32, out []float64) {
	nb := m.nBoards()
	num, den := make([]float64, nb), make([]float64, nb)
	for si := range m.u.stocks {
		p := prev[si]
		if p <= 0 {
			continue
		}
		s := &m.u.stocks[si]
		a, w := mul(s.fsF, float64(px[si]-p)), mul(s.fsF, float64(p))
		num[s.ind] += a
		den[s.ind] += w
		for _, j := range s.concepts {
			num[m.nInd+int(j)] += a
			den[m.nInd+int(j)] += w
		}
	}
	for b := range out {
		out[b] = 0
		if den[b] > 0 {
			out[b] = num[b] / den[b] * 100
		}
	}
}

// fwd is the state of the day after cur.
func (m *Market) fwd(cur *uniState, fv []float64) *uniState {
	i := cur.idx + 1
	d := m.days[i]
	m.factorVec(d, fv)
	n := len(m.u.stocks)
	next := &uniState{idx: i, close: make([]int32, n), level: make([]float64, m.nBoards())}
	prev := make([]int32, n)
	ex := m.exCursor(i)
	for si := range m.u.stocks {
		s := &m.u.stocks[si]
		switch {
		case s.first > i || s.last < i:
			continue
		case s.first == i:
			prev[si] = s.base // listed after the anchor: the issue price
		default:
			prev[si] = refWith(ex.at(si), cur.close[si])
		}
		next.close[si] = stepFwd(s, d, m.shockVec(s, d, fv), prev[si], s.target(i))
	}
	pct := make([]float64, m.nBoards())
	m.boardPct(prev, next.close, pct)
	for b := range pct {
		next.level[b] = cur.level[b] * (1 + pct[b]/100)
	}
	return next
}

// back is the state of the day before cur (cur.idx > 0).
func (m *Market) back(cur *uniState, fv []float64) *uniState {
	i := cur.idx
	d := m.days[i]
	m.factorVec(d, fv)
	n := len(m.u.stocks)
	before := &uniState{idx: i - 1, close: make([]int32, n), level: make([]float64, m.nBoards())}
	prev := make([]int32, n)
	ex := m.exCursor(i)
	for si := range m.u.stocks {
		s := &m.u.stocks[si]
		switch {
		case s.first > i || s.last < i-1:
			continue
		case s.last == i-1:
			// Its last day: a stock delisted before the anchor is anchored
			// there, as stockCloses does.
			before.close[si] = s.base
			continue
		}
		c := cur.close[si]
		prev[si] = stepBack(s, d, m.shockVec(s, d, fv), c, s.target(i))
		if s.first < i {
			e := ex.at(si)
			before.close[si] = s.cumWith(e, d, prev[si], c)
			prev[si] = refWith(e, before.close[si])
		}
	}
	pct := make([]float64, m.nBoards())
	m.boardPct(prev, cur.close, pct)
	for b := range pct {
		before.level[b] = cur.level[b] / (1 + pct[b]/100)
	}
	return before
}

func (m *Market) cachedState(i int) *uniState {
	if st, ok := m.checkpoints[i]; ok {
		return st
	}
	if st, ok := m.recent.get(i); ok {
		return st
	}
	return nil
}

func (m *Market) keep(st *uniState) {
	if (st.idx-m.anchor)%cpEvery == 0 {
		m.checkpoints[st.idx] = st
	}
	m.recent.put(st.idx, st)
}

// state is the universe at the close of day i, walked from the nearest
// known state on the anchor's side. The caller holds uniMu.
func (m *Market) state(i int) *uniState {
	if st := m.cachedState(i); st != nil {
		return st
	}
	dir := 1
	if i < m.anchor {
		dir = -1
	}
	k := i
	var st *uniState
	for st == nil {
		if st = m.cachedState(k); st == nil && k == m.anchor {
			st = m.anchorState()
			m.keep(st)
		}
		if st == nil {
			k -= dir
		}
	}
	fv := make([]float64, m.nBoards()+1)
	for st.idx != i {
		if dir > 0 {
			st = m.fwd(st, fv)
		} else {
			st = m.back(st, fv)
		}
		m.keep(st)
	}
	return st
}

// prevCloses is every stock's previous close for day i, given the states
// of days i and i-1 (nil for i = 0).
func (m *Market) prevCloses(i int, cur, before *uniState) []int32 {
	prev := make([]int32, len(m.u.stocks))
	var fv []float64
	ex := m.exCursor(i)
	for si := range m.u.stocks {
		s := &m.u.stocks[si]
		switch {
		case s.first > i || s.last < i:
		case s.first < i:
			prev[si] = refWith(ex.at(si), before.close[si])
		case i > m.anchor:
			prev[si] = s.base
		default:
			if fv == nil {
				fv = make([]float64, m.nBoards()+1)
				m.factorVec(m.days[i], fv)
			}
			prev[si] = stepBack(s, m.days[i], m.shockVec(s, m.days[i], fv), cur.close[si], s.target(i))
		}
	}
	return prev
}

// dayState gathers day i's closes, volumes, five-day volume means and the
// boards' previous levels.
func (m *Market) dayState(i int) *dayState {
	m.uniMu.Lock()
	defer m.uniMu.Unlock()
	if ds, ok := m.dayStates.get(i); ok {
		return ds
	}
	n := len(m.u.stocks)
	pair := func(j int) (prev, close []int32) {
		cur := m.state(j)
		var before *uniState
		if j > 0 {
			before = m.state(j - 1)
		}
		return m.prevCloses(j, cur, before), cur.close
	}
	ds := &dayState{idx: i, vday: make([]int64, n), avg5: make([]float64, n), levelPrev: make([]float64, m.nBoards())}
	ds.prev, ds.close = pair(i)
	if i > m.anchor {
		copy(ds.levelPrev, m.state(i-1).level)
	} else {
		pct := make([]float64, m.nBoards())
		m.boardPct(ds.prev, ds.close, pct)
		cur := m.state(i)
		for b := range pct {
			ds.levelPrev[b] = cur.level[b] / (1 + pct[b]/100)
		}
	}
	d := m.days[i]
	for si := range m.u.stocks {
		if s := &m.u.stocks[si]; ds.prev[si] > 0 && !s.haltedOn(d) {
			ds.vday[si] = dailyVolume(s, d, ds.prev[si], ds.close[si])
		}
	}
	sum := make([]float64, n)
	cnt := make([]int, n)
	for j := i - 1; j >= 0 && j >= i-5; j-- {
		prev, close := pair(j)
		for si := range m.u.stocks {
			if s := &m.u.stocks[si]; prev[si] > 0 && !s.haltedOn(m.days[j]) {
				sum[si] += float64(dailyVolume(s, m.days[j], prev[si], close[si]))
				cnt[si]++
			}
		}
	}
	for si := range ds.avg5 {
		ds.avg5[si] = math.NaN()
		if cnt[si] > 0 {
			ds.avg5[si] = sum[si] / float64(cnt[si])
		}
	}
	m.dayStates.put(i, ds)
	return ds
}
