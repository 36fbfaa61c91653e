// Package hotrank keeps the hot rank (EastMoney's popularity list, 人气榜)
// of every day in the store: imports from a source (EastMoney or the demo
// market), the jobs that run them, and the queries of spec 4.6.
package hotrank

import (
	"cmp"
	"context"
	"log/slog"
	"math"
	"sync"
	"time"

	"mdqs/db"
	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

// Source is where a day's list comes from, a page at a time: the demo
// market (any day up to today) or EastMoney through Live (today only).
type Source interface {
	HotRankPage(ctx context.Context, day market.Day, page, size int) (upstream.HotRankPage, error)
}

// Live adapts the EastMoney client. The upstream publishes the current
// list only, so another day is an invalid date, not a fetch.
func Live(c *upstream.HotRank, clock market.Clock) Source { return live{c: c, clock: clock} }

type live struct {
	c     *upstream.HotRank
	clock market.Clock
}

func (l live) HotRankPage(ctx context.Context, day market.Day, page, size int) (upstream.HotRankPage, error) {
	if today := market.DayOf(l.clock.Now()); day != today {
		return upstream.HotRankPage{}, &market.Error{Kind: market.KindInvalid, Message: "invalid date",
			Detail: "EastMoney publishes only the current list: date must be today, " + today.String()}
	}
	return l.c.Page(ctx, page, size)
}

// Config tunes the service; zero fields take the defaults in brackets.
type Config struct {
	// Source names the rows' origin ("emappdata", "demo").
	Source string
	// PageSize is the import's default page size [100, the upstream's
	// maximum]; MaxPages stops an import that asks for all pages [20].
	PageSize int
	MaxPages int
	// MaxSize caps the size and top parameters of the queries [100].
	MaxSize int
	// MaxRangeDays caps a start_date..end_date range [366].
	MaxRangeDays int
	// DetailDays is the history the detail endpoint shows by default [90].
	DetailDays int
	// CatchUpDays is how many past trading days without a list the
	// after-close job fills from a source with history (the demo) [5];
	// negative fills none.
	CatchUpDays int
	// Window is when the periodic import runs (the trading window), every
	// Interval [5m], and CloseAt when the day's final list is taken
	// [15:05].
	Window   market.Window
	Interval time.Duration
	CloseAt  market.TimeOfDay
}

func (c Config) withDefaults() Config {
	c.Source = cmp.Or(c.Source, upstream.SourceHotRank)
	if c.PageSize <= 0 || c.PageSize > upstream.HotRankMaxPageSize {
		c.PageSize = upstream.HotRankMaxPageSize
	}
	c.MaxPages = cmp.Or(max(c.MaxPages, 0), 20)
	c.MaxSize = cmp.Or(max(c.MaxSize, 0), 100)
	c.MaxRangeDays = cmp.Or(max(c.MaxRangeDays, 0), 366)
	c.DetailDays = cmp.Or(max(c.DetailDays, 0), 90)
	if c.CatchUpDays < 0 {
		c.CatchUpDays = 0
	} else if c.CatchUpDays == 0 {
		c.CatchUpDays = 5
	}
	if c.Window == (market.Window{}) {
		c.Window = market.Window{Start: 9*60 + 25, End: 15 * 60}
	}
	c.Interval = cmp.Or(max(c.Interval, 0), 5*time.Minute)
	c.CloseAt = cmp.Or(c.CloseAt, 15*60+5)
	return c
}

// Service imports and answers the hot rank.
type Service struct {
	cfg   Config
	store *db.Store
	src   Source
	cal   *market.Calendar
	clock market.Clock
	log   *slog.Logger

	importMu sync.Mutex // one import at a time: the job and POST /import share the store's rows

	status func() upstream.Status // the upstream client's, when there is one
}

// New builds the service.
func New(cfg Config, store *db.Store, src Source, cal *market.Calendar, clock market.Clock, log *slog.Logger) *Service {
	if clock == nil {
		clock = market.SystemClock{}
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Service{cfg: cfg.withDefaults(), store: store, src: src, cal: cal, clock: clock, log: log}
}

// Config is the effective configuration, defaults applied.
func (s *Service) Config() Config { return s.cfg }

// HeatOf is the heat of a rank: round(1,000,000 / (rank + 99)), 10000 for
// the first place, 5025 for the 100th, falling smoothly below. EastMoney
// publishes ranks, not a popularity figure, so heat is derived from the
// rank the same way for every day and source: heats of different days
// compare, and higher is hotter. A rank below 1 has no heat.
func HeatOf(rank int) int {
	if rank < 1 {
		return 0
	}
	return int(math.Round(1e6 / float64(rank+99)))
}

// today is the Shanghai calendar day of the clock: the day an import
// files the list under, weekends included (the list moves every day).
func (s *Service) today() market.Day { return market.DayOf(s.clock.Now()) }

func (s *Service) now() time.Time { return s.clock.Now() }
