package kline

import (
	"context"
	"slices"
	"time"

	"mdqs/cache"
	"mdqs/db"
	"mdqs/internal/market"
)

// ScreenSize is how many newest bars the first-screen cache holds (spec 8:
// at most 100 entries on page 1).
const ScreenSize = 100

// screen is a series' newest bars, newest first, as one consistent view:
// later pages continue strictly before its oldest bar, so page 1 from the
// cache and page 2 from SQLite meet without a gap or a duplicate.
type screen struct {
	bars        []market.Bar // newest first
	provisional int          // the first provisional bars are forming
	asOf        time.Time
	built       time.Time
}

// sharedScreen is a first screen as the instances of a deployment share
// it; its version is the build time.
type sharedScreen struct {
	Bars        []market.Bar
	Provisional int
	AsOf, Built time.Time
}

func (s *screen) shared() sharedScreen {
	return sharedScreen{Bars: s.bars, Provisional: s.provisional, AsOf: s.asOf, Built: s.built}
}

func (s sharedScreen) screen() *screen {
	return &screen{bars: s.Bars, provisional: s.Provisional, asOf: s.AsOf, built: s.Built}
}

// Pager serves a series newest first, page by page.
type Pager struct {
	svc   *Service
	cache *cache.Cache[*screen]
	tier  *cache.Tier[sharedScreen] // nil: nothing shared
	ttl   time.Duration
	depth map[market.Freq]int // trade days of history to make sure of
}

// NewPager caches first screens for ttl (the intraday refresh age: a
// screen is as fresh as the series it shows). With shared (nil: none) the
// instances of a deployment share them: the process's cache is a near
// cache in front, and no instance serves an older screen than another
// built.
func NewPager(svc *Service, ttl time.Duration, shared cache.Shared) (*Pager, error) {
	c, err := cache.New[*screen](cache.Config{Name: "kline-first-screen", MaxCost: 4096, Entries: 4096})
	if err != nil {
		return nil, err
	}
	return &Pager{svc: svc, cache: c, ttl: ttl, tier: cache.NewTier[sharedScreen](shared, "kline-screen:", svc.log),
		depth: map[market.Freq]int{market.Daily: 250, market.Min5: 5, market.Min1: 5}}, nil
}

// Close releases the cache.
func (p *Pager) Close() { p.cache.Close() }

// CacheStats reports the first-screen cache's counters.
func (p *Pager) CacheStats() cache.Stats { return p.cache.Stats() }

// Page is one page of a series, newest first.
type Page struct {
	Bars        []market.Bar // newest first
	Provisional int          // how many of the first bars are forming
	FromCache   bool
	AsOf        time.Time // the first screen's build time
	Context     []market.Bar
	// More says there are older bars: context follows, or the source
	// could not be asked for more just now (the next page may be an
	// outage, never a false end).
	More bool
}

// Get returns page n (from 1) of size bars, newest first, plus up to
// contextBars older bars after it (for indicators over the page's rows).
func (p *Pager) Get(ctx context.Context, code market.Code, freq market.Freq, n, size, contextBars int) (Page, error) {
	key := code.String() + "/" + string(freq)
	scr, hit := p.cached(ctx, key)
	if !hit {
		var err error
		if scr, err = p.build(ctx, code, freq); err != nil {
			return Page{}, err
		}
		if newer, ok := p.tier.Publish(ctx, key, scr.built.UnixMilli(), scr.shared(), p.ttl); ok {
			scr = newer.screen() // another instance's build, as new
		}
		p.cache.SetSync(key, scr, 1, p.ttl) // the next request must find it
	}
	offset := (n - 1) * size
	want := size + contextBars
	out := Page{FromCache: hit, AsOf: scr.built}
	var rows []market.Bar
	if offset < len(scr.bars) {
		rows = append(rows, scr.bars[offset:min(len(scr.bars), offset+want)]...)
		out.Provisional = max(0, min(scr.provisional-offset, len(rows)))
	}
	unknown := false
	if len(rows) < want && len(scr.bars) == ScreenSize {
		// Continue strictly before the screen's oldest bar, from the store
		// and, where it runs out, from the source's older history.
		skip := max(0, offset-len(scr.bars))
		older, err := p.svc.Older(ctx, code, freq, scr.bars[len(scr.bars)-1].TS, skip+want-len(rows))
		if err != nil {
			if skip+size > len(older)+len(rows) {
				return Page{}, err // the page's own rows are missing: an outage
			}
			unknown = true // only the context is short
		}
		if skip < len(older) {
			rows = append(rows, older[skip:]...)
		}
	}
	cut := min(size, len(rows))
	out.Bars, out.Context = rows[:cut], rows[cut:]
	out.More = len(out.Context) > 0 || unknown
	return out, nil
}

// cached is key's first screen younger than the ttl: the near cache's, or
// the shared one when another instance built a newer one.
func (p *Pager) cached(ctx context.Context, key string) (*screen, bool) {
	scr, ok := p.cache.Get(key)
	var have int64
	if ok {
		have = scr.built.UnixMilli()
	}
	if sh, newer := p.tier.Newer(ctx, key, have); newer {
		scr, ok = sh.screen(), true
		p.cache.SetSync(key, scr, 1, p.ttl)
	}
	return scr, ok && p.svc.clock.Now().Sub(scr.built) < p.ttl
}

// build makes a series' first screen: the newest bars, provisional ones of
// the running session first, then final ones from the store (making sure the
// store holds a default depth of history).
func (p *Pager) build(ctx context.Context, code market.Code, freq market.Freq) (*screen, error) {
	last := p.svc.LastCompleteDay()
	from := last
	for range p.depth[freq] - 1 {
		from = p.svc.cal.Prev(from)
	}
	to := last
	if live := p.svc.liveDay(); live != 0 {
		to = live
	}
	// The newest final day must be there; the default depth before it is
	// warm-up, which a store that holds only a few days (a new listing)
	// answers offline with what it has.
	ser, err := p.svc.Series(ctx, code, freq, Range{From: last.Start(), To: to.At(23, 59, 59), WarmFrom: from.Start()})
	if err != nil {
		return nil, err
	}
	bars := ser.Bars
	if len(bars) < ScreenSize {
		// The default depth is short of a screen (minute bars of few days):
		// top up from whatever older bars the store has.
		var before int64 = 1<<62 - 1
		if len(bars) > 0 {
			before = bars[0].TS - 1
		}
		older, err := p.svc.store.Bars(ctx, db.BarQuery{Code: code, Freq: freq, ToTS: before, Newest: true, Limit: ScreenSize - len(bars)})
		if err != nil {
			return nil, err
		}
		slices.Reverse(older)
		bars = append(older, bars...)
	}
	if len(bars) > ScreenSize {
		bars = bars[len(bars)-ScreenSize:]
	}
	newest := slices.Clone(bars)
	slices.Reverse(newest)
	return &screen{bars: newest, provisional: min(ser.Provisional, len(newest)), asOf: ser.RealtimeAsOf, built: p.svc.clock.Now()}, nil
}
