package screener

import (
	"context"
	"math"
	"slices"
	"sync"
	"time"

	"mdqs/db"
	"mdqs/internal/indicator"
	"mdqs/internal/market"
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

// chipWindow is the window (trade days) of the chip metrics screens see.
const chipWindow = 120

// History gives a whole market's daily history in one pass (the demo
// market): the frame reads it there rather than from the store, which
// holds only what requests have read through it.
type History interface {
	EachDailyHistory(ctx context.Context, day market.Day, n int, fn func(code market.Code, bars []market.Bar) error) error
}

// Frame is the market's data in memory, so a screen reads nothing per
// stock. Its daily part (the daily history, chips, signals and membership)
// is built in a few whole-market queries once per trading day and again
// after Invalidate; Refresh builds it ahead of the screens (at start, when
// the day moves on, when the store has newer chips). The quote snapshot and
// the hot rank are read at most once per quoteAge.
type Frame struct {
	store      *db.Store
	quotes     QuoteSource
	membership Membership // may be nil
	hot        HotRanks   // may be nil
	history    History    // may be nil: the store's daily bars
	clock      market.Clock
	cal        *market.Calendar
	quoteAge   time.Duration

	mu      sync.Mutex
	daily   *dailyPart    // the latest built, nil before the first build
	gen     uint64        // Invalidate's count: a part built before the latest call is stale
	pending chan struct{} // closed when the build in flight ends; nil when none runs
	waiting int           // callers waiting for it

	past    Past       // nil: no screens of a past date
	pastMu  sync.Mutex // one past day's build at a time
	pastDay *dailyPart // the last past day's part

	snapMu sync.Mutex // one snapshot read at a time
	snap   []market.Quote
	ranks  map[string]HotRank
	snapAt time.Time
}

// dailyPart is what a trading day's screens share: built whole, never
// changed, replaced by the next build.
type dailyPart struct {
	day     market.Day // the trading day it is of
	gen     uint64     // the frame's gen when its build started
	chipDay market.Day // the day of the chips it holds (0: none)
	hist    dailyBars
	static  map[string]staticFields
}

// dailyBars holds every stock's daily bars in five columns (one allocation
// each, not five per stock): stock i's bars are [start[i], start[i+1]).
type dailyBars struct {
	index                 map[string]int32
	start                 []int32
	last                  []market.Day // each stock's latest bar day
	close, high, low, vol []float64
}

// series is one stock's bars, oldest first: slices of the columns.
type series struct {
	last                  market.Day
	close, high, low, vol []float64
}

func newDailyBars(stocks, bars int) dailyBars {
	return dailyBars{index: make(map[string]int32, stocks), start: make([]int32, 0, stocks+1), last: make([]market.Day, 0, stocks),
		close: make([]float64, 0, bars), high: make([]float64, 0, bars), low: make([]float64, 0, bars), vol: make([]float64, 0, bars)}
}

// add appends one stock's bars; call finish after the last.
func (h *dailyBars) add(code string, c db.DailyColumns) {
	if len(c.Days) == 0 {
		return
	}
	h.index[code] = int32(len(h.start))
	h.start = append(h.start, int32(len(h.close)))
	h.last = append(h.last, c.Days[len(c.Days)-1])
	h.close, h.high, h.low = append(h.close, c.Close...), append(h.high, c.High...), append(h.low, c.Low...)
	for _, v := range c.Volume {
		h.vol = append(h.vol, float64(v))
	}
}

func (h *dailyBars) finish() { h.start = append(h.start, int32(len(h.close))) }

func (h *dailyBars) series(code string) (series, bool) {
	i, ok := h.index[code]
	if !ok {
		return series{}, false
	}
	a, b := h.start[i], h.start[i+1]
	return series{last: h.last[i], close: h.close[a:b:b], high: h.high[a:b:b], low: h.low[a:b:b], vol: h.vol[a:b:b]}, true
}

type staticFields struct {
	industry                             string
	concepts                             []string
	avgCost, profitRatio, conc70, conc90 float64
	microVolRatio, volAcc                float64
}

// unknownStatic is a stock's static fields before any is known.
func unknownStatic() staticFields {
	nan := math.NaN()
	return staticFields{avgCost: nan, profitRatio: nan, conc70: nan, conc90: nan, microVolRatio: nan, volAcc: nan}
}

// NewFrame builds the frame. A quoteAge of 0 asks quotes on every screen,
// for a source that keeps its own snapshot (quote.Service).
func NewFrame(store *db.Store, quotes QuoteSource, membership Membership, hot HotRanks, cal *market.Calendar, clock market.Clock, quoteAge time.Duration) *Frame {
	return &Frame{store: store, quotes: quotes, membership: membership, hot: hot, cal: cal, clock: clock, quoteAge: quoteAge}
}

// ReadHistoryFrom makes the frame read its daily part from h, not the store.
// Call before the frame is used.
func (f *Frame) ReadHistoryFrom(h History) { f.history = h }

// Invalidate makes the daily part stale: the next screen, or Refresh,
// builds it again (the end-of-day job has stored the day's bars and
// derived its chips and signals). A screen never sees a part built before
// the call.
func (f *Frame) Invalidate() {
	f.mu.Lock()
	f.gen++
	f.mu.Unlock()
}

// Refresh brings the daily part up to date ahead of the screens, so the
// first screen after a start or a new trading day does not build it: a
// job, run at start and every minute on every instance sharing the store.
// When the part is current it costs one small query.
func (f *Frame) Refresh(ctx context.Context) error {
	_, err := f.fresh(ctx)
	return err
}

// fresh is the current daily part, built first when the trading day has
// moved on, after Invalidate, or when the store holds chips of a later
// day than the part (the end-of-day job derived the day's chips and
// signals, here or on another instance sharing the store).
func (f *Frame) fresh(ctx context.Context) (*dailyPart, error) {
	f.mu.Lock()
	d := f.daily
	f.mu.Unlock()
	if d != nil {
		day, err := f.chipDay(ctx)
		if err != nil {
			return nil, err
		}
		f.mu.Lock()
		if day > d.chipDay && f.daily == d {
			f.gen++
		}
		f.mu.Unlock()
	}
	return f.current(ctx)
}

// chipDay is the day of the store's latest chips, 0 when it has none.
func (f *Frame) chipDay(ctx context.Context) (market.Day, error) {
	return f.store.LatestChipDay(ctx, chipWindow)
}

// Rows returns every stock of the snapshot as a Row, with the indicators
// computed from its history and (while a session runs) today's price.
func (f *Frame) Rows(ctx context.Context) ([]Row, error) {
	snap, ranks, err := f.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	d, err := f.fresh(ctx)
	if err != nil {
		return nil, err
	}
	nan := math.NaN()
	unknown := unknownStatic()
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
			r.Volume = nan
		}
		st, ok := d.static[code]
		if !ok {
			st = unknown
		}
		r.Industry, r.Concepts = st.industry, st.concepts
		if r.Concepts == nil {
			r.Concepts = []string{}
		}
		r.AvgCost, r.ProfitRatio, r.Concentration70, r.Concentration90 = st.avgCost, st.profitRatio, st.conc70, st.conc90
		r.MicroVolRatio, r.VolAcc = st.microVolRatio, st.volAcc
		r.HotRank, r.HotHeat = nan, nan
		if h, ok := ranks[code]; ok {
			r.HotRank, r.HotHeat = float64(h.Rank), h.Heat
		}
		s, _ := d.hist.series(code)
		buf.indicators(&r, s, q)
		rows = append(rows, r)
	}
	return rows, nil
}

// snapshot reads the quotes and the hot rank when older than quoteAge.
func (f *Frame) snapshot(ctx context.Context) ([]market.Quote, map[string]HotRank, error) {
	f.snapMu.Lock()
	defer f.snapMu.Unlock()
	now := f.clock.Now()
	if f.snap != nil && now.Sub(f.snapAt) < f.quoteAge {
		return f.snap, f.ranks, nil
	}
	snap, err := f.quotes.Quotes(ctx)
	if err != nil {
		return nil, nil, market.Wrap(market.KindUnavailable, err, "quote snapshot: %v", err)
	}
	ranks := f.ranks
	if f.hot != nil {
		if r, err := f.hot.LatestHotRanks(ctx); err == nil {
			ranks = r
		}
	}
	f.snap, f.ranks, f.snapAt = snap, ranks, now
	return snap, ranks, nil
}

// current is the daily part of today, built now if it is missing or
// stale. One build runs at a time: a caller arriving while one runs waits
// for it and uses what it built, unless the part is stale even so (the day
// moved on, or Invalidate was called, during the build).
func (f *Frame) current(ctx context.Context) (*dailyPart, error) {
	for {
		day := f.cal.OnOrBefore(market.DayOf(f.clock.Now()))
		f.mu.Lock()
		if d := f.daily; d != nil && d.day == day && d.gen == f.gen {
			f.mu.Unlock()
			return d, nil
		}
		if wait := f.pending; wait != nil {
			f.waiting++
			f.mu.Unlock()
			var err error
			select {
			case <-wait:
			case <-ctx.Done():
				err = ctx.Err()
			}
			f.mu.Lock()
			f.waiting--
			f.mu.Unlock()
			if err != nil {
				return nil, err
			}
			continue
		}
		done := make(chan struct{})
		f.pending = done
		gen, prev := f.gen, f.daily
		f.mu.Unlock()
		d, err := f.build(ctx, day, gen, prev, false)
		f.mu.Lock()
		if err == nil {
			f.daily = d
		}
		f.pending = nil
		f.mu.Unlock()
		close(done)
		if err != nil {
			return nil, err
		}
	}
}

// build reads the whole market's recent daily bars in one query (five
// columns), the latest chips and signals in one query each, and the
// membership once. prev, the part it replaces, sizes the columns. A past
// day's part (past) holds the bars through that day only and no chips or
// signals: the store keeps the latest of those, which are not that day's.
func (f *Frame) build(ctx context.Context, day market.Day, gen uint64, prev *dailyPart, past bool) (*dailyPart, error) {
	stocks, bars := 6000, 6000*(historyDays+1)
	if prev != nil {
		stocks, bars = len(prev.hist.last)+64, len(prev.hist.close)+64*(historyDays+1)
	}
	d := &dailyPart{day: day, gen: gen, hist: newDailyBars(stocks, bars), static: make(map[string]staticFields, stocks)}
	var err error
	if f.history != nil {
		var cols db.DailyColumns
		err = f.history.EachDailyHistory(ctx, day, historyDays+1, func(code market.Code, bars []market.Bar) error {
			cols = db.DailyColumns{Days: cols.Days[:0], High: cols.High[:0], Low: cols.Low[:0], Close: cols.Close[:0], Volume: cols.Volume[:0]}
			for _, b := range bars {
				cols.Days = append(cols.Days, b.Day)
				cols.High, cols.Low, cols.Close = append(cols.High, b.High), append(cols.Low, b.Low), append(cols.Close, b.Close)
				cols.Volume = append(cols.Volume, b.Volume)
			}
			d.hist.add(code.String(), cols)
			return nil
		})
	} else {
		from := day
		for range historyDays {
			from = f.cal.Prev(from)
		}
		err = f.store.EachDailyColumns(ctx, from.Start().Unix(), func(code string, c db.DailyColumns) error {
			if past {
				n, _ := slices.BinarySearch(c.Days, day+1)
				c = db.DailyColumns{Days: c.Days[:n], High: c.High[:n], Low: c.Low[:n], Close: c.Close[:n], Volume: c.Volume[:n]}
			}
			d.hist.add(code, c)
			return nil
		})
	}
	if err != nil {
		return nil, err
	}
	d.hist.finish()
	get := func(code string) staticFields {
		if s, ok := d.static[code]; ok {
			return s
		}
		return unknownStatic()
	}
	if past {
		return d, f.addMembership(ctx, d, get)
	}
	if chipDay, _, chips, err := f.store.Chips(ctx, db.ChipQuery{Window: chipWindow, Limit: 100_000}); err == nil {
		d.chipDay = chipDay
		for _, c := range chips {
			s := get(c.Code)
			s.avgCost, s.profitRatio, s.conc70, s.conc90 = c.AvgCost, c.ProfitRatio, c.Concentration70, c.Concentration90
			d.static[c.Code] = s
		}
	} else if market.KindOf(err) != market.KindNotFound {
		return nil, err
	}
	signals, err := f.store.LatestSignals(ctx)
	if err != nil {
		return nil, err
	}
	for _, sig := range signals {
		s := get(sig.Code)
		s.microVolRatio, s.volAcc = sig.MicroVolRatio, sig.VolAcc
		d.static[sig.Code] = s
	}
	return d, f.addMembership(ctx, d, get)
}

// addMembership gives each stock its industry and concepts: today's, the
// only membership mdqs knows, for a past day's part too.
func (f *Frame) addMembership(ctx context.Context, d *dailyPart, get func(string) staticFields) error {
	if f.membership == nil {
		return nil
	}
	ind, con, err := f.membership.Membership(ctx)
	if err != nil {
		return err
	}
	for code, name := range ind {
		s := get(code)
		s.industry = name
		d.static[code] = s
	}
	for code, names := range con {
		s := get(code)
		s.concepts = names
		d.static[code] = s
	}
	return nil
}

// indicatorBuf reuses the indicator slices across stocks.
type indicatorBuf struct {
	close, vol, high, low, out, ema12, ema26 []float64
	macd                                     indicator.MACDSeries
}

// indicators fills a row's daily fields from its history plus, when the
// quote is of a later day than the history (a session running), today's
// price and volume as the last bar.
func (b *indicatorBuf) indicators(r *Row, h series, q market.Quote) {
	nan := math.NaN()
	r.MA5, r.MA10, r.MA20, r.MA60, r.EMA12, r.EMA26, r.MACDDIF, r.MACDDEA, r.MACDHist = nan, nan, nan, nan, nan, nan, nan, nan, nan
	r.VolMA5, r.VolMA20, r.Pct5D, r.Pct20D, r.High20, r.Low20, r.TrendStrength = nan, nan, nan, nan, nan, nan, nan
	if len(h.close) == 0 {
		return
	}
	b.close = append(b.close[:0], h.close...)
	b.vol = append(b.vol[:0], h.vol...)
	highs, lows := h.high, h.low
	if !q.At.IsZero() && market.DayOf(q.At) > h.last && q.Price > 0 && q.Volume > 0 {
		b.close = append(b.close, q.Price)
		b.vol = append(b.vol, float64(q.Volume))
		b.high, b.low = append(append(b.high[:0], highs...), q.High), append(append(b.low[:0], lows...), q.Low)
		highs, lows = b.high, b.low
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
