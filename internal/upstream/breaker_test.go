package upstream

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"mdqs/internal/market"
)

// observed is how many calls a latency histogram has counted.
func observed(h prometheus.Histogram) uint64 {
	var m dto.Metric
	if err := h.Write(&m); err != nil {
		return 0
	}
	return m.GetHistogram().GetSampleCount()
}

// The circuit opens after BreakerFailures failed calls in a row, refuses
// calls without touching the network until the cooldown ends, lets exactly
// one probe through, and closes again when the probe succeeds.
func TestBreakerOpensRefusesProbesAndCloses(t *testing.T) {
	var healthy atomic.Bool
	srv, rec := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		if healthy.Load() {
			write(w, 200, jsonCT, fixture(t, "push2his_kline_daily_000725_2026-07_abridged.json"))
			return
		}
		write(w, 502, "text/html", fixture(t, "made_nginx_502.html"))
	})
	clock := market.NewFixedClock(testNow())
	cfg := testSource(srv.URL)
	cfg.Retries = 1
	cfg.BreakerFailures = 3
	cfg.BreakerCooldown = 30 * time.Second
	c, err := NewPush2His(cfg, NewLimiters(), clock)
	if err != nil {
		t.Fatal(err)
	}
	code := market.MustCode("000725.SZ")
	call := func() error {
		_, err := c.Klines(context.Background(), code, market.Daily, 0, 0)
		return err
	}

	// The first call has its retry; the source then failed a call, so
	// the next ones probe it, one attempt each (issue 32: each cost its
	// retries, seconds of backoff, before the circuit opened).
	for i, attempts := range []int{2, 1, 1} {
		wantErr(t, call(), KindHTTPStatus, attempts, "")
		if st := c.Status(); (i < 2) != (st.Breaker == BreakerClosed) {
			t.Fatalf("after failure %d breaker is %s", i+1, st.Breaker)
		}
	}
	if rec.count() != 4 {
		t.Fatalf("server saw %d requests, want 4 (2 attempts, then 2 probes)", rec.count())
	}
	st := c.Status()
	if st.Breaker != BreakerOpen || st.BreakerTrips != 1 || !st.BreakerOpenedAt.Equal(testNow()) ||
		!st.BreakerProbeAt.Equal(testNow().Add(30*time.Second)) {
		t.Fatalf("status after the third failure: %+v", st)
	}

	// Open: refused at once, no request, failure figures untouched.
	clock.Advance(29 * time.Second)
	e := wantErr(t, call(), KindCircuitOpen, 0, "")
	if e.Source != SourcePush2His || e.Path != "/api/qt/stock/kline/get" {
		t.Errorf("refusal names %q %q", e.Source, e.Path)
	}
	if rec.count() != 4 {
		t.Fatalf("an open circuit sent a request (%d)", rec.count())
	}
	if st := c.Status(); st.Rejected != 1 || st.Failures != 3 || st.LastErrorKind != KindHTTPStatus ||
		st.FailuresByKind[KindHTTPStatus] != 3 || len(st.FailuresByKind) != 1 || observed(st.Latency) != 3 || st.Calls != 4 {
		t.Errorf("status after a refusal: %+v", st)
	}

	// Cooldown over, upstream still down: the probe fails (one attempt)
	// and the circuit opens again for a full cooldown.
	clock.Advance(time.Second)
	wantErr(t, call(), KindHTTPStatus, 1, "")
	if st := c.Status(); st.Breaker != BreakerOpen || st.BreakerTrips != 2 || !st.BreakerOpenedAt.Equal(testNow().Add(30*time.Second)) {
		t.Fatalf("after a failed probe: %+v", st)
	}
	wantErr(t, call(), KindCircuitOpen, 0, "")

	// Upstream back: the next probe closes the circuit and calls flow.
	healthy.Store(true)
	clock.Advance(30 * time.Second)
	if err := call(); err != nil {
		t.Fatalf("probe: %v", err)
	}
	if st := c.Status(); st.Breaker != BreakerClosed || !st.BreakerOpenedAt.IsZero() || st.Rejected != 2 {
		t.Errorf("after a good probe: %+v", st)
	}
	if err := call(); err != nil {
		t.Fatal(err)
	}
}

// Answers from a live server (rc, schema drift, 4xx) and successes reset the
// count: only signs of an unwell upstream open the circuit.
func TestBreakerCountsOnlyUpstreamTrouble(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reply func(w http.ResponseWriter)
		opens bool
	}{
		{"502 page", func(w http.ResponseWriter) { write(w, 502, "text/html", []byte("<html>bad gateway</html>")) }, true},
		{"429", func(w http.ResponseWriter) { write(w, 429, "text/plain", nil) }, true},
		{"ban page with 200", func(w http.ResponseWriter) {
			write(w, 200, "text/html", []byte("<!DOCTYPE html><title>访问受限</title>"))
		}, true},
		{"truncated", func(w http.ResponseWriter) { write(w, 200, jsonCT, []byte(`{"rc":0,"data":{"klines":["2026`)) }, true},
		{"rc 102", func(w http.ResponseWriter) { write(w, 200, jsonCT, []byte(`{"rc":102,"data":null}`)) }, false},
		{"404", func(w http.ResponseWriter) { write(w, 404, "text/plain", []byte("not found")) }, false},
		{"schema drift", func(w http.ResponseWriter) { write(w, 200, jsonCT, []byte(`{"rc":0,"data":{"code":"000725"}}`)) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, rec := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) { tc.reply(w) })
			cfg := testSource(srv.URL)
			cfg.Retries = -1
			cfg.BreakerFailures = 2
			c, err := NewPush2His(cfg, NewLimiters(), market.NewFixedClock(testNow()))
			if err != nil {
				t.Fatal(err)
			}
			for range 3 {
				_, err = c.Klines(context.Background(), market.MustCode("000725.SZ"), market.Daily, 0, 0)
			}
			if got := errors.Is(err, KindCircuitOpen); got != tc.opens {
				t.Fatalf("third call: %v; want circuit open = %v", err, tc.opens)
			}
			if want := map[bool]int{true: 2, false: 3}[tc.opens]; rec.count() != want {
				t.Errorf("server saw %d requests, want %d", rec.count(), want)
			}
		})
	}
}

// While the probe is out, other callers are refused: a recovering upstream
// gets one request, not the backlog. A probe whose caller gives up frees the
// slot for the next caller.
func TestBreakerHalfOpenLetsOneProbe(t *testing.T) {
	now := testNow()
	b := newBreaker(1, time.Minute)
	b.record(now, &Error{Kind: KindTimeout})
	if _, e := b.allow(now); e == nil {
		t.Fatal("open circuit allowed a call")
	}
	later := now.Add(time.Minute)
	if _, e := b.allow(later); e != nil {
		t.Fatalf("first call after the cooldown refused: %v", e)
	}
	if _, e := b.allow(later); e == nil || e.Kind != KindCircuitOpen {
		t.Fatalf("second caller during the probe: %v", e)
	}
	b.record(later, &Error{Kind: KindCanceled})
	if _, e := b.allow(later); e != nil {
		t.Fatalf("after a canceled probe the next caller is refused: %v", e)
	}
	b.record(later, nil)
	var s Status
	b.fill(&s)
	if s.Breaker != BreakerClosed || s.Rejected != 2 || s.BreakerTrips != 1 {
		t.Errorf("status %+v", s)
	}
}

// BreakerFailures < 0 turns the breaker off.
func TestBreakerDisabled(t *testing.T) {
	cfg := SourceConfig{BreakerFailures: -1}.withDefaults(DefaultConfig().Push2His)
	if cfg.BreakerFailures != 0 {
		t.Fatalf("BreakerFailures = %d, want 0 (off)", cfg.BreakerFailures)
	}
	b := newBreaker(cfg.BreakerFailures, cfg.BreakerCooldown)
	for range 100 {
		b.record(testNow(), &Error{Kind: KindTransport})
	}
	if _, e := b.allow(testNow()); e != nil {
		t.Fatalf("disabled breaker refused: %v", e)
	}
	if d := (SourceConfig{}).withDefaults(DefaultConfig().Push2His); d.BreakerFailures != 5 || d.BreakerCooldown != 30*time.Second {
		t.Errorf("defaults %d %s", d.BreakerFailures, d.BreakerCooldown)
	}
}
