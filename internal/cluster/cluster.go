// Package cluster is how the instances of one deployment (several mdqs
// processes on one PostgreSQL store) share state through Redis, and what
// each does when Redis fails: it goes on from its own memory (near cache,
// local rate buckets), says so in health and metrics,
// and returns to the shared state by itself once Redis answers again.
// Failing requests because a cache is away would turn a degraded service
// into an outage.
package cluster

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// Redis is the shared store (sharedstate.Client).
type Redis interface {
	Take(ctx context.Context, key string, ratePerSec float64, burst int) (wait time.Duration, ok bool, err error)
	Version(ctx context.Context, key string) (int64, bool, error)
	Get(ctx context.Context, key string) (data []byte, version int64, ok bool, err error)
	PutIfNewer(ctx context.Context, key string, version int64, data []byte, ttl time.Duration) (stored bool, err error)
	Ping(ctx context.Context) error
	Addr() string
}

// Shared wraps the Redis client: every call's outcome moves the
// up/down state that health reports and the fallbacks follow.
type Shared struct {
	rc  Redis
	log *slog.Logger

	down     atomic.Bool
	failures atomic.Uint64
	mu       sync.Mutex
	lastErr  string
	downAt   time.Time
}

func New(rc Redis, log *slog.Logger) *Shared { return &Shared{rc: rc, log: log} }

// observe records a call's outcome; the first failure and the recovery are
// logged once each, not per request.
// A call cut short by its own request's end says nothing about Redis.
func (s *Shared) observe(ctx context.Context, err error) {
	if err == nil {
		if s.down.Swap(false) {
			s.log.Info("redis answers again; shared state resumed", "redis", s.rc.Addr())
		}
		return
	}
	if ctx.Err() != nil {
		return
	}
	s.failures.Add(1)
	s.mu.Lock()
	s.lastErr = err.Error()
	if !s.down.Load() {
		s.downAt = time.Now()
	}
	s.mu.Unlock()
	if !s.down.Swap(true) {
		s.log.Warn("redis unreachable; this instance serves from its own memory (near cache and rate limits) until it answers",
			"redis", s.rc.Addr(), "err", err)
	}
}

// Status is the shared store's state for health and metrics.
type Status struct {
	Addr      string `json:"addr"`
	Up        bool   `json:"up"`
	Failures  uint64 `json:"failures"`
	LastError string `json:"last_error,omitempty"`
	// Degraded says what this instance does instead while Redis is down.
	Degraded string `json:"degraded,omitempty"`
}

func (s *Shared) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{Addr: s.rc.Addr(), Up: !s.down.Load(), Failures: s.failures.Load(), LastError: s.lastErr}
	if !st.Up {
		st.Degraded = "rankings, K-line first screens and intraday series from this instance's near cache; rate limits of this instance only (replay protection is the store's, unaffected)"
	}
	return st
}

// Probe pings Redis so that an idle instance notices an outage or a
// recovery without waiting for a request; a job runs it.
func (s *Shared) Probe(ctx context.Context) error {
	err := s.rc.Ping(ctx)
	s.observe(ctx, err)
	return err
}

// Take spends one token of a rate limit every instance shares. An error
// means Redis is down: the caller's own bucket decides.
func (s *Shared) Take(ctx context.Context, key string, rate float64, burst int) (time.Duration, bool, error) {
	wait, ok, err := s.rc.Take(ctx, "limit:"+key, rate, burst)
	s.observe(ctx, err)
	return wait, ok, err
}

// Cache is the shared level of the caches whose staleness matters across
// instances (cache.Shared): the ranking, the K-line first screens, the
// intraday series.
func (s *Shared) Cache() Cache { return Cache{s} }

// Cache holds versioned entries in Redis.
type Cache struct{ s *Shared }

func (c Cache) Version(ctx context.Context, key string) (int64, bool, error) {
	v, ok, err := c.s.rc.Version(ctx, key)
	c.s.observe(ctx, err)
	return v, ok, err
}

func (c Cache) Get(ctx context.Context, key string) ([]byte, int64, bool, error) {
	d, v, ok, err := c.s.rc.Get(ctx, key)
	c.s.observe(ctx, err)
	return d, v, ok, err
}

func (c Cache) PutIfNewer(ctx context.Context, key string, version int64, data []byte, ttl time.Duration) (bool, error) {
	stored, err := c.s.rc.PutIfNewer(ctx, key, version, data, ttl)
	c.s.observe(ctx, err)
	return stored, err
}
