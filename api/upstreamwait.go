package api

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

// waits marks a handler that may wait on an upstream fetch (a sector
// collection, K-lines the store lacks, an intraday series, quotes): its
// context ends after Deps.UpstreamWait (server.upstream_wait). The
// services stop waiting then and answer 503 naming the source, while the
// fetch goes on in the background to fill the store, so a hanging
// upstream costs a request that much and its answer is written well
// before the server's write deadline would cut the connection.
func (s *Server) waits(h handlerFunc) handlerFunc {
	if s.UpstreamWait <= 0 {
		return h
	}
	return func(w http.ResponseWriter, r *http.Request) error {
		ctx := &waitContext{Context: r.Context(), deadline: time.Now().Add(s.UpstreamWait)}
		defer ctx.stop()
		err := h(w, r.WithContext(ctx))
		if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) && r.Context().Err() == nil &&
			market.KindOf(err) == market.KindInternal {
			// A path that did not name what it waited for: still an
			// outage, not a server error.
			return market.Wrap(market.KindUnavailable, err, "no answer from the upstream within %v (server.upstream_wait)", s.UpstreamWait)
		}
		return err
	}
}

// waitContext is the request's context with a deadline whose timer starts
// only when something waits on it (Done, or a context derived from it).
// Most requests never do: a cached ranking, a first screen from memory.
// context.WithTimeout armed and stopped a runtime timer and registered
// with the request's context on every one of them, four allocations and
// half a microsecond each (issue 19). Err needs no timer: it compares the
// clock with the deadline.
type waitContext struct {
	context.Context // the request's
	deadline        time.Time

	mu     sync.Mutex
	timed  context.Context // nil until first waited on
	cancel context.CancelFunc
}

func (c *waitContext) started() context.Context {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.timed == nil {
		c.timed, c.cancel = context.WithDeadline(c.Context, c.deadline)
	}
	return c.timed
}

func (c *waitContext) stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cancel != nil {
		c.cancel()
	}
}

func (c *waitContext) Deadline() (time.Time, bool) {
	if d, ok := c.Context.Deadline(); ok && d.Before(c.deadline) {
		return d, true
	}
	return c.deadline, true
}

func (c *waitContext) Done() <-chan struct{} { return c.started().Done() }

func (c *waitContext) Err() error {
	c.mu.Lock()
	timed := c.timed
	c.mu.Unlock()
	if timed != nil {
		return timed.Err()
	}
	if err := c.Context.Err(); err != nil {
		return err
	}
	if !time.Now().Before(c.deadline) {
		return context.DeadlineExceeded
	}
	return nil
}

// Value answers from the timed context once there is one, so a context
// derived from this one finds the timer's cancellation (the context
// package looks it up by value) and registers with it directly. It says
// that a request waits (upstream.Waiter), without a context of its own
// for it: the upstream clients probe a source that has not answered yet
// instead of spending the request's time on retries.
func (c *waitContext) Value(key any) any {
	if _, ok := key.(upstream.Waiter); ok {
		return true
	}
	c.mu.Lock()
	timed := c.timed
	c.mu.Unlock()
	if timed != nil {
		return timed.Value(key)
	}
	return c.Context.Value(key)
}
