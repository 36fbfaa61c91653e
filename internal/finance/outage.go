package finance

import (
	"context"
	"time"

	"mdqs/db"
	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

// outage is the 503 of a query that found nothing when the reports it
// asked for are missing because the source is failing; nil when nothing
// says so. Only what the job imports can be missing for that reason: a
// period among the Periods latest (period 0: the store holds no report
// at all). An older period is imported on demand only, so its absence is
// a 404 whatever the upstream's state.
func (s *Service) outage(ctx context.Context, period market.Day) error {
	now := s.clock.Now()
	recent := RecentPeriods(market.DayOf(now), s.cfg.Periods)
	scope, what := "", "no financial reports are stored"
	if period != 0 {
		found := false
		for _, p := range recent {
			found = found || p == period
		}
		if !found {
			return nil
		}
		scope = upstream.PeriodName(period)
		what += " for " + scope
	}
	if _, n, err := s.store.Reports(ctx, db.ReportQuery{Period: period, Limit: 1}); err != nil || n > 0 {
		return err
	}
	ev := upstream.Evidence{Sources: []string{s.cfg.Source}, Statuses: s.Statuses()}
	run, err := s.store.LastImport(ctx, ImportKind, scope, false)
	switch {
	case err == nil:
		ev.LastError, ev.LastAt = run.Error, run.Finished
	case market.KindOf(err) != market.KindNotFound:
		return err
	}
	ev.NextImport = min(s.cfg.Interval, max(ev.LastAt.Add(s.cfg.Interval).Sub(now), time.Second))
	return upstream.Outage(what, now, ev)
}
