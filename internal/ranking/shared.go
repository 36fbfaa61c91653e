package ranking

import (
	"context"
	"time"

	"mdqs/internal/market"
)

// sharedEntry is what goes to the shared store (Config.Shared): the
// ranking and the facts about it each instance needs to serve it as its
// builder would. Its version is the build time, so every instance
// converges on the newest build and answers with the same bytes.
type sharedEntry struct {
	Ranking *market.Ranking
	Day     market.Day
	Expires time.Time
	Final   bool
}

// cached is the near cache's entry of day, replaced by the shared one when
// another instance built a newer ranking.
func (s *Service) cached(ctx context.Context, day market.Day) (*Entry, bool) {
	e, ok := s.cache.Get(day.Compact())
	var have int64
	if ok {
		have = e.Built.UnixMilli()
	}
	if se, newer := s.tier.Newer(ctx, day.Compact(), have); newer && se.Ranking != nil {
		return s.keepLocal(se.Day, se.Ranking, se.Final, se.Expires), true
	}
	return e, ok
}

// publish puts a new build into the shared store, or returns the newer
// (or equally new) one another instance put there, to be served instead.
func (s *Service) publish(ctx context.Context, e *Entry) *Entry {
	se, newer := s.tier.Publish(ctx, e.Day.Compact(), e.Built.UnixMilli(),
		sharedEntry{Ranking: e.Ranking, Day: e.Day, Expires: e.Expires, Final: e.Final}, e.Expires.Sub(s.clock.Now()))
	if newer && se.Ranking != nil {
		return s.keepLocal(se.Day, se.Ranking, se.Final, se.Expires)
	}
	return e
}
