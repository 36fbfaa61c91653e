package limitpool

import (
	"context"
	"sync"
	"time"

	"mdqs/db"
	"mdqs/internal/market"
)

// History is a whole market's daily bars made on demand: the demo market,
// whose history its store does not hold whole (its end-of-day job and the
// screens read it from there too, kline.EODConfig.History).
type History interface {
	EachDailyHistory(ctx context.Context, day market.Day, n int, fn func(code market.Code, bars []market.Bar) error) error
}

// historyDays is how many trading days of a whole market a history read
// keeps: the strong pool's 60-day window and the bar before it for any
// day up to historyDays-StrongBars-1 days before the last read, and the
// 20 of 涨停统计 with streaks up to 39 boards.
const historyDays = 90

// ReadHistoryFrom makes the pools read daily bars from h instead of the
// store: without it a demo store, which holds only the latest day's bars,
// has no previous close for any stock, so no limit price and empty pools.
// The market's last historyDays days are read in one pass and kept for
// the requests that follow (asking the demo stock by stock took 6 to 17 s
// a ladder).
func (s *Service) ReadHistoryFrom(h History) { s.history = &historyCache{src: h} }

type historyCache struct {
	src History

	mu      sync.Mutex
	through market.Day
	bars    map[market.Code][]market.Bar
}

// upTo is every stock's bars through day (at least), loading them when the
// kept ones end before day or too long after it.
func (h *historyCache) upTo(ctx context.Context, cal *market.Calendar, day market.Day) (map[market.Code][]market.Bar, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.bars != nil && day <= h.through && cal.Count(day, h.through) <= historyDays-StrongBars-1 {
		return h.bars, nil
	}
	bars := map[market.Code][]market.Bar{}
	err := h.src.EachDailyHistory(ctx, day, historyDays, func(code market.Code, b []market.Bar) error {
		bars[code] = b
		return nil
	})
	if err != nil {
		return nil, err
	}
	h.through, h.bars = day, bars
	return bars, nil
}

// lastBars are code's last n daily bars ending at or before end (Unix
// seconds), oldest first.
func (s *Service) lastBars(ctx context.Context, code market.Code, end int64, n int) ([]market.Bar, error) {
	if s.history == nil {
		bars, err := s.store.Bars(ctx, db.BarQuery{Code: code, Freq: market.Daily, ToTS: end, Limit: n, Newest: true})
		reverse(bars)
		return bars, err
	}
	all, err := s.history.upTo(ctx, s.cal, market.DayOf(time.Unix(end, 0)))
	if err != nil {
		return nil, err
	}
	bars := all[code]
	k := len(bars)
	for k > 0 && bars[k-1].TS > end {
		k--
	}
	return append([]market.Bar(nil), bars[max(0, k-n):k]...), nil // callers may change theirs; the kept ones serve the next request
}
