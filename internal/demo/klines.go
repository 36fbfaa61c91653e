package demo

import (
	"context"
	"slices"
	"sync"

	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

// maxMinuteDays bounds one minute-bar request (60,000 one-minute bars).
const maxMinuteDays = 250

// series is one stock's daily closes and, built as requested, its daily
// bars. Index i-first holds timeline day i. Bars are pure functions of
// the seed and the day, so a built bar never changes; the clock only
// decides which are returned.
type series struct {
	mu     sync.Mutex
	prev0  int32
	closes []int32
	bars   []market.Bar // TS == 0: not built yet
}

// seriesOf returns the stock's series covering day last, locked.
func (m *Market) seriesOf(si int32, last int) *series {
	m.seriesMu.Lock()
	sr, ok := m.series.get(si)
	if !ok {
		sr = &series{}
		m.series.put(si, sr)
	}
	m.seriesMu.Unlock()
	sr.mu.Lock()
	s := &m.u.stocks[si]
	last = min(last, s.last)
	if len(sr.closes) < last-s.first+1 {
		sr.prev0, sr.closes = m.stockCloses(s, last)
		bars := make([]market.Bar, len(sr.closes))
		copy(bars, sr.bars)
		sr.bars = bars
	}
	return sr
}

// prevClose is day i's previous close: the close before, mapped on an
// ex-date (exrights.go), or the issue price on a listing day.
func (sr *series) prevClose(s *stock, i int) int32 {
	if i == s.first {
		return sr.prev0
	}
	return s.refOf(i, sr.closes[i-1-s.first])
}

// path generates the stock's session of day i into p.
func (m *Market) path(p *dayPath, s *stock, sr *series, i int) {
	d := m.days[i]
	prev, close := sr.prevClose(s, i), sr.closes[i-s.first]
	var mk, in, cn [241]float64
	m.bridge(0, d, &mk)
	m.bridge(1+int(s.ind), d, &in)
	cp := (*[241]float64)(nil)
	if len(s.concepts) > 0 {
		m.bridge(1+m.nInd+int(s.concepts[0]), d, &cn)
		cp = &cn
	}
	m.genPath(p, s, d, prev, close, dailyVolume(s, d, prev, close), &mk, &in, cp)
}

func (m *Market) dailyBarOf(p *dayPath, s *stock, sr *series, i int) market.Bar {
	k := i - s.first
	if sr.bars[k].TS == 0 {
		d := m.days[i]
		prev, close := sr.prevClose(s, i), sr.closes[k]
		vday := dailyVolume(s, d, prev, close)
		sr.bars[k] = m.dayOf(s, d, prev, close, vday).bar(d, close, vday, s.fsF)
	}
	return sr.bars[k]
}

// span resolves a request's days to timeline indices [lo, hi]: to (or
// today when zero or later) back to from (when zero: the stock's first day
// for daily bars, five trading days for minute bars), never before the
// stock's first day. ok is false when no day is left.
func (m *Market) span(s *stock, daily bool, from, to, today market.Day) (lo, hi int, ok bool) {
	end := today
	if to != 0 && to < end {
		end = to
	}
	hi = min(m.onOrBefore(end), s.last)
	switch {
	case from != 0:
		lo, _ = slices.BinarySearch(m.days, from)
	case daily:
		lo = s.first
	default:
		lo = hi - 4
	}
	lo = max(lo, s.first)
	return lo, hi, hi >= 0 && lo <= hi && hi >= s.first
}

func checkRange(from, to market.Day) error {
	if !validDay(from) || !validDay(to) {
		return market.Errorf(market.KindInvalid, "day %d or %d is not a date", int(from), int(to))
	}
	if from != 0 && to != 0 && from > to {
		return market.Errorf(market.KindInvalid, "from %v is after to %v", from, to)
	}
	return nil
}

// Klines are unadjusted bars of code for the trade days in [from, to]
// (inclusive; a zero from is the stock's first day for D and the last five
// trading days for 1m/5m; a zero to is today), ascending, as push2his
// kline/get returns them after its auction fold: minute bars labelled by
// their end minute, 240 one-minute or 48 five-minute bars a day, the
// 09:25 auction inside the first bar. Only completed bars are returned:
// days after the clock's today have none, today's minute bars are those
// ended by now (the forming minute is left out) and today's daily bar
// appears at 15:00. LargeOrderNet is the bar's main-force net (yuan),
// for minute bars too. At most 250 days of minute bars per request.
// The indices (Indices) and the ETFs (ETFs) are served by the same rules.
func (m *Market) Klines(ctx context.Context, code market.Code, freq market.Freq, from, to market.Day) (bars []market.Bar, err error) {
	defer m.observe(m.clock.Now(), &err)
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	switch freq {
	case market.Daily, market.Min1, market.Min5:
	default:
		return nil, market.Errorf(market.KindInvalid, "freq %q", freq)
	}
	if err := checkRange(from, to); err != nil {
		return nil, err
	}
	if k, ok := m.indexOf(code); ok {
		return m.indexKlines(ctx, k, freq, from, to)
	}
	if f, ok := fundOf(code); ok {
		return m.fundKlines(ctx, f, freq, from, to) // an ETF (etfbars.go)
	}
	si, err := m.lookup(code)
	if err != nil {
		return nil, err
	}
	s := &m.u.stocks[si]
	now := m.clock.Now()
	cut := now.Unix()
	lo, hi, ok := m.span(s, freq == market.Daily, from, to, market.DayOf(now))
	if !ok {
		return []market.Bar{}, nil
	}
	if freq != market.Daily && hi-lo+1 > maxMinuteDays {
		return nil, market.Errorf(market.KindInvalid, "%d days of minute bars: at most %d per request", hi-lo+1, maxMinuteDays)
	}
	sr := m.seriesOf(si, hi)
	defer sr.mu.Unlock()
	p := new(dayPath)
	if freq == market.Daily {
		bars = make([]market.Bar, 0, hi-lo+1)
		for i := lo; i <= hi; i++ {
			if i%64 == 0 {
				if err := ctxErr(ctx); err != nil {
					return nil, err
				}
			}
			if s.haltedOn(m.days[i]) {
				continue // suspended: no bar
			}
			if b := m.dailyBarOf(p, s, sr, i); b.TS <= cut {
				bars = append(bars, b)
			}
		}
		return bars, nil
	}
	for i := lo; i <= hi; i++ {
		if err := ctxErr(ctx); err != nil {
			return nil, err
		}
		if s.haltedOn(m.days[i]) {
			continue
		}
		day := m.minuteBars(p, s, sr, i)
		if freq == market.Min5 {
			day = fiveMinute(day, s.fsF)
		}
		for _, b := range day {
			if b.TS <= cut {
				bars = append(bars, b)
			}
		}
	}
	if bars == nil {
		bars = []market.Bar{}
	}
	return bars, nil
}

func (m *Market) minuteBars(p *dayPath, s *stock, sr *series, i int) []market.Bar {
	m.path(p, s, sr, i)
	return p.minuteBars(m.days[i], s.fsF)
}

// fiveMinute aggregates one day's 240 one-minute bars into 48; fs is the
// float shares a turnover rate is of (0: an index, which has none).
func fiveMinute(one []market.Bar, fs float64) []market.Bar {
	out := make([]market.Bar, 0, len(one)/5)
	for g := 0; g+5 <= len(one); g += 5 {
		b := one[g]
		for _, x := range one[g+1 : g+5] {
			b.High = max(b.High, x.High)
			b.Low = min(b.Low, x.Low)
			b.Close = x.Close
			b.Volume += x.Volume
			b.Amount += x.Amount
			b.LargeOrderNet += x.LargeOrderNet
			b.TS = x.TS
		}
		if fs > 0 {
			b.TurnoverRate = round2(float64(b.Volume) / fs * 100)
		}
		out = append(out, b)
	}
	return out
}

// Trends mirrors push2his trends2: the one-minute bars of the last ndays
// (1..5) sessions, ascending, the auction folded into 09:31. The latest
// session is today once its first bar has completed (09:31) and then holds
// the bars completed so far; before that, and on non-trading days, it is
// the previous trading day, as trends2 shows before the open.
func (m *Market) Trends(ctx context.Context, code market.Code, ndays int) (bars []market.Bar, err error) {
	defer m.observe(m.clock.Now(), &err)
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	if ndays < 1 || ndays > 5 {
		return nil, market.Errorf(market.KindInvalid, "ndays %d: want 1..5", ndays)
	}
	if k, ok := m.indexOf(code); ok {
		return m.indexTrends(ctx, k, ndays)
	}
	if f, ok := fundOf(code); ok {
		return m.fundTrends(ctx, f, ndays) // an ETF (etfbars.go)
	}
	si, err := m.lookup(code)
	if err != nil {
		return nil, err
	}
	s := &m.u.stocks[si]
	now := m.clock.Now()
	today := market.DayOf(now)
	latest := m.onOrBefore(today)
	if i, ok := m.index(today); ok && now.Unix() < barEnd(today, 1) {
		latest = i - 1
	}
	latest = min(latest, s.last)
	lo := max(s.first, latest-ndays+1)
	bars = []market.Bar{}
	if latest < 0 || lo > latest {
		return bars, nil
	}
	sr := m.seriesOf(si, latest)
	defer sr.mu.Unlock()
	p := new(dayPath)
	cut := now.Unix()
	for i := lo; i <= latest; i++ {
		if s.haltedOn(m.days[i]) {
			continue
		}
		for _, b := range m.minuteBars(p, s, sr, i) {
			if b.TS <= cut {
				bars = append(bars, b)
			}
		}
	}
	return bars, nil
}

// FundFlowDaily mirrors push2his fflow/daykline: code's daily fund flow
// for the completed days in [from, to] (zero: open side). MainNet is the
// day's main-force net, equal to the daily bar's LargeOrderNet, split into
// super-large and large orders; small and medium orders take the other
// side, so the five nets sum to zero. Percentages are of the day's amount.
func (m *Market) FundFlowDaily(ctx context.Context, code market.Code, from, to market.Day) (days []upstream.FundFlowDay, err error) {
	defer m.observe(m.clock.Now(), &err)
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	if err := checkRange(from, to); err != nil {
		return nil, err
	}
	si, err := m.lookup(code)
	if err != nil {
		return nil, err
	}
	s := &m.u.stocks[si]
	now := m.clock.Now()
	days = []upstream.FundFlowDay{}
	lo, hi, ok := m.span(s, true, from, to, market.DayOf(now))
	if !ok {
		return days, nil
	}
	sr := m.seriesOf(si, hi)
	defer sr.mu.Unlock()
	p := new(dayPath)
	for i := lo; i <= hi; i++ {
		if s.haltedOn(m.days[i]) {
			continue
		}
		b := m.dailyBarOf(p, s, sr, i)
		if b.TS > now.Unix() {
			continue
		}
		days = append(days, fundFlow(s, b, sr.prevClose(s, i), sr.closes[i-s.first]))
	}
	return days, nil
}

func fundFlow(s *stock, b market.Bar, prev, close int32) upstream.FundFlowDay {
	fs := newStream(hash3(s.key, tagVolume, 2), uint64(b.Day))
	main := b.LargeOrderNet
	super := roundYuan(mul(main, fs.between(0.45, 0.8)))
	small := roundYuan(mul(-main, fs.between(0.4, 0.75)) + mul(b.Amount, mul(0.01, fs.norm())))
	f := upstream.FundFlowDay{Day: b.Day, MainNet: main, SuperNet: super, LargeNet: main - super,
		SmallNet: small, MediumNet: -main - small, Close: b.Close, Pct: round2(pctOf(close, prev))}
	pc := func(x float64) float64 {
		if b.Amount <= 0 {
			return 0
		}
		return round2(x / b.Amount * 100)
	}
	f.MainPct, f.SuperPct, f.LargePct, f.SmallPct, f.MediumPct = pc(f.MainNet), pc(f.SuperNet), pc(f.LargeNet), pc(f.SmallNet), pc(f.MediumNet)
	return f
}
