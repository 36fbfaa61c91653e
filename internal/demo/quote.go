package demo

import (
	"context"
	"math"

	"mdqs/internal/market"
)

// Quote is one security's quote as of the clock's now: a stock as QuotesAt
// shows it, an index (Indices) or an ETF (ETFs) from its minutes so far. An index has
// no limit prices, no book and no turnover rate; at 09:25-09:31 its level
// is the auction's open, with the auction's volume unknown (it is folded
// into the first minute, as the stocks' is). A code the demo does not
// list, or a stock not listed yet, is KindNotFound.
func (m *Market) Quote(ctx context.Context, code market.Code) (q market.Quote, err error) {
	defer m.observe(m.clock.Now(), &err)
	if err := ctxErr(ctx); err != nil {
		return q, err
	}
	inst, err := m.resolve(m.clock.Now())
	if err != nil {
		return q, err
	}
	if k, ok := m.indexOf(code); ok {
		return m.indexQuote(ctx, k, inst)
	}
	if f, ok := fundOf(code); ok {
		return m.fundQuoteNow(ctx, f, inst) // an ETF (etfbars.go)
	}
	si, ok := m.u.byCode[code]
	if !ok {
		return q, market.Errorf(market.KindNotFound, "demo: no stock or index %s", code)
	}
	ss := m.snapshot(inst)
	s, d := &m.u.stocks[si], m.days[inst.idx]
	if dl := s.delistedDay(); dl != 0 && d >= dl {
		return q, market.Errorf(market.KindNotFound, "demo: %s was delisted on %v", code, dl)
	}
	if ss.qs[si].prev <= 0 {
		return q, market.Errorf(market.KindNotFound, "demo: %s is not listed by %v", code, d)
	}
	return m.quote(s, d, ss.qs[si], ss.ds.avg5[si], inst.at), nil
}

// indexQuote is index k at an instant.
func (m *Market) indexQuote(ctx context.Context, k int, inst instant) (market.Quote, error) {
	if err := m.indexDays(ctx, inst.idx, inst.idx); err != nil {
		return market.Quote{}, err
	}
	b := m.indexBook()
	b.mu.Lock()
	sp := b.specs[k]
	prev := float64(hundredths(b.lv[k][inst.idx])) / 100
	b.mu.Unlock()
	nan := math.NaN()
	q := market.Quote{Code: sp.code, Name: sp.def.name, PrevClose: prev, Price: prev, Open: nan, High: nan, Low: nan,
		Turnover: nan, Amplitude: nan, VolumeRatio: nan, PE: nan, PB: nan, MarketCap: nan, FloatCap: nan, MainNetRatio: nan,
		Speed: nan, At: inst.at}
	if inst.k >= 0 {
		mins := m.indexMinutes(k, inst.idx)
		if mins == nil {
			return market.Quote{}, market.Errorf(market.KindNotFound, "demo: %s has no member listed by %v", sp.code, m.days[inst.idx])
		}
		q.Open, q.High, q.Low, q.Price = mins[0].Open, mins[0].Open, mins[0].Open, mins[0].Open
		q.Volume, q.Amount, q.MainNet = -1, nan, nan
		if inst.k > 0 {
			q.Volume, q.Amount, q.MainNet = 0, 0, 0
			for _, b := range mins[:inst.k] {
				q.High, q.Low = max(q.High, b.High), min(q.Low, b.Low)
				q.Volume += b.Volume
				q.Amount += b.Amount
				q.MainNet += b.LargeOrderNet
			}
			q.Price = mins[inst.k-1].Close
		}
		if prev > 0 {
			q.Amplitude = round2((q.High - q.Low) / prev * 100)
		}
	}
	if prev > 0 {
		q.Change, q.Pct = round2(q.Price-prev), round2((q.Price/prev-1)*100)
	}
	return q, nil
}
