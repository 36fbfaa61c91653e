package demo

import "mdqs/market"

// The intraday model. A day's one-minute path runs from the open to the
// day's close (fixed by the daily walk), so the daily bar is exactly the
// aggregate of its minutes:
//
//	x(k) = open + (close-open)*f(k/240) + ref*(beta*sM*B_M(k) + gamma*sI*B_I(k) + dc*sC*B_C(k) + sigMin*B_s(k))
//
// f(u) = u/(u+q(1-u)) decides when the day's move happens (q < 1 early; a
// limit close moves early, so the stock sits on its limit), the B are
// Brownian bridges (zero at both ends) of the market, the stock's industry,
// its first concept and the stock itself, so boards wander together during
// the day. Prices are rounded to the cent and clamped into the limits.
//
// The open is prev*(1+0.4R+noise), R the day's return. Volume: 0.4-1.6 %
// of the day's lots trade in the 09:25 auction; the rest is spread over
// the minutes by a U-shaped profile times noise times the minute's move.
// Amounts are lots x the minute's mean price (whole yuan). Main-force net
// per minute is amount x (day bias + move term + noise), the day bias
// following the day's return, so inflow and price agree on average.

// dayPath is one stock's session; index k-1 holds minute bar k (1..240).
// The auction fields are the 09:25 print, folded into bar 1 on output.
type dayPath struct {
	open       int32
	aVol       int64
	aAmt, aMF  float64
	c, h, l    [240]int32
	v          [240]int64
	amt, mf    [240]float64
	w          [240]float64 // scratch: volume weights
	idioBridge [241]float64 // scratch
}

// bridge is a factor's intraday Brownian bridge in units of its one-minute
// volatility: out[0] = out[240] = 0.
func (m *Market) bridge(id int, d market.Day, out *[241]float64) {
	bs := newStream(hash3(m.seed, tagBridge, uint64(id)), uint64(d))
	w := 0.0
	out[0] = 0
	for k := 1; k <= 240; k++ {
		w += bs.norm()
		out[k] = w
	}
	end := out[240]
	for k := 1; k <= 240; k++ {
		out[k] -= mul(end, float64(k)/240)
	}
}

// dayBridges holds every factor's bridge of one day, for snapshots.
type dayBridges struct {
	b [][241]float64
}

func (m *Market) allBridges(d market.Day) *dayBridges {
	db := &dayBridges{b: make([][241]float64, m.nBoards()+1)}
	for id := range db.b {
		m.bridge(id, d, &db.b[id])
	}
	return db
}

// genPath builds a stock's session of day d from its previous close, close
// and volume (lots). mk, in, cn are the bridges of the market, its industry
// and its first concept (cn nil without concepts).
func (m *Market) genPath(p *dayPath, s *stock, d market.Day, prev, close int32, vday int64, mk, in, cn *[241]float64) {
	rs := newStream(hash2(s.key, tagIntraday), uint64(d))
	lo, hi := limits(prev, s.limit)
	R := float64(close-prev) / float64(prev)
	g := mul(0.4, R) + mul(mul(s.sigma, 0.35), rs.norm())
	open := clampI32(roundCents(float64(prev)*(1+g)), lo, hi)
	p.open = open
	q := rs.between(0.3, 3.0)
	if close == hi || close == lo {
		q = rs.between(0.03, 0.3) // reach the limit by mid-session and sit on it
	}
	ref := float64(open+close) / 2
	w := 0.0
	e := &p.idioBridge
	for k := 1; k <= 240; k++ {
		w += rs.norm()
		e[k] = w
	}
	end := e[240]
	move := float64(close - open)
	cm, ci, cc := mul(s.beta, m.mkMin), mul(s.gamma, m.inMin), mul(s.dc, m.cnMin)
	exc := mul(ref, s.sigMin) // one-minute price move, cents
	floor := max(lo, 1)
	sumW := 0.0
	last := open
	for k := 1; k <= 240; k++ {
		c := close
		if k < 240 {
			u := float64(k) / 240
			frac := u / (u + mul(q, 1-u))
			dev := mul(cm, mk[k]) + mul(ci, in[k]) + mul(s.sigMin, e[k]-mul(end, u))
			if cn != nil {
				dev += mul(cc, cn[k])
			}
			x := float64(open) + mul(move, frac) + mul(ref, dev)
			c = clampI32(roundCents(x), lo, hi)
		}
		r := rs.u64()
		up := int32(mul(exc, float64(r&0xffff)*(0.8/65536)))
		dn := int32(mul(exc, float64(r>>16&0xffff)*(0.8/65536)))
		p.c[k-1] = c
		p.h[k-1] = min(max(last, c)+up, hi)
		p.l[k-1] = max(min(last, c)-dn, floor)
		noise := 0.6 + mul(float64(r>>32&0xffff), 0.8/65536)
		diff := float64(c - last)
		if diff < 0 {
			diff = -diff
		}
		wk := mul(mul(m.shape[k], noise), 1+25*diff/ref)
		p.w[k-1] = wk
		sumW += wk
		last = c
	}
	p.aVol = int64(mul(float64(vday), rs.between(0.004, 0.016)))
	cont := vday - p.aVol
	var tot int64
	for k := range p.v {
		p.v[k] = int64(float64(cont) * p.w[k] / sumW)
		tot += p.v[k]
	}
	if rem := cont - tot; rem >= 0 {
		p.v[0] += rem
	} else {
		// Rounding overshot (never seen): take it from the largest bar.
		big := 0
		for k := range p.v {
			if p.v[k] > p.v[big] {
				big = k
			}
		}
		p.v[big] = max(0, p.v[big]+rem)
	}
	p.aAmt = float64(p.aVol) * float64(open)
	last = open
	for k := range p.amt {
		sum := int64(last) + int64(p.h[k]) + int64(p.l[k]) + int64(p.c[k])
		p.amt[k] = roundYuan(float64(p.v[k]) * float64(sum) / 4)
		last = p.c[k]
	}
	bias := mul(0.12, sat(R/s.sigTot)) + mul(0.05, rs.norm())
	p.aMF = roundYuan(mul(p.aAmt, clampF(bias+mul(0.2, rs.norm()), -0.8, 0.8)))
	last = open
	for k := range p.mf {
		mv := 0.0
		if exc > 0 {
			mv = float64(p.c[k]-last) / exc
		}
		f := clampF(bias+mul(0.12, sat(mv))+mul(0.15, rs.norm()), -0.85, 0.85)
		p.mf[k] = roundYuan(mul(p.amt[k], f))
		last = p.c[k]
	}
}

// qstate is a stock's cumulative session state after k minute bars.
type qstate struct {
	prev, price, open, high, low int32
	last                         int32 // the price one bar earlier, for the speed
	vol                          int64 // lots
	amt, mf                      float64
	k                            int // -1 before the auction
}

// state is the session after k completed bars (0: the auction only).
func (p *dayPath) state(prev int32, k int) qstate {
	q := qstate{prev: prev, price: p.open, open: p.open, high: p.open, low: p.open, last: p.open,
		vol: p.aVol, amt: p.aAmt, mf: p.aMF}
	for range k {
		p.step(&q)
	}
	return q
}

// step moves a state on by the next minute bar.
func (p *dayPath) step(q *qstate) {
	i := q.k
	q.last = q.price
	q.price = p.c[i]
	q.high = max(q.high, p.h[i])
	q.low = min(q.low, p.l[i])
	q.vol += p.v[i]
	q.amt += p.amt[i]
	q.mf += p.mf[i]
	q.k++
}

// preOpen is the state before the auction: the previous close, nothing
// traded.
func preOpen(prev int32) qstate {
	return qstate{prev: prev, price: prev, last: prev, k: -1}
}

// barEnd is the Unix time at which minute bar k (1..240) of day d closes.
func barEnd(d market.Day, k int) int64 {
	if k <= 120 {
		return d.At(9, 30, 0).Unix() + int64(60*k)
	}
	return d.At(13, 0, 0).Unix() + int64(60*(k-120))
}

// minuteBars are the 240 bars of a path, the auction folded into the first.
func (p *dayPath) minuteBars(d market.Day, fs float64) []market.Bar {
	out := make([]market.Bar, 240)
	morning, afternoon := d.At(9, 30, 0).Unix(), d.At(13, 0, 0).Unix()
	last := p.open
	for i := range out {
		b := market.Bar{Day: d, Open: cents(last), High: cents(p.h[i]), Low: cents(p.l[i]), Close: cents(p.c[i]),
			Volume: p.v[i] * 100, Amount: p.amt[i], LargeOrderNet: p.mf[i]}
		if i == 0 {
			b.Volume += p.aVol * 100
			b.Amount = p.aAmt + p.amt[0]
			b.LargeOrderNet = p.aMF + p.mf[0]
		}
		if i < 120 {
			b.TS = morning + int64(60*(i+1))
		} else {
			b.TS = afternoon + int64(60*(i-119))
		}
		b.TurnoverRate = round2(float64(b.Volume) / fs * 100)
		out[i] = b
		last = p.c[i]
	}
	return out
}

// dailyBar is the day's bar: the aggregate of its minutes.
func dailyBar(d market.Day, q qstate, fs float64) market.Bar {
	vol := q.vol * 100
	return market.Bar{Day: d, TS: d.At(15, 0, 0).Unix(), Open: cents(q.open), High: cents(q.high), Low: cents(q.low),
		Close: cents(q.price), Volume: vol, Amount: q.amt, TurnoverRate: round2(float64(vol) / fs * 100), LargeOrderNet: q.mf}
}

func cents(c int32) float64 { return float64(c) / 100 }
