package ranking

import (
	"bytes"
	"context"
	"encoding/gob"
	"time"

	"mdqs/market"
)

// Shared is where the instances of one deployment keep the rankings they
// all serve (cluster.Rankings, over Redis). A ranking is put with its
// build time as version and replaces only an older one, so every instance
// converges on the newest build and answers with the same bytes.
type Shared interface {
	// Version is the newest shared build of key; it is read on every
	// request, so an implementation answers it from memory and learns of
	// a newer build by invalidation.
	Version(ctx context.Context, key string) (version int64, ok bool, err error)
	Get(ctx context.Context, key string) (data []byte, version int64, ok bool, err error)
	PutIfNewer(ctx context.Context, key string, version int64, data []byte, ttl time.Duration) (stored bool, err error)
}

// sharedEntry is what goes to the shared store: the ranking and the facts
// about it each instance needs to serve it as its builder would. Gob,
// not JSON: unknown values are NaN, which encoding/json refuses.
type sharedEntry struct {
	Ranking *market.Ranking
	Day     market.Day
	Expires time.Time
	Final   bool
}

func sharedKey(day market.Day) string { return "ranking:" + day.Compact() }

// cached is the near cache's entry of day, replaced by the shared one when
// another instance built a newer ranking. When the shared store fails the
// near cache answers alone (the adapter reports the outage).
func (s *Service) cached(ctx context.Context, day market.Day) (*Entry, bool) {
	e, ok := s.cache.Get(day.Compact())
	if s.cfg.Shared == nil {
		return e, ok
	}
	v, found, err := s.cfg.Shared.Version(ctx, sharedKey(day))
	if err != nil || !found || (ok && v <= e.Built.UnixMilli()) {
		return e, ok
	}
	if fresh, got := s.fetchShared(ctx, day); got {
		return fresh, true
	}
	return e, ok
}

// fetchShared reads the shared ranking of day into the near cache.
func (s *Service) fetchShared(ctx context.Context, day market.Day) (*Entry, bool) {
	data, _, found, err := s.cfg.Shared.Get(ctx, sharedKey(day))
	if err != nil || !found {
		return nil, false
	}
	var se sharedEntry
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&se); err != nil || se.Ranking == nil {
		s.log.Warn("shared ranking unreadable; ignoring it", "day", day, "err", err)
		return nil, false
	}
	return s.keepLocal(se.Day, se.Ranking, se.Final, se.Expires), true
}

// publish puts a new build into the shared store. When another instance
// holds a newer (or equally new) one, that one is served instead, so no
// two instances answer with different builds for longer than a request.
func (s *Service) publish(ctx context.Context, e *Entry) *Entry {
	if s.cfg.Shared == nil {
		return e
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(sharedEntry{Ranking: e.Ranking, Day: e.Day, Expires: e.Expires, Final: e.Final}); err != nil {
		s.log.Warn("ranking not shared", "day", e.Day, "err", err)
		return e
	}
	ttl := e.Expires.Sub(s.clock.Now())
	if ttl <= 0 {
		return e
	}
	stored, err := s.cfg.Shared.PutIfNewer(ctx, sharedKey(e.Day), e.Built.UnixMilli(), buf.Bytes(), ttl)
	if err != nil || stored {
		return e
	}
	if newer, ok := s.fetchShared(ctx, e.Day); ok {
		return newer
	}
	return e
}
