package screener

import (
	"context"
	"math"
	"sync"
	"time"

	"mdqs/db"
	"mdqs/indicator"
	"mdqs/market"
)

// QuoteSource is the all-stock snapshot (push2's quote list or the demo).
type QuoteSource interface {
	Quotes(ctx context.Context) ([]market.Quote, error)
}

// Membership gives each stock's industry and concepts.
type Membership interface {
	Membership(ctx context.Context) (industry map[string]string, concepts map[string][]string, err error)
}

// HotRank is a stock's latest popularity.
type HotRank struct {
	Rank int
	Heat float64
}

// HotRanks gives the latest hot-rank list by code.
type HotRanks interface {
	LatestHotRanks(ctx context.Context) (map[string]HotRank, error)
}

// historyDays is how many daily bars per stock the frame holds: enough for
// MA60 plus a margin for suspensions.
const historyDays = 80

// History gives a whole market's daily history in one pass (the demo
// market): the frame reads it there rather than from the store, which
// holds only what requests have read through it.
type History interface {
	EachDailyHistory(ctx context.Context, day market.Day, n int, fn func(code market.Code, bars []market.Bar) error) error
}

// Frame is the market's data in memory, so a screen reads nothing per
// stock: the daily history, chips, signals and membership are loaded once
// per trading day in a few whole-market queries, and the quote snapshot at
// most once per quoteAge.
type Frame struct {
	store      *db.Store
	quotes     QuoteSource
	membership Membership // may be nil
	hot        HotRanks   // may be nil
	history    History    // may be nil: the store's daily bars
	clock      market.Clock
	cal        *market.Calendar
	quoteAge   time.Duration

	mu       sync.Mutex
	day      market.Day // the trading day the daily part is of
	daily    map[string]*stockHistory
	static   map[string]staticFields
	snap     []market.Quote
	snapAt   time.Time
	building sync.Mutex
}

type stockHistory struct {
	days                []market.Day
	close, high, low, v []float64
}

type staticFields struct {
	industry                                string
	concepts                                []string
	avgCost, profitRatio, conc70, conc90    float64
	hotRank, hotHeat, microVolRatio, volAcc float64
}

// NewFrame builds the frame. A quoteAge of 0 asks quotes on every screen,
// for a source that keeps its own snapshot (quote.Service).
func NewFrame(store *db.Store, quotes QuoteSource, membership Membership, hot HotRanks, cal *market.Calendar, clock market.Clock, quoteAge time.Duration) *Frame {
	return &Frame{store: store, quotes: quotes, membership: membership, hot: hot, cal: cal, clock: clock, quoteAge: quoteAge}
}

// ReadHistoryFrom makes the frame read its daily part from h, not the store.
// Call before the frame is used.
func (f *Frame) ReadHistoryFrom(h History) { f.history = h }

// Invalidate makes the next screen load the daily part again: the
// end-of-day job has derived the day's chips and signals.
func (f *Frame) Invalidate() {
	f.mu.Lock()
	f.daily = nil
	f.mu.Unlock()
}

// Rows returns every stock of the snapshot as a Row, with the indicators
// computed from its history and (while a session runs) today's price.
func (f *Frame) Rows(ctx context.Context) ([]Row, error) {
	if err := f.load(ctx); err != nil {
		return nil, err
	}
	f.mu.Lock()
	snap, daily, static := f.snap, f.daily, f.static
	f.mu.Unlock()
	rows := make([]Row, 0, len(snap))
	var buf indicatorBuf
	for _, q := range snap {
		if q.Code.IsZero() {
			continue
		}
		code := q.Code.String()
		r := Row{Code: code, Name: q.Name, Market: string(q.Code.Exchange), Price: q.Price, Pct: q.Pct, Open: q.Open, High: q.High,
			Low: q.Low, PrevClose: q.PrevClose, Volume: float64(q.Volume), Amount: q.Amount, Turnover: q.Turnover, Amplitude: q.Amplitude,
			VolumeRatio: q.VolumeRatio, PE: q.PE, PB: q.PB, MarketCap: q.MarketCap, FloatCap: q.FloatCap, MainNet: q.MainNet,
			MainNetRatio: q.MainNetRatio}
		if q.Volume < 0 {
			r.Volume = math.NaN()
		}
		st, ok := static[code]
		if !ok {
			st = staticFields{avgCost: math.NaN(), profitRatio: math.NaN(), conc70: math.NaN(), conc90: math.NaN(),
				hotRank: math.NaN(), hotHeat: math.NaN(), microVolRatio: math.NaN(), volAcc: math.NaN()}
		}
		r.Industry, r.Concepts = st.industry, st.concepts
		if r.Concepts == nil {
			r.Concepts = []string{}
		}
		r.AvgCost, r.ProfitRatio, r.Concentration70, r.Concentration90 = st.avgCost, st.profitRatio, st.conc70, st.conc90
		r.HotRank, r.HotHeat, r.MicroVolRatio, r.VolAcc = st.hotRank, st.hotHeat, st.microVolRatio, st.volAcc
		buf.indicators(&r, daily[code], q)
		rows = append(rows, r)
	}
	return rows, nil
}

// load refreshes what is due: the daily part when the trading day moved on,
// the snapshot when older than quoteAge.
func (f *Frame) load(ctx context.Context) error {
	f.building.Lock()
	defer f.building.Unlock()
	now := f.clock.Now()
	day := f.cal.OnOrBefore(market.DayOf(now))
	f.mu.Lock()
	needDaily, needSnap := f.day != day || f.daily == nil, f.snap == nil || now.Sub(f.snapAt) >= f.quoteAge
	f.mu.Unlock()
	if needSnap {
		snap, err := f.quotes.Quotes(ctx)
		if err != nil {
			return market.Wrap(market.KindUnavailable, err, "quote snapshot: %v", err)
		}
		f.mu.Lock()
		f.snap, f.snapAt = snap, now
		f.mu.Unlock()
	}
	if !needDaily {
		return nil
	}
	daily, static, err := f.loadDaily(ctx, day)
	if err != nil {
		return err
	}
	f.mu.Lock()
	f.day, f.daily, f.static = day, daily, static
	f.mu.Unlock()
	return nil
}

// loadDaily reads the whole market's recent daily bars in one query, the
// latest chips and signals in one query each, and the membership and hot
// rank once.
func (f *Frame) loadDaily(ctx context.Context, day market.Day) (map[string]*stockHistory, map[string]staticFields, error) {
	from := day
	for range historyDays {
		from = f.cal.Prev(from)
	}
	daily := map[string]*stockHistory{}
	keep := func(code string, bars []market.Bar) error {
		h := &stockHistory{}
		for _, b := range bars {
			h.days = append(h.days, b.Day)
			h.close, h.high, h.low, h.v = append(h.close, b.Close), append(h.high, b.High), append(h.low, b.Low), append(h.v, float64(b.Volume))
		}
		daily[code] = h
		return nil
	}
	var err error
	if f.history != nil {
		err = f.history.EachDailyHistory(ctx, day, historyDays+1, func(code market.Code, bars []market.Bar) error {
			return keep(code.String(), bars)
		})
	} else {
		err = f.store.EachDailySeries(ctx, from.Start().Unix(), keep)
	}
	if err != nil {
		return nil, nil, err
	}
	static := map[string]staticFields{}
	get := func(code string) staticFields {
		if s, ok := static[code]; ok {
			return s
		}
		nan := math.NaN()
		return staticFields{avgCost: nan, profitRatio: nan, conc70: nan, conc90: nan, hotRank: nan, hotHeat: nan, microVolRatio: nan, volAcc: nan}
	}
	if _, _, chips, err := f.store.Chips(ctx, db.ChipQuery{Window: 120, Limit: 100_000}); err == nil {
		for _, c := range chips {
			s := get(c.Code)
			s.avgCost, s.profitRatio, s.conc70, s.conc90 = c.AvgCost, c.ProfitRatio, c.Concentration70, c.Concentration90
			static[c.Code] = s
		}
	} else if market.KindOf(err) != market.KindNotFound {
		return nil, nil, err
	}
	signals, err := f.store.LatestSignals(ctx)
	if err != nil {
		return nil, nil, err
	}
	for _, sig := range signals {
		s := get(sig.Code)
		s.microVolRatio, s.volAcc = sig.MicroVolRatio, sig.VolAcc
		static[sig.Code] = s
	}
	if f.membership != nil {
		ind, con, err := f.membership.Membership(ctx)
		if err != nil {
			return nil, nil, err
		}
		for code, name := range ind {
			s := get(code)
			s.industry = name
			static[code] = s
		}
		for code, names := range con {
			s := get(code)
			s.concepts = names
			static[code] = s
		}
	}
	if f.hot != nil {
		ranks, err := f.hot.LatestHotRanks(ctx)
		if err == nil {
			for code, h := range ranks {
				s := get(code)
				s.hotRank, s.hotHeat = float64(h.Rank), h.Heat
				static[code] = s
			}
		}
	}
	return daily, static, nil
}

// indicatorBuf reuses the indicator slices across stocks.
type indicatorBuf struct {
	close, vol, out, ema12, ema26 []float64
	macd                          indicator.MACDSeries
}

// indicators fills a row's daily fields from its history plus, when the
// quote is of a later day than the history (a session running), today's
// price and volume as the last bar.
func (b *indicatorBuf) indicators(r *Row, h *stockHistory, q market.Quote) {
	nan := math.NaN()
	r.MA5, r.MA10, r.MA20, r.MA60, r.EMA12, r.EMA26, r.MACDDIF, r.MACDDEA, r.MACDHist = nan, nan, nan, nan, nan, nan, nan, nan, nan
	r.VolMA5, r.VolMA20, r.Pct5D, r.Pct20D, r.High20, r.Low20, r.TrendStrength = nan, nan, nan, nan, nan, nan, nan
	if h == nil || len(h.close) == 0 {
		return
	}
	b.close = append(b.close[:0], h.close...)
	b.vol = append(b.vol[:0], h.v...)
	highs, lows := h.high, h.low
	if !q.At.IsZero() && market.DayOf(q.At) > h.days[len(h.days)-1] && q.Price > 0 && q.Volume > 0 {
		b.close = append(b.close, q.Price)
		b.vol = append(b.vol, float64(q.Volume))
		highs, lows = append(append([]float64(nil), highs...), q.High), append(append([]float64(nil), lows...), q.Low)
	}
	n := len(b.close)
	mean := func(xs []float64, k int) float64 {
		if len(xs) < k {
			return nan
		}
		s := 0.0
		for _, x := range xs[len(xs)-k:] {
			s += x
		}
		return s / float64(k)
	}
	r.MA5, r.MA10, r.MA20, r.MA60 = mean(b.close, 5), mean(b.close, 10), mean(b.close, 20), mean(b.close, 60)
	r.VolMA5, r.VolMA20 = mean(b.vol, 5), mean(b.vol, 20)
	if n > 5 && b.close[n-6] > 0 {
		r.Pct5D = (b.close[n-1]/b.close[n-6] - 1) * 100
	}
	if n > 20 && b.close[n-21] > 0 {
		r.Pct20D = (b.close[n-1]/b.close[n-21] - 1) * 100
	}
	if len(highs) >= 20 {
		r.High20, r.Low20 = highs[len(highs)-20], lows[len(lows)-20]
		for i := len(highs) - 20; i < len(highs); i++ {
			r.High20, r.Low20 = max(r.High20, highs[i]), min(r.Low20, lows[i])
		}
	}
	if err := indicator.MACD(&b.macd, b.close, indicator.DefaultMACDParams(), indicator.SeedFirst); err == nil {
		r.MACDDIF, r.MACDDEA, r.MACDHist = b.macd.DIF[n-1], b.macd.DEA[n-1], b.macd.Hist[n-1]
	}
	if e, err := indicator.EMA(b.ema12, b.close, 12); err == nil {
		b.ema12 = e
		r.EMA12 = e[n-1]
	}
	if e, err := indicator.EMA(b.ema26, b.close, 26); err == nil {
		b.ema26 = e
		r.EMA26 = e[n-1]
	}
	if n >= indicator.DefaultTrendPeriod {
		if t, err := indicator.TrendStrength(b.out, b.close, indicator.DefaultTrendPeriod); err == nil {
			b.out = t
			r.TrendStrength = t[n-1]
		}
	}
}

// MembershipFunc adapts a function to Membership.
type MembershipFunc func(ctx context.Context) (map[string]string, map[string][]string, error)

func (f MembershipFunc) Membership(ctx context.Context) (map[string]string, map[string][]string, error) {
	return f(ctx)
}
