package market

import (
	"sync"
	"time"
)

// Clock is the one source of "now" for everything that depends on time, so
// tests can pin it.
type Clock interface {
	Now() time.Time
}

// SystemClock reads the host's clock.
type SystemClock struct{}

func (SystemClock) Now() time.Time { return time.Now() }

// FixedClock is a settable clock for tests and for replaying a past day.
type FixedClock struct {
	mu sync.Mutex
	t  time.Time
}

func NewFixedClock(t time.Time) *FixedClock { return &FixedClock{t: t} }

func (c *FixedClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *FixedClock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

func (c *FixedClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}
