package upstream

import (
	"context"
	"sync"
	"sync/atomic"
)

// Waiter is the context key saying that a request waits on the calls made
// with the context (the API sets it on every route bounded by
// server.upstream_wait). Such a call probes a source that has not answered
// yet, one attempt per host, instead of spending seconds of retries on the
// request; background work keeps its retries (fetcher.attempts).
type Waiter struct{}

// WithWaiter marks ctx as one a request waits on.
func WithWaiter(ctx context.Context) context.Context {
	return context.WithValue(ctx, Waiter{}, true)
}

// Waiting says whether a request waits on calls made with ctx now.
func Waiting(ctx context.Context) bool {
	switch v := ctx.Value(Waiter{}).(type) {
	case bool:
		return v
	case *WaitMark:
		return v.waiting()
	}
	return false
}

// WaitMark is a shared fetch's Waiter: background work may start the
// fetch, with its retries, and a request join it later; from then on the
// fetch is one a request waits on. Without it a request that joined a
// start-up job's collection of a source that was down waited out the
// job's twelve attempts (11.8 s). A fetch made inside another shared
// fetch (a ranking's collections) is waited on whenever the outer one is.
type WaitMark struct {
	set atomic.Bool
	mu  sync.Mutex
	via []*WaitMark // the marks of the shared fetches that wait on this one
}

func (m *WaitMark) waiting() bool {
	if m.set.Load() {
		return true
	}
	m.mu.Lock()
	via := m.via
	m.mu.Unlock()
	for _, o := range via {
		if o.waiting() {
			return true
		}
	}
	return false
}

// WaitMarks hands out the marks of a service's shared fetches, by the
// fetch's key; the zero value is ready.
type WaitMarks struct {
	mu sync.Mutex
	m  map[string]*WaitMark
}

// Join is the mark of the fetch for key, set when a request waits (ctx),
// and tied to the outer fetch's mark when ctx is a shared fetch's.
// Join before joining or starting the fetch; the fetch runs with
// Context(its context) and calls Done when it ends.
func (ms *WaitMarks) Join(ctx context.Context, key string) *WaitMark {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	m, ok := ms.m[key]
	if !ok {
		if ms.m == nil {
			ms.m = map[string]*WaitMark{}
		}
		m = &WaitMark{}
		ms.m[key] = m
	}
	switch v := ctx.Value(Waiter{}).(type) {
	case bool:
		if v {
			m.set.Store(true)
		}
	case *WaitMark:
		if v != m {
			m.mu.Lock()
			m.via = append(m.via, v)
			m.mu.Unlock()
		}
	}
	return m
}

// Done forgets the mark of a fetch that has ended.
func (ms *WaitMarks) Done(key string, m *WaitMark) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	if ms.m[key] == m {
		delete(ms.m, key)
	}
}

// Context is ctx carrying the mark, in place of any Waiter it had.
func (m *WaitMark) Context(ctx context.Context) context.Context {
	return context.WithValue(ctx, Waiter{}, m)
}
