package demo

import (
	"math"

	"mdqs/internal/market"
)

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

// dayBar is a stock's daily bar before any minute exists: the day's range,
// amount and main-force net are drawn from the day's own quantities in
// O(1), and genPath then shapes the minutes to add up to exactly this
// bar. History of a whole market is daily bars, so this is what makes it
// cheap: generating every minute path first cost about 12 µs a stock-day
// (689,000 stock-days for 130 days of 5,300 stocks), this about 0.2 µs.
type dayBar struct {
	open, high, low int32   // cents
	amt, mf         float64 // yuan, whole
	q               float64 // when the day's move happens (see f(u) above)
	bias            float64 // the day's main-force bias
	ref             float64 // the day's mean of open and close, cents
}

// minuteVol is a stock's one-minute volatility of its intraday path, all
// factors together (the bridges are independent).
func (m *Market) minuteVol(s *stock) float64 {
	cm, ci, cc := mul(s.beta, m.mkMin), mul(s.gamma, m.inMin), mul(s.dc, m.cnMin)
	v := mul(cm, cm) + mul(ci, ci) + mul(s.sigMin, s.sigMin)
	if len(s.concepts) > 0 {
		v += mul(cc, cc)
	}
	return math.Sqrt(v) // correctly rounded everywhere, unlike exp or log
}

// dayOf draws a stock's daily bar of day d from its previous close, close
// and volume (lots).
func (m *Market) dayOf(s *stock, d market.Day, prev, close int32, vday int64) dayBar {
	rs := newStream(hash2(s.key, tagIntraday), uint64(d))
	lo, hi := limits(prev, s.limitOn(d))
	R := float64(close-prev) / float64(prev)
	g := mul(0.4, R) + mul(mul(s.sigma, 0.35), rs.norm())
	b := dayBar{open: clampI32(roundCents(float64(prev)*(1+g)), lo, hi)}
	b.q = rs.between(0.3, 3.0)
	if close == hi || close == lo {
		b.q = rs.between(0.03, 0.3) // reach the limit by mid-session and sit on it
	}
	b.ref = float64(b.open+close) / 2
	ds := newStream(hash2(s.key, tagDay), uint64(d))
	// The path's excursion beyond the open-close band is the largest
	// deviation of its bridges, about 0.63 sd*sqrt(240) on average, plus a
	// minute's wick.
	swing := mul(mul(b.ref, m.minuteVol(s)), math.Sqrt(240))
	wick := mul(b.ref, mul(s.sigMin, 0.8))
	top, bottom := max(b.open, close), min(b.open, close)
	up := mul(swing, 0.15+mul(0.35, abs(ds.norm()))) + mul(wick, ds.unit())
	dn := mul(swing, 0.15+mul(0.35, abs(ds.norm()))) + mul(wick, ds.unit())
	b.high = clampI32(roundCents(float64(top)+up), top, hi)
	b.low = clampI32(roundCents(float64(bottom)-dn), max(lo, 1), bottom)
	// Amount: the day's lots at the path's volume-weighted mean price,
	// the open-close drift averaged under the U-shaped volume profile (a
	// 12-point quadrature of f), with a little noise; inside the range.
	var wsum, fsum float64
	for j := range 12 {
		k := 20*j + 10
		u := float64(k) / 240
		w := m.shape[k]
		wsum += w
		fsum += mul(w, u/(u+mul(b.q, 1-u)))
	}
	mean := float64(b.open) + mul(float64(close-b.open), fsum/wsum)
	mean = clampF(mul(mean, 1+mul(0.002, ds.norm())), float64(b.low), float64(b.high))
	b.amt = roundYuan(mul(float64(vday), mean))
	b.bias = mul(0.12, sat(R/s.sigTot)) + mul(0.05, ds.norm())
	b.mf = roundYuan(mul(b.amt, clampF(b.bias+mul(0.03, ds.norm()), -0.8, 0.8)))
	return b
}

// genPath builds a stock's session of day d from its previous close, close
// and volume (lots), shaped to add up to exactly the day's bar (dayOf).
// mk, in, cn are the bridges of the market, its industry and its first
// concept (cn nil without concepts).
func (m *Market) genPath(p *dayPath, s *stock, d market.Day, prev, close int32, vday int64, mk, in, cn *[241]float64) {
	day := m.dayOf(s, d, prev, close, vday)
	rs := newStream(hash2(s.key, tagIntraday), uint64(d))
	rs.norm() // the open's draw, and q's, made by dayOf
	rs.unit()
	open, q, ref := day.open, day.q, day.ref
	p.open = open
	w := 0.0
	e := &p.idioBridge
	for k := 1; k <= 240; k++ {
		w += rs.norm()
		e[k] = w
	}
	end := e[240]
	move := float64(close - open)
	cm, ci, cc := mul(s.beta, m.mkMin), mul(s.gamma, m.inMin), mul(s.dc, m.cnMin)
	// The drift from open to close plus the bridges' deviation, brought to
	// span the day's range exactly: see reach.
	hi, lo := day.high, day.low
	x := &p.w // scratch, refilled with volume weights below
	for k := 1; k < 240; k++ {
		u := float64(k) / 240
		frac := u / (u + mul(q, 1-u))
		d := mul(cm, mk[k]) + mul(ci, in[k]) + mul(s.sigMin, e[k]-mul(end, u))
		if cn != nil {
			d += mul(cc, cn[k])
		}
		x[k-1] = float64(open) + mul(move, frac) + mul(ref, d)
	}
	x[239] = float64(close)
	reach(x, float64(max(open, close)), float64(hi), 1)
	reach(x, float64(min(open, close)), float64(lo), -1)
	exc := mul(ref, s.sigMin) // one-minute price move, cents
	last := open
	for k := 1; k <= 240; k++ {
		c := close
		if k < 240 {
			c = clampI32(roundCents(x[k-1]), lo, hi)
		}
		r := rs.u64()
		up := int32(mul(exc, float64(r&0xffff)*(0.8/65536)))
		dn := int32(mul(exc, float64(r>>16&0xffff)*(0.8/65536)))
		p.c[k-1] = c
		p.h[k-1] = min(max(last, c)+up, hi)
		p.l[k-1] = max(min(last, c)-dn, lo)
		last = c
	}
	// The day's high and low are reached: where the path comes nearest,
	// if its excursion did not reach them.
	highAt, lowAt := 0, 0
	for k := range p.h {
		if p.h[k] > p.h[highAt] {
			highAt = k
		}
		if p.l[k] < p.l[lowAt] {
			lowAt = k
		}
	}
	p.h[highAt], p.l[lowAt] = hi, lo
	last = open
	for k := 1; k <= 240; k++ {
		c := p.c[k-1]
		noise := 0.6 + mul(float64(rs.u64()>>32&0xffff), 0.8/65536)
		diff := float64(c - last)
		if diff < 0 {
			diff = -diff
		}
		p.w[k-1] = mul(mul(m.shape[k], noise), 1+25*diff/ref)
		last = c
	}
	p.aVol = int64(mul(float64(vday), rs.between(0.004, 0.016)))
	cont := vday - p.aVol
	p.aAmt = float64(p.aVol) * float64(open)
	// Each minute trades at its mean price (amount = lots x cents, in
	// yuan), so its average price lies inside its range; the day's amount
	// fixes the volume-weighted mean of those prices, which a tilt of the
	// volume profile toward the dearer or the cheaper minutes meets.
	t := &p.amt // scratch: the minutes' mean prices
	last = open
	for k := range t {
		t[k] = float64(int64(last)+int64(p.h[k])+int64(p.l[k])+int64(p.c[k])) / 4
		last = p.c[k]
	}
	tilt(&p.w, t, (day.amt-p.aAmt)/float64(cont))
	sumW := 0.0
	for _, w := range p.w {
		sumW += w
	}
	var tot int64
	big := 0
	for k := range p.v {
		p.v[k] = int64(float64(cont) * p.w[k] / sumW)
		tot += p.v[k]
		if p.v[k] > p.v[big] {
			big = k
		}
	}
	if rem := cont - tot; rem >= 0 {
		p.v[0] += rem
	} else {
		p.v[big] = max(0, p.v[big]+rem) // rounding overshot (never seen)
	}
	var amt float64
	for k := range p.amt {
		p.amt[k] = roundYuan(float64(p.v[k]) * t[k])
		amt += p.amt[k]
	}
	p.spread(day.amt-p.aAmt-amt, big)
	// Main-force net: per minute the day's bias, the minute's move and
	// noise, shifted to add up to the day's figure.
	p.aMF = roundYuan(mul(p.aAmt, clampF(day.bias+mul(0.2, rs.norm()), -0.8, 0.8)))
	var flow, traded float64
	last = open
	for k := range p.mf {
		mv := 0.0
		if exc > 0 {
			mv = float64(p.c[k]-last) / exc
		}
		f := clampF(day.bias+mul(0.12, sat(mv))+mul(0.15, rs.norm()), -0.85, 0.85)
		p.mf[k] = mul(p.amt[k], f)
		flow += p.mf[k]
		traded += p.amt[k]
		last = p.c[k]
	}
	shift := 0.0
	if traded > 0 {
		shift = (day.mf - p.aMF - flow) / traded
	}
	var mf float64
	for k := range p.mf {
		p.mf[k] = roundYuan(p.mf[k] + mul(p.amt[k], shift))
		mf += p.mf[k]
	}
	p.mf[big] += day.mf - p.aMF - mf
}

// reachWidth is the half-width, in minutes, of the rally (or sell-off)
// that takes a path to the day's high (low).
const reachWidth = 15

// reach makes the path x (minutes 1..239; x[239] is the close) touch
// target at its extreme on one side (sign 1: the high above band, the
// larger of open and close; -1: the low below it). A path short of it
// gets a rally into its highest point, tapering over reachWidth minutes on
// each side, so the day's high comes as a move, not a one-minute spike;
// a path beyond it has its excursion past the band shrunk in proportion.
// Either way no other minute passes target.
func reach(x *[240]float64, band, target float64, sign float64) {
	at := 0
	for k := range 239 {
		if mul(sign, x[k]-x[at]) > 0 {
			at = k
		}
	}
	gap := target - x[at]
	switch {
	case mul(sign, gap) >= 0:
		for k := max(0, at-reachWidth+1); k < min(239, at+reachWidth); k++ {
			d := k - at
			if d < 0 {
				d = -d
			}
			x[k] += mul(gap, float64(reachWidth-d)/reachWidth)
		}
	case mul(sign, x[at]-band) > 0:
		f := (target - band) / (x[at] - band)
		for k := range 239 {
			if mul(sign, x[k]-band) > 0 {
				x[k] = band + mul(x[k]-band, f)
			}
		}
	}
}

// tilt reweights w so that the w-weighted mean of t is target, by the
// least change of a linear tilt w(1+θ(t-mean)), each weight kept at 5 % of
// its own at least. A target outside the prices' span gets as near as the
// floor allows; spread takes up the rest.
func tilt(w, t *[240]float64, target float64) {
	var floored [240]bool
	for range 5 {
		var a, c float64
		for k := range w {
			if !floored[k] {
				a += mul(w[k], t[k])
				c += w[k]
			}
		}
		var fa, fc float64 // the floored minutes' fixed share
		for k := range w {
			if floored[k] {
				fa += mul(mul(w[k], 0.05), t[k])
				fc += mul(w[k], 0.05)
			}
		}
		if c <= 0 {
			return
		}
		mean := a / c
		var b float64
		for k := range w {
			if !floored[k] {
				d := t[k] - mean
				b += mul(mul(w[k], d), d)
			}
		}
		if b <= 0 {
			return
		}
		// (a + θb + fa) / (c + fc) = target
		theta := (mul(target, c+fc) - a - fa) / b
		again := false
		for k := range w {
			if !floored[k] && 1+mul(theta, t[k]-mean) < 0.05 {
				floored[k], again = true, true
			}
		}
		if again {
			continue
		}
		for k := range w {
			if floored[k] {
				w[k] = mul(w[k], 0.05)
			} else {
				w[k] = mul(w[k], 1+mul(theta, t[k]-mean))
			}
		}
		return
	}
}

// spread adds rest yuan to the minutes' amounts within their ranges (an
// amount between lots x low and lots x high), in proportion to the room
// each has; what no minute has room for, and the rounding, goes to the
// minute big.
func (p *dayPath) spread(rest float64, big int) {
	if rest == 0 {
		return
	}
	var room [240]float64
	var total float64
	for k := range p.amt {
		if rest > 0 {
			room[k] = max(0, float64(p.v[k])*float64(p.h[k])-p.amt[k])
		} else {
			room[k] = max(0, p.amt[k]-float64(p.v[k])*float64(p.l[k]))
		}
		total += room[k]
	}
	if total > 0 {
		share := min(1, abs(rest)/total)
		if rest < 0 {
			share = -share
		}
		var added float64
		for k := range p.amt {
			add := roundYuan(mul(room[k], share))
			p.amt[k] += add
			added += add
		}
		rest -= added
	}
	p.amt[big] += rest
}

// qstate is a stock's cumulative session state after k minute bars.
type qstate struct {
	prev, price, open, high, low int32
	last                         int32 // the price one bar earlier, for the speed
	vol                          int64 // lots
	amt, mf                      float64
	k                            int // -1 before the auction
	halted                       bool
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

// bar is the daily bar of a day that closed at close on vday lots: what
// dailyBar of its path's closing state gives, without the path.
func (b dayBar) bar(d market.Day, close int32, vday int64, fs float64) market.Bar {
	return dailyBar(d, qstate{open: b.open, high: b.high, low: b.low, price: close, vol: vday, amt: b.amt, mf: b.mf}, fs)
}

func cents(c int32) float64 { return float64(c) / 100 }
