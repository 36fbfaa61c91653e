package demo

import "mdqs/internal/market"

// The daily model. A stock's simple return from day i-1 to day i is
//
//	r = beta*M + gamma*I + dc*sum(C_j) + sigma*z + jump + pull
//
// with M, I, C_j the market, industry and concept factors of day i (each a
// pure function of seed, factor and day, with rare jump days; concept
// factors have "hot concept" up-bursts), z the stock's own shock, jump a
// rare news move of half a limit to beyond the limit, and pull a weak reversion toward the stock's
// base price (half-life about eight months) with soft walls near 2 and 2,500
// yuan. The close is prev*(1+r) rounded to the cent and clamped into the
// exchange's limit prices and into 1..3,000 yuan.
//
// The walk starts at the anchor, where every stock listed by then closes at
// its base price, and runs forward for later days and backward for
// earlier ones (the backward step picks the previous close from which the
// day's close is within the limits). A stock listed after the anchor starts
// at its issue price instead. On an ex-date "prev" is the reference price
// (除权参考价), the close before mapped by the day's event, and the pull's
// base follows the share events (exrights.go).

const (
	minCents = 100    // 1.00 yuan
	maxCents = 300000 // 3,000 yuan
	pullRate = 0.004
)

// limits are the limit-down and limit-up prices for a previous close, in
// cents: prev*(1±pct/100) rounded half up, as the exchanges compute them.
func limits(prev, pct int32) (lo, hi int32) {
	p := int64(prev)
	hi = int32((p*int64(100+pct) + 50) / 100)
	lo = int32((p*int64(100-pct) + 50) / 100)
	return max(lo, 1), hi
}

// predecessors is the range of previous closes from which c is within the
// limits: the smallest p whose limit-up reaches c and the largest whose
// limit-down does not exceed c.
func predecessors(c, pct int32) (pmin, pmax int32) {
	x := 100 * int64(c)
	up, down := int64(100+pct), int64(100-pct)
	pmin = int32((x - 50 + up - 1) / up)
	pmax = int32((x + 49) / down)
	return max(pmin, 1), pmax
}

// factor is the day's return of a market (id 0), industry (1+i) or concept
// (1+nInd+j) factor.
func (m *Market) factor(id int, d market.Day) float64 {
	fs := newStream(hash3(m.seed, tagFactor, uint64(id)), uint64(d))
	z, u, v := fs.norm(), fs.unit(), fs.unit()
	switch {
	case id == 0:
		x := mul(mktVol, z) + 0.0002
		switch {
		case u < 0.005:
			x -= 0.02 + mul(0.025, v)
		case u < 0.011:
			x += 0.02 + mul(0.02, v)
		}
		return x
	case id <= m.nInd:
		x := mul(indVol, z)
		switch {
		case u < 0.008:
			x -= 0.012 + mul(0.018, v)
		case u < 0.02:
			x += 0.012 + mul(0.018, v)
		}
		return x
	default:
		x := mul(conVol, z)
		switch {
		case u < 0.005:
			x -= 0.01 + mul(0.01, v)
		case u < 0.03: // a hot-concept day
			x += 0.015 + mul(0.02, v)
		}
		return x
	}
}

// factorVec fills the factors of every board for a day, for the walks over
// the whole universe.
func (m *Market) factorVec(d market.Day, fv []float64) {
	for id := range fv {
		fv[id] = m.factor(id, d)
	}
}

// systematic is the factor part of a stock's return. The concept factors
// are summed in concept order, the same in both callers, so that the
// universe walk and a single stock's walk agree to the bit.
func (m *Market) systematic(s *stock, mkt, ind, csum float64) float64 {
	return mul(s.beta, mkt) + mul(s.gamma, ind) + mul(s.dc, csum)
}

// shockVec is a stock's return without the pull, from a factor vector.
func (m *Market) shockVec(s *stock, d market.Day, fv []float64) float64 {
	csum := 0.0
	for _, j := range s.concepts {
		csum += fv[1+m.nInd+int(j)]
	}
	return m.systematic(s, fv[0], fv[1+int(s.ind)], csum) + m.idio(s, d)
}

// shock is shockVec computing only the factors the stock needs.
func (m *Market) shock(s *stock, d market.Day) float64 {
	csum := 0.0
	for _, j := range s.concepts {
		csum += m.factor(1+m.nInd+int(j), d)
	}
	return m.systematic(s, m.factor(0, d), m.factor(1+int(s.ind), d), csum) + m.idio(s, d)
}

// idio is the stock's own move of the day: a normal shock and, rarely, a
// news jump.
func (m *Market) idio(s *stock, d market.Day) float64 {
	is := newStream(hash2(s.key, tagIdio), uint64(d))
	z, u, v := is.norm(), is.unit(), is.unit()
	x := mul(s.sigma, z)
	if u < s.jumpP {
		// News: 0.45 to 1.4 limits, up more often than down, so that a
		// few dozen stocks close at a limit on an ordinary day.
		size := mul(float64(s.limitOn(d))/100, 0.45+mul(0.95, v))
		if u < mul(s.jumpP, 0.38) {
			size = -size
		}
		x += size
	}
	return x
}

// pull draws the price back toward the walk's target (the base price,
// carried across share events: exrights.go), with walls near the ends of
// the price range.
func pull(target float64, c int32) float64 {
	x := float64(c)
	p := -mul(pullRate, 2*(x-target)/(x+target))
	switch {
	case c < 200:
		p += 0.01
	case c > 250000:
		p -= 0.01
	}
	return p
}

// stepFwd is the close of day d from its previous close (the reference
// price on an ex-date); a suspended day carries it.
func stepFwd(s *stock, d market.Day, shock float64, prev int32, target float64) int32 {
	if s.haltedOn(d) {
		return prev
	}
	r := clampF(shock+pull(target, prev), -0.3, 0.3)
	cand := roundCents(float64(prev) * (1 + r))
	lo, hi := limits(prev, s.limitOn(d))
	// The limits first: a reference price below a yuan (a dividend on a
	// penny stock) moves inside its limits, up toward the range.
	return clampI32(cand, min(max(lo, minCents), hi), max(min(hi, maxCents), lo))
}

// stepBack is day d's previous close (the reference price on an ex-date;
// cumOf turns it into the close before) from the day's close: the inverse
// move, then the nearest previous close from which the close is within
// limits.
func stepBack(s *stock, d market.Day, shock float64, c int32, target float64) int32 {
	if s.haltedOn(d) {
		return c
	}
	r := clampF(shock-pull(target, c), -0.3, 0.3)
	cand := roundCents(float64(c) / (1 + r))
	pmin, pmax := predecessors(c, s.limitOn(d))
	return clampI32(cand, max(pmin, minCents), min(pmax, maxCents))
}

// stockCloses walks one stock: closes[i-first] for every timeline day from
// its first day through max(last, anchor), and the previous close of its
// first day (the issue price on a listing day).
//
// A stock delisted before the anchor is anchored at its last day instead,
// as the universe walk does.
func (m *Market) stockCloses(s *stock, last int) (prev0 int32, closes []int32) {
	first := s.first
	if first >= len(m.days) || first > s.last {
		return 0, nil
	}
	last = min(len(m.days)-1, last, s.last)
	anchor := min(m.anchor, s.last)
	end := last
	if first <= anchor {
		end = max(last, anchor)
	}
	if end < first {
		return 0, nil
	}
	closes = make([]int32, end-first+1)
	step := func(i int, prev int32) int32 {
		d := m.days[i]
		return stepFwd(s, d, m.shock(s, d), s.refOf(i, prev), s.target(i))
	}
	if first <= anchor {
		closes[anchor-first] = s.base
		for i := anchor; i > first; i-- {
			d := m.days[i]
			c := closes[i-first]
			closes[i-1-first] = s.cumOf(i, d, stepBack(s, d, m.shock(s, d), c, s.target(i)), c)
		}
		d := m.days[first]
		prev0 = stepBack(s, d, m.shock(s, d), closes[0], s.target(first))
		for i := anchor + 1; i <= end; i++ {
			closes[i-first] = step(i, closes[i-1-first])
		}
		return prev0, closes
	}
	prev0 = s.base
	closes[0] = step(first, prev0)
	for i := first + 1; i <= end; i++ {
		closes[i-first] = step(i, closes[i-1-first])
	}
	return prev0, closes
}

// dailyVolume is a day's volume in lots: the stock's typical turnover,
// noisy, and higher on big moves.
func dailyVolume(s *stock, d market.Day, prev, close int32) int64 {
	vs := newStream(hash2(s.key, tagVolume), uint64(d))
	a := float64(close-prev) / float64(prev)
	if a < 0 {
		a = -a
	}
	t := mul(mul(s.turn, vs.between(0.6, 1.4)), 0.5+0.6*a/s.sigTot)
	return max(50, int64(mul(s.fsF, t)/10000))
}

// pctOf is the percent change from p to c, unrounded.
func pctOf(c, p int32) float64 {
	if p <= 0 {
		return 0
	}
	return float64(c-p) / float64(p) * 100
}
