package api

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"mdqs/internal/market"
)

// waits gives a handler's context the request's upstream wait; a path that
// runs out of it without naming what it waited for is still an outage
// (503), never a 500, and a named outage passes through as it is.
func TestWaitsBoundsTheHandlersContext(t *testing.T) {
	named := market.Errorf(market.KindUnavailable, "push2his D bars of 600519.SH: no answer within 1ms")
	for _, tt := range []struct {
		name   string
		wait   time.Duration
		h      handlerFunc
		kind   market.Kind
		detail string
	}{
		{"unnamed wait", time.Millisecond, func(w http.ResponseWriter, r *http.Request) error {
			<-r.Context().Done()
			return r.Context().Err()
		}, market.KindUnavailable, "server.upstream_wait"},
		{"named outage", time.Millisecond, func(w http.ResponseWriter, r *http.Request) error {
			<-r.Context().Done()
			return named
		}, market.KindUnavailable, "push2his D bars"},
		{"a bad request stays one", time.Millisecond, func(w http.ResponseWriter, r *http.Request) error {
			<-r.Context().Done()
			return market.Errorf(market.KindInvalid, "bad code")
		}, market.KindInvalid, "bad code"},
		{"no bound configured", 0, func(w http.ResponseWriter, r *http.Request) error {
			if _, ok := r.Context().Deadline(); ok {
				return errors.New("a deadline without upstream_wait")
			}
			return nil
		}, 0, ""},
	} {
		s := &Server{Deps: Deps{UpstreamWait: tt.wait}}
		err := s.waits(tt.h)(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/v1/api/kline", nil))
		if tt.detail == "" {
			if err != nil {
				t.Errorf("%s: %v", tt.name, err)
			}
			continue
		}
		if got := market.KindOf(err); got != tt.kind || !strings.Contains(err.Error(), tt.detail) {
			t.Errorf("%s: waits = %v (%v), want %v naming %q", tt.name, err, got, tt.kind, tt.detail)
		}
	}
}

// The upstream wait's context arms its timer only when waited on, and
// behaves as context.WithTimeout's otherwise: it ends at the deadline or
// with the request, for itself and for every context derived from it.
func TestWaitContextIsATimeoutStartedOnUse(t *testing.T) {
	newCtx := func(parent context.Context, wait time.Duration) *waitContext {
		return &waitContext{Context: parent, deadline: time.Now().Add(wait)}
	}

	c := newCtx(context.Background(), time.Hour)
	if d, ok := c.Deadline(); !ok || time.Until(d) < 59*time.Minute {
		t.Errorf("Deadline() = %v, %v; want an hour ahead", d, ok)
	}
	if c.Err() != nil || c.Value(struct{}{}) != nil {
		t.Error("a fresh wait context reports an error or a value it was not given")
	}
	if c.timed != nil {
		t.Fatal("Deadline, Err and Value armed a timer; only waiting should")
	}
	c.stop()

	c = newCtx(context.Background(), 5*time.Millisecond)
	derived, cancel := context.WithCancel(c) // derives: arms the timer
	defer cancel()
	select {
	case <-derived.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("a context derived from the wait context did not end at its deadline")
	}
	if !errors.Is(c.Err(), context.DeadlineExceeded) || !errors.Is(derived.Err(), context.DeadlineExceeded) {
		t.Errorf("after the deadline: Err() = %v, derived %v; want DeadlineExceeded", c.Err(), derived.Err())
	}

	c = newCtx(context.Background(), time.Millisecond)
	time.Sleep(2 * time.Millisecond)
	if !errors.Is(c.Err(), context.DeadlineExceeded) || c.timed != nil {
		t.Errorf("past the deadline, never waited on: Err() = %v (timer armed: %v); want DeadlineExceeded without a timer", c.Err(), c.timed != nil)
	}

	req, endRequest := context.WithCancel(context.Background())
	c = newCtx(req, time.Hour)
	endRequest()
	if !errors.Is(c.Err(), context.Canceled) {
		t.Errorf("after the request ended, never waited on: Err() = %v, want Canceled", c.Err())
	}
	select {
	case <-c.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("Done() did not close for a request that had ended")
	}

	req, endRequest = context.WithCancel(context.Background())
	c = newCtx(req, time.Hour)
	stopped := make(chan struct{})
	context.AfterFunc(c, func() { close(stopped) })
	endRequest()
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("an AfterFunc on the wait context did not run when the request ended")
	}
	c.stop()
}
