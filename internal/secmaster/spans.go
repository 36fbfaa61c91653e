package secmaster

import (
	"context"
	"sync"

	"mdqs/db"
	"mdqs/internal/market"
)

// spansKept is how many days' spans the service keeps: a day's
// cross-section read page by page, or screened and read, asks the same
// day again and again, and the minute archive asks the five days of its
// window on every status.
const spansKept = 8

// spansCache keeps the spans of a few recorded days. A recorded day's
// spans never change: a later day closes a span open on it at or after
// it, and starts new ones after it; a day is recorded once per source, so
// the key names the source.
type spansCache struct {
	mu    sync.Mutex
	keys  []spansKey // oldest first
	spans map[spansKey][]db.SecuritySpan
}

type spansKey struct {
	source string
	day    market.Day
}

// spansOn is the store's spans of source covering day, a recorded day.
func (s *Service) spansOn(ctx context.Context, source string, day market.Day) ([]db.SecuritySpan, error) {
	c, k := &s.spans, spansKey{source, day}
	c.mu.Lock()
	spans, ok := c.spans[k]
	c.mu.Unlock()
	if ok {
		return spans, nil
	}
	spans, err := s.store.SecuritySpansOn(ctx, source, day)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.spans == nil {
		c.spans = map[spansKey][]db.SecuritySpan{}
	}
	if _, ok := c.spans[k]; !ok {
		if len(c.keys) == spansKept {
			delete(c.spans, c.keys[0])
			c.keys = c.keys[1:]
		}
		c.keys = append(c.keys, k)
		c.spans[k] = spans
	}
	return spans, nil
}
