package demo

import (
	"context"
	"time"

	"mdqs/internal/market"
)

// ETFs of the demo market. Each equity fund tracks one of the demo's
// indices: its IOPV is the index's level at that instant times a fixed
// ratio (a share is worth 1/1000 of 沪深300's points, as 510300's roughly
// is), and its price sits within a small premium of the IOPV drawn per
// fund and minute from the seed (at most ±0.3 %). The money fund has no
// index: its IOPV accrues 1.5 % a year from 100 at each year's start. Its
// volume is a fixed share of the tracked index's, its shares outstanding
// fixed. The funds are in this list only: the demo's quote list, K-lines
// and minute archive do not hold them (see docs/etfs.md).

// tagETF keeps the funds' draws apart from every other stream.
const tagETF uint64 = 301

type etfDef struct {
	code, name string
	category   string
	tracks     string  // an index of indexDefs; "" for the money fund
	ratio      float64 // IOPV per index point
	premium    float64 // the largest premium or discount, percent
	volShare   float64 // the fund's volume as a share of the index's
	shares     float64 // shares outstanding
}

func etfDefs() []etfDef {
	return []etfDef{
		{code: "510300.SH", name: "沪深300ETF", category: market.ETFAShare, tracks: "000300.SH", ratio: 0.001, premium: 0.3, volShare: 0.03, shares: 3.77e10},
		{code: "510210.SH", name: "上证指数ETF", category: market.ETFAShare, tracks: "000001.SH", ratio: 0.0003, premium: 0.3, volShare: 0.0005, shares: 2.6e9},
		{code: "159903.SZ", name: "深成ETF", category: market.ETFAShare, tracks: "399001.SZ", ratio: 0.0005, premium: 0.3, volShare: 0.0008, shares: 4.2e9},
		{code: "159915.SZ", name: "创业板ETF", category: market.ETFAShare, tracks: "399006.SZ", ratio: 0.001, premium: 0.3, volShare: 0.02, shares: 2.03e10},
		{code: "511880.SH", name: "银华日利", category: market.ETFMoney, premium: 0.002, shares: 1.6e8},
	}
}

// ETFs is the ETF list as of the clock's now.
func (m *Market) ETFs(ctx context.Context) ([]market.ETF, error) {
	return m.ETFsAt(ctx, m.clock.Now())
}

// ETFsAt is the ETF list as of t, in the order of etfDefs.
func (m *Market) ETFsAt(ctx context.Context, t time.Time) (out []market.ETF, err error) {
	defer m.observe(m.clock.Now(), &err)
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	inst, err := m.resolve(t)
	if err != nil {
		return nil, err
	}
	day := m.days[inst.idx]
	prevDay := day
	if inst.idx > 0 {
		prevDay = m.days[inst.idx-1]
	}
	for _, def := range etfDefs() {
		e := market.ETF{Code: market.MustCode(def.code), Name: def.name, Category: def.category, DataDate: day, At: inst.at,
			Shares: def.shares, DiscountRate: market.Unknown()}
		var level, prevLevel, open, high, low float64
		vol := int64(-1)
		if def.tracks == "" {
			level, prevLevel = moneyIOPV(day), moneyIOPV(prevDay)
			open, high, low = level, level, level
			vol = 0
			if inst.k > 0 {
				vol = int64(inst.k) * 200 * 100 // a steady trickle of lots
			}
		} else {
			k, ok := m.indexOf(market.MustCode(def.tracks))
			if !ok {
				continue
			}
			q, err := m.indexQuote(ctx, k, inst)
			if err != nil {
				return nil, err
			}
			e.Tracks = q.Code
			level, prevLevel = mul(q.Price, def.ratio), mul(q.PrevClose, def.ratio)
			open, high, low = mul(q.Open, def.ratio), mul(q.High, def.ratio), mul(q.Low, def.ratio)
			if q.Volume >= 0 {
				vol = int64Round(mul(float64(q.Volume), def.volShare)/100) * 100
			}
		}
		e.IOPV = round4(level)
		e.Price = round3(mul(e.IOPV, 1+m.etfPremium(def, day, inst.k)/100))
		e.PrevClose = round3(mul(round4(prevLevel), 1+m.etfPremium(def, prevDay, 240)/100))
		e.Open, e.High, e.Low = round3(open), round3(high), round3(low)
		if inst.k < 0 {
			e.Open, e.High, e.Low = market.Unknown(), market.Unknown(), market.Unknown()
		} else {
			e.High, e.Low = max(e.High, e.Price), min(e.Low, e.Price)
		}
		e.Change = round3(e.Price - e.PrevClose)
		e.Pct = round2((e.Price/e.PrevClose - 1) * 100)
		e.Volume = vol
		e.Amount, e.Turnover = market.Unknown(), market.Unknown()
		if vol >= 0 {
			e.Amount = roundYuan(mul(float64(vol), e.Price))
			e.Turnover = round2(float64(vol) / def.shares * 100)
		}
		e.MarketValue = roundYuan(mul(def.shares, e.Price))
		e.FloatValue = e.MarketValue
		// The demo's own discount rate, with push2's sign: (IOPV - price) / IOPV.
		e.DiscountRate = round2((e.IOPV - e.Price) / e.IOPV * 100)
		out = append(out, e)
	}
	return out, nil
}

// etfPremium is the fund's premium over its IOPV in one minute of a day
// (k as in instant), percent, within ±def.premium.
func (m *Market) etfPremium(def etfDef, d market.Day, k int) float64 {
	s := newStream(hash3(m.seed, tagETF, hashCode(def.code)), uint64(d)*256+uint64(k+1))
	return s.between(-def.premium, def.premium)
}

func hashCode(s string) uint64 {
	var h uint64 = 1469598103934665603
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * 1099511628211
	}
	return h
}

// moneyIOPV is the money fund's value: 100 at each year's start, accruing
// 1.5 % a year by calendar day.
func moneyIOPV(d market.Day) float64 {
	start := market.Day(d.Year()*10000 + 101)
	days := float64(d.EpochDays() - start.EpochDays())
	return 100 + mul(1.5, days/365)
}

func round3(x float64) float64 {
	if x != x {
		return x
	}
	return float64(int64Round(mul(x, 1000))) / 1000
}
