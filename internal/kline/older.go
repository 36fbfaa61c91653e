package kline

import (
	"context"

	"mdqs/db"
	"mdqs/internal/market"
)

// historyFloor is the first trading day of China's exchanges (SSE,
// 1990-12-19): no source has a bar before it.
const historyFloor market.Day = 19901219

// minuteChunkDays is how many trading days of minute bars one step back
// asks for; sources keep few (push2his about a week, the demo market 250
// days a request).
const minuteChunkDays = 5

// maxSteps bounds the fetches one Older call makes: daily history comes
// back whole in one step, minute history a chunk per step.
const maxSteps = 8

// Older is up to n final bars strictly before the instant beforeTS, newest
// first: the store's, then, where the store runs out, the source's older
// history, fetched and stored (daily bars back to the source's first, in
// one step; minute bars a few days a step), so paging back reaches as far
// as a K-line range does. The store holds a series' whole history once its
// coverage starts before its first bar (a fetch found nothing earlier).
// On a failed fetch it returns what the store holds, with the error.
func (s *Service) Older(ctx context.Context, code market.Code, freq market.Freq, beforeTS int64, n int) ([]market.Bar, error) {
	for step := 0; ; step++ {
		bars, err := s.store.Bars(ctx, db.BarQuery{Code: code, Freq: freq, ToTS: beforeTS - 1, Newest: true, Limit: n})
		if err != nil || len(bars) >= n || step == maxSteps {
			return bars, err
		}
		cov, _, ok, err := s.store.Coverage(ctx, code, freq)
		if err != nil || !ok {
			return bars, err
		}
		first, err := s.store.Bars(ctx, db.BarQuery{Code: code, Freq: freq, Limit: 1})
		if err != nil {
			return bars, err
		}
		if cov.First <= historyFloor || (len(first) == 1 && cov.First < first[0].Day) {
			return bars, nil // the whole history is stored
		}
		from := historyFloor
		if freq != market.Daily {
			from = cov.First
			for range minuteChunkDays {
				from = s.cal.Prev(from)
			}
		}
		if err := s.Ensure(ctx, code, freq, from, s.cal.Prev(cov.First)); err != nil {
			if market.KindOf(err) == market.KindNotFound {
				return bars, nil // the source has nothing that early
			}
			return bars, err
		}
	}
}
