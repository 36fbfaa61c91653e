package hotrank

import (
	"context"
	"time"

	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

// outage is the 503 of a query that found no list for from..to when the
// source is failing, nil when nothing says so (the days are simply
// empty, a 404). Only days the source can still give count: EastMoney
// publishes the current list only, so a past day without a list stays
// missing whatever the upstream's state, and no source has tomorrow's.
func (s *Service) outage(ctx context.Context, from, to market.Day) error {
	today := s.today()
	if _, current := s.src.(live); current {
		from = max(from, today)
	}
	to = min(to, today)
	if from > to {
		return nil
	}
	ev := upstream.Evidence{Sources: []string{s.cfg.Source}, Statuses: s.Statuses()}
	scope := ""
	if from == to {
		scope = from.String()
	}
	run, err := s.store.LastImport(ctx, ImportKind, scope, false)
	if err == nil {
		if d, perr := market.ParseDay(run.Scope); perr == nil && d >= from && d <= to {
			ev.LastError, ev.LastAt = run.Error, run.Finished
		}
	}
	ev.NextImport = s.nextImport(ev.LastAt)
	what := "no hot rank is stored for " + from.String()
	if from != to {
		what += ".." + to.String()
	}
	return upstream.Outage(what, s.now(), ev)
}

// nextImport is how long until the jobs import today's list again after
// an import that finished at last: inside the window the job runs every
// Interval; after CloseAt on a trading day the close job tries every
// minute until it has the day's final list; otherwise nothing runs before
// the next window opens.
func (s *Service) nextImport(last time.Time) time.Duration {
	now := s.now()
	today := market.DayOf(now)
	trading := s.cal.IsTradingDay(today)
	closeAt := s.cfg.CloseAt.On(today)
	switch {
	case s.InWindow(now):
		return min(s.cfg.Interval, max(last.Add(s.cfg.Interval).Sub(now), time.Second))
	case trading && !now.Before(closeAt):
		return time.Minute
	case trading && now.Before(s.cfg.Window.Start.On(today)):
		return s.cfg.Window.Start.On(today).Sub(now)
	case trading && now.Before(closeAt):
		return closeAt.Sub(now)
	}
	return s.cfg.Window.Start.On(s.cal.Next(today)).Sub(now)
}
