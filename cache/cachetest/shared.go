// Package cachetest is a shared cache level in memory, for tests of the
// services that put one behind their near cache (the Redis one is tested
// against a real server in package cluster and by the multi-instance
// test).
package cachetest

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"time"
)

// ErrDown is what every call answers while the store is down.
var ErrDown = errors.New("cachetest: shared store down")

// Shared keeps cache.Shared's contract in memory: newest version wins.
type Shared struct {
	mu   sync.Mutex
	data map[string][]byte
	ver  map[string]int64
	puts int
	down bool
}

// SetDown makes every call fail (an outage) until SetDown(false).
func (m *Shared) SetDown(down bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.down = down
}

func NewShared() *Shared {
	return &Shared{data: map[string][]byte{}, ver: map[string]int64{}}
}

func (m *Shared) Version(_ context.Context, key string) (int64, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.down {
		return 0, false, ErrDown
	}
	v, ok := m.ver[key]
	return v, ok, nil
}

func (m *Shared) Get(_ context.Context, key string) ([]byte, int64, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.down {
		return nil, 0, false, ErrDown
	}
	d, ok := m.data[key]
	return d, m.ver[key], ok, nil
}

func (m *Shared) PutIfNewer(_ context.Context, key string, version int64, data []byte, _ time.Duration) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.down {
		return false, ErrDown
	}
	if v, ok := m.ver[key]; ok && v >= version {
		return false, nil
	}
	m.data[key], m.ver[key] = bytes.Clone(data), version
	m.puts++
	return true, nil
}

// Puts counts the entries stored (newer versions accepted).
func (m *Shared) Puts() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.puts
}

// Keys lists the keys held.
func (m *Shared) Keys() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]string, 0, len(m.data))
	for k := range m.data {
		out = append(out, k)
	}
	return out
}
