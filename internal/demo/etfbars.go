package demo

import (
	"context"
	"math"
	"sync"

	"mdqs/internal/market"
)

// A fund's session (etf.go has the funds). Its 240 minutes follow its
// IOPV: a tracked fund's is the index's minute bars times the fund's
// ratio (indexMinutes), the money fund's its day's accrued value. Each
// minute closes at that minute's IOPV times one plus the minute's
// premium, in the 0.001 tick; the 09:25 auction opens the day at the
// index's open with a premium of its own; a minute opens where the one
// before closed and reaches the IOPV's high and low at the same premium.
// Volume is a fixed share of the index's minute (at least a lot; the
// money fund a steady 200 lots), a fifth of the first minute matched in
// the auction; amounts are volume at the minute's typical price, in
// whole yuan, so every sum is exact. The daily bar is the minutes'
// aggregate and a quote the minutes so far, as for a stock.
//
// The previous close is yesterday's last minute, computed from
// yesterday's closing level (not from yesterday's session, which would
// chain back through history). Every price is kept inside the day's
// limits from it, ±10 % (±20 % for a fund of ChiNext stocks): a fund
// moves with its index, whose members are inside the same limits, so the
// clamp could bite only on a day the whole index moved by its limit, and
// then the next day's previous close would not be that day's clamped
// close (TestFundClosesChainOverTheHistory finds no such day in six years
// of a market).

// Minute volumes: the money fund's, and the least of a tracked fund's
// minute (the first at least five lots, so the auction has one).
const (
	moneyMinuteVolume = 20_000
	fundMinVolume     = 100
	fundMinFirst      = 500
)

// fundDay is one fund's session.
type fundDay struct {
	prev, up, down int64 // previous close and the day's limit prices, thousandths
	open           int64 // the 09:25 auction's price, the day's open
	aVol           int64 // the auction's volume, shares, inside the first minute's
	aAmt           float64
	preIOPV        float64      // the IOPV before the auction
	iopv           [241]float64 // [0] the auction's, [k] at the close of minute k
	bars           []market.Bar // 240, the auction folded into the first
	daily          market.Bar   // their aggregate
}

// iopvAt is the IOPV at an instant's k (as instant: -1 before the
// auction, 0 the auction, else completed minutes).
func (fd *fundDay) iopvAt(k int) float64 {
	if k < 0 {
		return fd.preIOPV
	}
	return fd.iopv[k]
}

// fundDays caches the funds' daily bars, which a long daily series would
// otherwise rebuild session by session (a session costs its index's
// minutes). A bar is a pure function of the seed and the day.
type fundDays struct {
	mu    sync.Mutex
	daily [][]market.Bar // per fund, per timeline day; TS 0: not built, -1: not listed
}

// fundDayAt is fund f's session of timeline day i; nil when the fund is
// not listed that day (its index has no member yet).
func (m *Market) fundDayAt(ctx context.Context, f, i int) (*fundDay, error) {
	def := etfDefs()[f]
	d := m.days[i]
	prevD := d // the premium of the close before the first day: any fixed draw
	if i > 0 {
		prevD = m.days[i-1]
	}
	fd := &fundDay{}
	var hi, lo, cl [240]float64 // the IOPV of each minute
	var vol [240]int64
	var prevIOPV float64
	if def.tracks == "" {
		v := round4(moneyIOPV(d))
		fd.preIOPV, fd.iopv[0] = v, v
		for j := range 240 {
			hi[j], lo[j], cl[j], vol[j] = v, v, v, moneyMinuteVolume
		}
		prevIOPV = round4(moneyIOPV(prevD))
	} else {
		k, ok := m.indexOf(market.MustCode(def.tracks))
		if !ok {
			return nil, nil
		}
		if err := m.indexDays(ctx, i, i); err != nil {
			return nil, err
		}
		mins := m.indexMinutes(k, i)
		if mins == nil {
			return nil, nil
		}
		iopv := func(level float64) float64 { return round4(mul(level, def.ratio)) }
		prevIOPV = iopv(m.indexPrevLevel(k, i))
		fd.preIOPV, fd.iopv[0] = prevIOPV, iopv(mins[0].Open)
		for j, b := range mins {
			hi[j], lo[j], cl[j] = iopv(b.High), iopv(b.Low), iopv(b.Close)
			vol[j] = max(int64Round(mul(float64(b.Volume), def.volShare)/100)*100, fundMinVolume)
		}
		vol[0] = max(vol[0], fundMinFirst)
	}
	for j := range 240 {
		fd.iopv[j+1] = cl[j]
	}
	fd.prev = thousandths(mul(prevIOPV, 1+m.etfPremium(def, prevD, 240)/100))
	pct := int64(10)
	if def.wide {
		pct = 20
	}
	fd.up, fd.down = (fd.prev*(100+pct)+50)/100, max((fd.prev*(100-pct)+50)/100, 1)
	px := func(iopv, premium float64) int64 {
		return min(max(thousandths(mul(iopv, 1+premium/100)), fd.down), fd.up)
	}
	fd.open = px(fd.iopv[0], m.etfPremium(def, d, 0))
	fd.aVol = max(vol[0]/500*100, fundMinVolume)
	fd.aAmt = roundYuan(mul(float64(fd.aVol), yuan3(fd.open)))
	fd.bars = make([]market.Bar, 240)
	last := fd.open
	morning, afternoon := d.At(9, 30, 0).Unix(), d.At(13, 0, 0).Unix() // barEnd's, once a day
	day := market.Bar{Day: d, TS: d.At(15, 0, 0).Unix(), Open: yuan3(fd.open), High: yuan3(fd.open), Low: yuan3(fd.open),
		LargeOrderNet: market.Unknown()}
	for j := range 240 {
		p := m.etfPremium(def, d, j+1)
		c := px(cl[j], p)
		h, l := max(last, c, px(hi[j], p)), min(last, c, px(lo[j], p))
		typ := float64((last + h + l + c) / 4)
		v := vol[j]
		amt := roundYuan(mul(float64(v), typ) / 1000)
		if j == 0 {
			amt = fd.aAmt + roundYuan(mul(float64(v-fd.aVol), typ)/1000)
		}
		ts := morning + int64(60*(j+1))
		if j >= 120 {
			ts = afternoon + int64(60*(j-119))
		}
		fd.bars[j] = market.Bar{Day: d, TS: ts, Open: yuan3(last), High: yuan3(h), Low: yuan3(l), Close: yuan3(c),
			Volume: v, Amount: amt, TurnoverRate: round2(float64(v) / def.shares * 100), LargeOrderNet: market.Unknown()}
		day.High, day.Low = max(day.High, yuan3(h)), min(day.Low, yuan3(l))
		day.Close = yuan3(c)
		day.Volume += v
		day.Amount += amt
		last = c
	}
	day.TurnoverRate = round2(float64(day.Volume) / def.shares * 100)
	fd.daily = day
	return fd, nil
}

// indexPrevLevel is index k's close before timeline day i, in the
// hundredths the exchanges quote (indexQuote's previous close); day i is
// known (indexDays).
func (m *Market) indexPrevLevel(k, i int) float64 {
	b := m.indexBook()
	b.mu.Lock()
	defer b.mu.Unlock()
	return float64(hundredths(b.lv[k][i])) / 100
}

// fundQuote is a fund's quote at an instant of its session: before the
// auction the previous close, at the auction its price and volume, then
// the minutes completed so far, as a stock's quote is. The demo publishes
// its limit prices, as push2's single quote does a fund's.
func (m *Market) fundQuote(def etfDef, fd *fundDay, inst instant) market.Quote {
	nan := math.NaN()
	q := market.Quote{Code: market.MustCode(def.code), Name: def.name, PrevClose: yuan3(fd.prev), Price: yuan3(fd.prev),
		Open: nan, High: nan, Low: nan, Amplitude: nan, VolumeRatio: nan, PE: nan, PB: nan, MainNet: nan, MainNetRatio: nan,
		Speed: nan, LimitUp: yuan3(fd.up), LimitDown: yuan3(fd.down), At: inst.at}
	switch {
	case inst.k == 0:
		o := yuan3(fd.open)
		q.Open, q.High, q.Low, q.Price = o, o, o, o
		q.Volume, q.Amount = fd.aVol, fd.aAmt
	case inst.k > 0:
		a := fd.bars[0]
		for _, b := range fd.bars[1:inst.k] {
			a.High, a.Low, a.Close = max(a.High, b.High), min(a.Low, b.Low), b.Close
			a.Volume += b.Volume
			a.Amount += b.Amount
		}
		q.Open, q.High, q.Low, q.Price, q.Volume, q.Amount = a.Open, a.High, a.Low, a.Close, a.Volume, a.Amount
	}
	if inst.k >= 0 {
		q.Amplitude = round2((q.High - q.Low) / q.PrevClose * 100)
	}
	q.Change = round3(q.Price - q.PrevClose)
	q.Pct = round2((q.Price/q.PrevClose - 1) * 100)
	q.Turnover = round2(float64(q.Volume) / def.shares * 100)
	q.MarketCap = roundYuan(mul(def.shares, q.Price))
	q.FloatCap = q.MarketCap
	return q
}

// fundQuoteNow is Quote for fund f.
func (m *Market) fundQuoteNow(ctx context.Context, f int, inst instant) (market.Quote, error) {
	def := etfDefs()[f]
	fd, err := m.fundDayAt(ctx, f, inst.idx)
	if err != nil {
		return market.Quote{}, err
	}
	if fd == nil {
		return market.Quote{}, market.Errorf(market.KindNotFound, "demo: %s is not listed by %v", def.code, m.days[inst.idx])
	}
	return m.fundQuote(def, fd, inst), nil
}

// fundDaily is fund f's daily bar of timeline day i, from the cache;
// false when it is not listed that day.
func (m *Market) fundDaily(ctx context.Context, f, i int) (market.Bar, bool, error) {
	c := &m.funds
	c.mu.Lock()
	if c.daily == nil {
		c.daily = make([][]market.Bar, len(etfDefs()))
	}
	if c.daily[f] == nil {
		c.daily[f] = make([]market.Bar, len(m.days))
	}
	b := c.daily[f][i]
	c.mu.Unlock()
	if b.TS == 0 {
		fd, err := m.fundDayAt(ctx, f, i)
		if err != nil {
			return b, false, err
		}
		b.TS = -1
		if fd != nil {
			b = fd.daily
		}
		c.mu.Lock()
		c.daily[f][i] = b
		c.mu.Unlock()
	}
	return b, b.TS > 0, nil
}

// fundKlines is Klines for fund f, with an index's rules for the days.
func (m *Market) fundKlines(ctx context.Context, f int, freq market.Freq, from, to market.Day) ([]market.Bar, error) {
	lo, hi, cut, err := m.klineSpan(freq, from, to)
	bars := []market.Bar{}
	if err != nil || lo > hi {
		return bars, err
	}
	if err := m.fundIndexDays(ctx, f, lo, hi); err != nil {
		return nil, err
	}
	for i := lo; i <= hi; i++ {
		if i%64 == 0 {
			if err := ctxErr(ctx); err != nil {
				return nil, err
			}
		}
		if freq == market.Daily {
			b, ok, err := m.fundDaily(ctx, f, i)
			if err != nil {
				return nil, err
			}
			if ok && b.TS <= cut {
				bars = append(bars, b)
			}
			continue
		}
		fd, err := m.fundDayAt(ctx, f, i)
		if err != nil {
			return nil, err
		}
		if fd == nil {
			continue
		}
		day := fd.bars
		if freq == market.Min5 {
			day = fiveMinute(day, etfDefs()[f].shares)
		}
		for _, b := range day {
			if b.TS <= cut {
				bars = append(bars, b)
			}
		}
	}
	return bars, nil
}

// fundIndexDays makes days lo..hi of a tracked fund's index known in one
// walk (fundDayAt would ask for them one at a time).
func (m *Market) fundIndexDays(ctx context.Context, f, lo, hi int) error {
	if etfDefs()[f].tracks == "" {
		return nil
	}
	return m.indexDays(ctx, lo, hi)
}

// fundTrends is Trends for fund f, with a stock's rule for which session
// is the latest.
func (m *Market) fundTrends(ctx context.Context, f, ndays int) ([]market.Bar, error) {
	lo, latest, cut := m.trendsSpan(ndays)
	bars := []market.Bar{}
	if lo > latest {
		return bars, nil
	}
	if err := m.fundIndexDays(ctx, f, lo, latest); err != nil {
		return nil, err
	}
	for i := lo; i <= latest; i++ {
		fd, err := m.fundDayAt(ctx, f, i)
		if err != nil {
			return nil, err
		}
		if fd == nil {
			continue
		}
		for _, b := range fd.bars {
			if b.TS <= cut {
				bars = append(bars, b)
			}
		}
	}
	return bars, nil
}
