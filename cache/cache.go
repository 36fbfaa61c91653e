// Package cache wraps ristretto with what the service needs on top of it:
// counters for the health endpoint, a Set that cannot race a Close (ristretto
// panics on a send to its closed buffer), and a Set that waits until a new
// key is really stored, for callers that read it back at once.
//
// ristretto may drop a Set of a new key (under bursts, or by its admission
// policy), so a cache here is only ever a copy of data held elsewhere
// (SQLite, or rebuildable state); nothing that must not be lost lives only in
// it.
package cache

import (
	"fmt"
	"sync"
	"time"

	"github.com/dgraph-io/ristretto/v2"
)

// Config sizes a cache. Costs are whatever unit the caller passes to Set:
// bytes for encoded responses, 1 per entry for small records.
type Config struct {
	Name string
	// MaxCost is the capacity in the caller's cost unit.
	MaxCost int64
	// Entries is the expected number of live entries; it sizes the
	// admission counters (ristretto wants about 10 per entry).
	Entries int64
}

// Cache is a typed, concurrency-safe cache keyed by string.
type Cache[V any] struct {
	name string
	c    *ristretto.Cache[string, V]

	mu     sync.RWMutex // guards closed against concurrent Set/Close
	closed bool
}

func New[V any](cfg Config) (*Cache[V], error) {
	if cfg.MaxCost <= 0 || cfg.Entries <= 0 {
		return nil, fmt.Errorf("cache %s: MaxCost and Entries must be positive", cfg.Name)
	}
	c, err := ristretto.NewCache(&ristretto.Config[string, V]{
		NumCounters: max(cfg.Entries*10, 100),
		MaxCost:     cfg.MaxCost,
		BufferItems: 64,
		Metrics:     true,
		// Without this every entry silently costs ~56 bytes more than the
		// caller says, and a cache sized in entries holds almost nothing.
		IgnoreInternalCost: true,
	})
	if err != nil {
		return nil, fmt.Errorf("cache %s: %w", cfg.Name, err)
	}
	return &Cache[V]{name: cfg.Name, c: c}, nil
}

// Get returns the value for key, if present and unexpired.
func (c *Cache[V]) Get(key string) (V, bool) { return c.c.Get(key) }

// Set stores a value for ttl (0 = no expiry). It may be dropped; the result
// says only whether ristretto accepted it into its buffer.
func (c *Cache[V]) Set(key string, v V, cost int64, ttl time.Duration) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.closed || ttl < 0 {
		return false
	}
	return c.c.SetWithTTL(key, v, cost, ttl)
}

// SetSync stores a value and waits until the cache has applied it, then
// reports whether it is really there (ristretto's Set of a new key is
// asynchronous and may be rejected silently, e.g. when cost > MaxCost).
func (c *Cache[V]) SetSync(key string, v V, cost int64, ttl time.Duration) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.closed || ttl < 0 {
		return false
	}
	if !c.c.SetWithTTL(key, v, cost, ttl) {
		return false
	}
	c.c.Wait()
	_, ok := c.c.Get(key)
	return ok
}

// Del removes a key. The removal is immediate and also ordered after any
// buffered Set of the same key.
func (c *Cache[V]) Del(key string) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if !c.closed {
		c.c.Del(key)
	}
}

// Wait blocks until buffered writes are applied.
func (c *Cache[V]) Wait() {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if !c.closed {
		c.c.Wait()
	}
}

// Close releases the cache. Later calls are harmless no-ops.
func (c *Cache[V]) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed {
		c.closed = true
		c.c.Close()
	}
}

// Stats is a point-in-time view for the health endpoint.
type Stats struct {
	Name        string  `json:"name"`
	Hits        uint64  `json:"hits"`
	Misses      uint64  `json:"misses"`
	HitRatio    float64 `json:"hit_ratio"`
	KeysAdded   uint64  `json:"keys_added"`
	KeysUpdated uint64  `json:"keys_updated"`
	KeysEvicted uint64  `json:"keys_evicted"`
	SetsDropped uint64  `json:"sets_dropped"`
	CostUsed    int64   `json:"cost_used"`
	CostMax     int64   `json:"cost_max"`
}

func (c *Cache[V]) Stats() Stats {
	m := c.c.Metrics
	s := Stats{Name: c.name, CostMax: c.c.MaxCost()}
	if m == nil {
		return s
	}
	s.Hits, s.Misses = m.Hits(), m.Misses()
	if total := s.Hits + s.Misses; total > 0 {
		s.HitRatio = float64(s.Hits) / float64(total)
	}
	s.KeysAdded, s.KeysUpdated, s.KeysEvicted = m.KeysAdded(), m.KeysUpdated(), m.KeysEvicted()
	s.SetsDropped = m.SetsDropped()
	s.CostUsed = int64(m.CostAdded()) - int64(m.CostEvicted())
	return s
}
