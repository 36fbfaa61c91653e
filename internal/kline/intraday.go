package kline

import (
	"cmp"
	"container/list"
	"context"
	"log/slog"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"mdqs/cache"
	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

// Intraday holds the latest sessions' 1-minute series of the codes being
// watched, in memory: the configured watch list, plus every code asked for
// recently (up to a bound, least recently used first out). A series is
// fetched again when it is older than the refresh age inside the trading
// window; outside it, the last fetch after the close is final. With
// IntradayConfig.Shared the memory is the near level of a cache the
// instances of a deployment share.
type Intraday struct {
	src    TrendSource
	cal    *market.Calendar
	window market.Window
	clock  market.Clock
	age    time.Duration
	max    int
	tier   *cache.Tier[sharedSeries] // nil: nothing shared

	mu     sync.Mutex
	pinned map[market.Code]bool
	series map[market.Code]*list.Element // of *intradaySeries, most recent use first
	lru    *list.List
	flight singleflight.Group
	waits  upstream.WaitMarks // of the fetches in flight
	source string             // the source's name, for errors
}

type intradaySeries struct {
	code    market.Code
	bars    []market.Bar // two sessions at most, in time order
	fetched time.Time
}

// IntradayConfig sizes the watch list.
type IntradayConfig struct {
	Watch      []market.Code // always refreshed, never evicted
	MaxWatched int           // codes kept in memory in all
	RefreshAge time.Duration // a series older than this is refetched inside the window
	// Shared, when set, is where the instances of a deployment keep the
	// series they fetched: an instance serves another's newer fetch rather
	// than asking the upstream again, and none serves an older series than
	// another holds.
	Shared cache.Shared
	Log    *slog.Logger // for an unreadable shared entry; nil: discarded
	// Source names the source in errors (push2his, demo).
	Source string
}

// sharedSeries is a series as the instances share it; its version is the
// fetch time.
type sharedSeries struct {
	Bars    []market.Bar
	Fetched time.Time
}

// sharedSeriesTTL keeps a shared series past a weekend: the last fetch
// after Friday's close is final until Monday's session.
const sharedSeriesTTL = 72 * time.Hour

func NewIntraday(src TrendSource, cal *market.Calendar, window market.Window, clock market.Clock, cfg IntradayConfig) *Intraday {
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	in := &Intraday{src: src, cal: cal, window: window, clock: clock, age: cfg.RefreshAge, max: max(cfg.MaxWatched, len(cfg.Watch)),
		tier:   cache.NewTier[sharedSeries](cfg.Shared, "intraday:", log),
		pinned: map[market.Code]bool{}, series: map[market.Code]*list.Element{}, lru: list.New(), source: cmp.Or(cfg.Source, "the source")}
	for _, c := range cfg.Watch {
		in.pinned[c] = true
	}
	return in
}

// Session is one code's latest sessions as held in memory.
type Session struct {
	Bars    []market.Bar // completed 1-minute bars, time order
	Fetched time.Time    // when they were fetched (as of)
}

// Day returns the bars of one trade day.
func (s Session) Day(d market.Day) []market.Bar {
	var out []market.Bar
	for _, b := range s.Bars {
		if b.Day == d {
			out = append(out, b)
		}
	}
	return out
}

// Get returns a code's series, fetching it when absent or due; the code
// joins the watch list.
func (in *Intraday) Get(ctx context.Context, code market.Code) (Session, error) {
	in.mu.Lock()
	el, ok := in.series[code]
	var s *intradaySeries
	if ok {
		in.lru.MoveToFront(el)
		s = el.Value.(*intradaySeries)
	}
	in.mu.Unlock()
	var have int64
	if ok {
		have = s.fetched.UnixMilli()
	}
	if sh, newer := in.tier.Newer(ctx, code.String(), have); newer {
		s, ok = &intradaySeries{code: code, bars: sh.Bars, fetched: sh.Fetched}, true
		in.keep(s)
	}
	if ok && !in.due(s) {
		return Session{Bars: s.bars, Fetched: s.fetched}, nil
	}
	return in.fetch(ctx, code)
}

// due: inside the window a series older than the refresh age; outside, a
// series fetched before the last close of a trading day.
func (in *Intraday) due(s *intradaySeries) bool {
	now := in.clock.Now()
	if in.window.Contains(in.cal, now) {
		return now.Sub(s.fetched) >= in.age
	}
	lastClose := in.window.End.On(in.window.CurrentTradingDay(in.cal, now))
	return s.fetched.Before(lastClose) && !now.Before(lastClose)
}

// fetch asks the source for a code's series; concurrent callers share
// one fetch, which goes on for whoever asks next when a caller stops
// waiting (its context ends: server.upstream_wait, or the client left).
func (in *Intraday) fetch(ctx context.Context, code market.Code) (Session, error) {
	start := time.Now()
	key := code.String()
	mark := in.waits.Join(ctx, key) // a request waits on the fetch from now
	ch := in.flight.DoChan(key, func() (any, error) {
		defer in.waits.Done(key, mark)
		fctx, cancel := context.WithTimeout(mark.Context(context.WithoutCancel(ctx)), time.Minute)
		defer cancel()
		bars, err := in.src.Trends(fctx, code, 2)
		if err != nil {
			return nil, err
		}
		s := &intradaySeries{code: code, bars: bars, fetched: in.clock.Now()}
		if sh, newer := in.tier.Publish(fctx, code.String(), s.fetched.UnixMilli(), sharedSeries{Bars: bars, Fetched: s.fetched}, sharedSeriesTTL); newer {
			s = &intradaySeries{code: code, bars: sh.Bars, fetched: sh.Fetched} // another instance's fetch, as new
		}
		in.keep(s)
		return Session{Bars: s.bars, Fetched: s.fetched}, nil
	})
	select {
	case res := <-ch:
		if res.Err != nil {
			return Session{}, sourceErr(res.Err, "intraday series of "+code.String())
		}
		return res.Val.(Session), nil
	case <-ctx.Done():
		return Session{}, market.Wrap(market.KindUnavailable, ctx.Err(), "%s intraday series of %v: no answer within %v; the fetch goes on in the background",
			in.source, code, time.Since(start).Round(100*time.Millisecond))
	}
}

func (in *Intraday) keep(s *intradaySeries) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if el, ok := in.series[s.code]; ok {
		el.Value = s
		in.lru.MoveToFront(el)
		return
	}
	in.series[s.code] = in.lru.PushFront(s)
	for in.lru.Len() > in.max && in.evictOne() {
	}
}

// evictOne drops the least recently used code that is not pinned; false
// when every code held is pinned.
func (in *Intraday) evictOne() bool {
	for el := in.lru.Back(); el != nil; el = el.Prev() {
		if victim := el.Value.(*intradaySeries); !in.pinned[victim.code] {
			in.lru.Remove(el)
			delete(in.series, victim.code)
			return true
		}
	}
	return false
}

// Watched lists the codes held, pinned ones included even before their
// first fetch.
func (in *Intraday) Watched() []market.Code {
	in.mu.Lock()
	defer in.mu.Unlock()
	seen := map[market.Code]bool{}
	var out []market.Code
	for c := range in.pinned {
		seen[c] = true
		out = append(out, c)
	}
	for el := in.lru.Front(); el != nil; el = el.Next() {
		if c := el.Value.(*intradaySeries).code; !seen[c] {
			out = append(out, c)
		}
	}
	return out
}

// Refresh fetches every watched code whose series is due; the intraday job
// runs it every minute inside the window. It stops at the first error of
// the context and otherwise reports the last failure.
func (in *Intraday) Refresh(ctx context.Context) error {
	var last error
	for _, code := range in.Watched() {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if _, err := in.Get(ctx, code); err != nil {
			last = err
		}
	}
	return last
}
