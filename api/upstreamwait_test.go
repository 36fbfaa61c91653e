package api

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"mdqs/market"
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
