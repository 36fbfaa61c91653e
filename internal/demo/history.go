package demo

import (
	"context"

	"mdqs/internal/market"
)

// EachDailyHistory calls fn with every stock's daily bars of the n trading
// days through day (fewer for a stock listed since; none for one listed
// after), in code order: the bars Klines gives stock by stock, made from
// the market's daily walk, one pass over all stocks a day. A stock's own
// walk (Klines) starts from the anchor; a whole market's history this way
// is a step a day. Bars after the clock's now are left out.
func (m *Market) EachDailyHistory(ctx context.Context, day market.Day, n int, fn func(code market.Code, bars []market.Bar) error) (err error) {
	defer m.observe(m.clock.Now(), &err)
	last := m.onOrBefore(day)
	if last < 0 || n <= 0 {
		return nil
	}
	first := max(0, last-n+1)
	// Pass 1, day by day: each stock's closes and volumes.
	days := last - first + 1
	stocks := len(m.u.stocks)
	prev, close := make([]int32, days*stocks), make([]int32, days*stocks)
	vday := make([]int64, days*stocks)
	for j := range days {
		if err := ctxErr(ctx); err != nil {
			return err
		}
		ds := m.dayState(first + j)
		copy(prev[j*stocks:], ds.prev)
		copy(close[j*stocks:], ds.close)
		copy(vday[j*stocks:], ds.vday)
	}
	// Pass 2, stock by stock: the bars.
	cut := m.clock.Now().Unix()
	for si := range m.u.stocks {
		if si%256 == 0 {
			if err := ctxErr(ctx); err != nil {
				return err
			}
		}
		s := &m.u.stocks[si]
		var bars []market.Bar
		for j := range days {
			at := j*stocks + si
			d := m.days[first+j]
			if prev[at] <= 0 || s.haltedOn(d) {
				continue
			}
			b := m.dayOf(s, d, prev[at], close[at], vday[at]).bar(d, close[at], vday[at], s.fsF)
			if b.TS > cut {
				continue
			}
			if bars == nil {
				bars = make([]market.Bar, 0, days-j)
			}
			bars = append(bars, b)
		}
		if len(bars) == 0 {
			continue
		}
		if err := fn(s.code, bars); err != nil {
			return err
		}
	}
	return nil
}
