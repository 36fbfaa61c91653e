package demo

import (
	"context"
	"time"

	"mdqs/internal/market"
)

// ETFs of the demo market, traded as its stocks are: a quote, daily and
// minute K-lines, trends2's minutes and a place in each day's universe
// (NamesOn), so the security master records them and the minute archive
// keeps them, as live it does the ETF list's funds. Each equity fund
// tracks one of the demo's indices: its IOPV is the index's level at
// that instant times a fixed ratio (a share is worth 1/1000 of 沪深300's
// points, as 510300's roughly is), and its price sits within a small
// premium of the IOPV drawn per fund and minute from the seed (at most
// ±0.3 %). The money fund has no index: its IOPV accrues 1.5 % a year
// from 100 at each year's start. Prices are in the funds' 0.001 tick;
// etfbars.go makes each session's minutes, from which the daily bar, the
// quote and the ETF list's row at any instant are all folded.

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
	// wide is a ±20 % daily limit instead of ±10 %: a fund whose index
	// holds only ChiNext stocks (SZSE's ChiNext trading rules, 2.9), which
	// are ±20 % on every demo day.
	wide bool
}

func etfDefs() []etfDef {
	return []etfDef{
		{code: "510300.SH", name: "沪深300ETF", category: market.ETFAShare, tracks: "000300.SH", ratio: 0.001, premium: 0.3, volShare: 0.03, shares: 3.77e10},
		{code: "510210.SH", name: "上证指数ETF", category: market.ETFAShare, tracks: "000001.SH", ratio: 0.0003, premium: 0.3, volShare: 0.0005, shares: 2.6e9},
		{code: "159903.SZ", name: "深成ETF", category: market.ETFAShare, tracks: "399001.SZ", ratio: 0.0005, premium: 0.3, volShare: 0.0008, shares: 4.2e9},
		{code: "159915.SZ", name: "创业板ETF", category: market.ETFAShare, tracks: "399006.SZ", ratio: 0.001, premium: 0.3, volShare: 0.02, shares: 2.03e10, wide: true},
		{code: "511880.SH", name: "银华日利", category: market.ETFMoney, premium: 0.002, shares: 1.6e8},
	}
}

// fundOf is the position of a fund among etfDefs.
func fundOf(code market.Code) (int, bool) {
	if market.Classify(code) != market.TypeFund {
		return 0, false
	}
	for f, def := range etfDefs() {
		if def.code == code.String() {
			return f, true
		}
	}
	return 0, false
}

// ETFs is the ETF list as of the clock's now.
func (m *Market) ETFs(ctx context.Context) ([]market.ETF, error) {
	return m.ETFsAt(ctx, m.clock.Now())
}

// ETFsAt is the ETF list as of t, in the order of etfDefs: each fund's
// quote at t (the same figures Quote gives) with its IOPV, shares and
// values. A fund whose index has no member listed by then is left out.
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
	for f, def := range etfDefs() {
		fd, err := m.fundDayAt(ctx, f, inst.idx)
		if err != nil {
			return nil, err
		}
		if fd == nil {
			continue
		}
		q := m.fundQuote(def, fd, inst)
		e := market.ETF{Code: q.Code, Name: q.Name, Category: def.category, DataDate: day, At: q.At,
			Price: q.Price, Pct: q.Pct, Change: q.Change, Open: q.Open, High: q.High, Low: q.Low, PrevClose: q.PrevClose,
			Volume: q.Volume, Amount: q.Amount, Turnover: q.Turnover, MarketValue: q.MarketCap, FloatValue: q.FloatCap,
			Shares: def.shares, IOPV: fd.iopvAt(inst.k)}
		if def.tracks != "" {
			e.Tracks = market.MustCode(def.tracks)
		}
		if inst.k < 0 {
			e.Open, e.High, e.Low = market.Unknown(), market.Unknown(), market.Unknown()
		}
		// The demo's own discount rate, with push2's sign: (IOPV - price) / IOPV.
		e.DiscountRate = round2((e.IOPV - e.Price) / e.IOPV * 100)
		out = append(out, e)
	}
	return out, nil
}

// etfPremium is the fund's premium over its IOPV in one minute of a day
// (k: 0 the auction, 1..240 the minute bars), percent, within
// ±def.premium.
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

// addFundNames adds the funds listed on day to a day's names (NamesOn):
// the security master records them with the stocks, as it records the
// ETF list's live.
func (m *Market) addFundNames(out map[market.Code]string, day market.Day) {
	i := m.onOrBefore(day)
	if i < 0 {
		return
	}
	for f, def := range etfDefs() {
		if fd, err := m.fundDayAt(context.Background(), f, i); err == nil && fd != nil {
			out[market.MustCode(def.code)] = def.name
		}
	}
}

func round3(x float64) float64 {
	if x != x {
		return x
	}
	return float64(int64Round(mul(x, 1000))) / 1000
}

// thousandths is a price in the funds' 0.001 tick, rounded half up.
func thousandths(x float64) int64 { return int64Round(mul(x, 1000)) }

// yuan3 is a price in thousandths as yuan, exactly as round3 gives it
// (and as the store's ten-thousandths give it back).
func yuan3(x int64) float64 { return float64(x) / 1000 }
