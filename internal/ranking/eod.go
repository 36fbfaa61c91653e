package ranking

import (
	"context"
	"errors"
	"fmt"

	"mdqs/internal/board"
	"mdqs/internal/market"
)

// EndOfDay stores the final ranking of every trading day that needs one
// (spec 4.3 rule 8): today once the end-of-day time has passed, and any of
// the last CatchUpDays days the service missed while it was down. A day
// already stored is left alone, so the job is idempotent; a day with no data
// at all is skipped. It reports the days it stored.
func (s *Service) EndOfDay(ctx context.Context) ([]market.Day, error) {
	now := s.clock.Now()
	today := market.DayOf(now)
	from := today.AddDays(-s.cfg.CatchUpDays)
	stored, err := s.store.DailyRankingDays(ctx, from, today)
	if err != nil {
		return nil, err
	}
	var done []market.Day
	for _, d := range s.cal.Between(from, today) {
		if stored[d] || (d == today && now.Before(s.cfg.EODAt.On(today))) {
			continue
		}
		e, err := s.Rebuild(ctx, d)
		if board.IsNotFound(err) {
			continue
		}
		if err != nil {
			return done, fmt.Errorf("end of day %v: %w", d, err)
		}
		if err := s.store.SaveDailyRanking(ctx, d, e.Ranking); err != nil {
			return done, fmt.Errorf("end of day %v: %w", d, err)
		}
		done = append(done, d)
	}
	if len(done) > 0 {
		s.log.Info("stored end-of-day rankings", "days", len(done), "last", done[len(done)-1])
	}
	return done, nil
}

// Collect is the scheduler's work inside the window (rule 7): a fresh
// collection of both families, then a rebuild written back to the cache.
// It collects explicitly rather than through the rebuild's freshness test,
// which a tick arriving a moment before the soft interval would fail.
//
// A family collected less than half an interval ago is not asked for
// again: that collection is another instance's (a leader that has just
// died, whose successor runs its catch-up at once) or a request's, and
// asking again would double a collection the upstream sees.
func (s *Service) Collect(ctx context.Context) error {
	var errs []error
	day := s.CurrentDay()
	for _, kind := range []market.SectorKind{market.Industry, market.Concept} {
		source := board.Resolve(s.cfg.Mode, kind)
		if at, ok, err := s.store.LastCollected(ctx, kind, source, day); err == nil && ok && s.clock.Now().Sub(at) < s.cfg.Soft/2 {
			continue
		}
		if _, err := s.col.Collect(ctx, kind, source); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) == 2 {
		return errors.Join(errs...) // nothing new to rank; requests serve the cached ranking
	}
	// Rank what was just collected; a family whose collection failed is
	// ranked from its previous collection rather than asked again.
	if _, err := s.rebuild(ctx, s.CurrentDay(), false); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// InWindow is the scheduler's gate.
func (s *Service) InWindow() bool { return s.cfg.Window.Contains(s.cal, s.clock.Now()) }
