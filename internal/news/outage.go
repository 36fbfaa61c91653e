package news

import (
	"context"
	"strings"
	"time"

	"mdqs/db"
	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

// outage is the 503 of a list that found nothing when no item at all is
// stored for the day asked (0: for any day) and every feed is failing;
// nil when nothing says so. The feeds give their newest items only, so
// only today, or the store as a whole, can be missing for that reason.
func (s *Service) outage(ctx context.Context, day market.Day) error {
	now := s.clock.Now()
	if day != 0 && day != market.DayOf(now) {
		return nil
	}
	if _, n, err := s.store.News(ctx, db.NewsQuery{Day: day, Limit: 1}); err != nil || n > 0 {
		return err
	}
	ev := upstream.Evidence{Statuses: s.Statuses()}
	var names, errs []string
	var lastAt time.Time
	for _, f := range s.feeds {
		names = append(names, f.Name)
		run, err := s.store.LastImport(ctx, ImportKind, f.Name, false)
		if err != nil && market.KindOf(err) != market.KindNotFound {
			return err
		}
		if err == nil && run.Error != "" {
			errs = append(errs, f.Name+": "+run.Error)
			if run.Finished.After(lastAt) {
				lastAt = run.Finished
			}
		}
	}
	// One feed that works (or has not run yet) may simply have nothing.
	if len(errs) > 0 && len(errs) == len(s.feeds) {
		ev.LastError, ev.LastAt = strings.Join(errs, "; "), lastAt
	}
	ev.Sources = names
	ev.NextImport = min(s.cfg.Interval, max(ev.LastAt.Add(s.cfg.Interval).Sub(now), time.Second))
	what := "no news is stored"
	if day != 0 {
		what += " for " + day.String()
	}
	return upstream.Outage(what, now, ev)
}
