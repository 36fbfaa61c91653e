package board_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"mdqs/db/dbtest"
	"mdqs/internal/board"
	"mdqs/internal/market"
	"mdqs/internal/upstream"
	"mdqs/internal/upstream/upstreamtest"
)

// TestARequestJoiningAJobsCollection (issue 32): a job started a
// collection of push2, which has not answered since the start, with the
// shipped retries; a request joins it while its first attempt is out.
// That attempt fails and the collection ends there, so the request's 503
// comes after one attempt, not after the job's four and their backoff
// (11.8 s through the binary, with three hosts down, before).
func TestARequestJoiningAJobsCollection(t *testing.T) {
	var seen atomic.Int64
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if seen.Add(1) == 1 {
			<-release
		}
		w.WriteHeader(http.StatusBadGateway)
	}))
	t.Cleanup(srv.Close)
	clock := market.NewFixedClock(monday10)
	cfg := upstream.DefaultConfig().Push2 // 3 retries from 500 ms
	cfg.BaseURL, cfg.Rate, cfg.Burst = srv.URL, 1000, 1000
	p2, err := upstream.NewPush2(cfg, upstream.NewLimiters(), clock)
	if err != nil {
		t.Fatal(err)
	}
	c := board.NewCollector(dbtest.Open(t), map[string]board.SectorSource{"push2": p2}, clock, slog.New(slog.NewTextHandler(io.Discard, nil)),
		board.Policy{Calendar: market.DefaultCalendar(), Window: market.Window{Start: 9*60 + 25, End: 15 * 60}, Soft: time.Minute})
	t.Cleanup(c.Close)

	jobErr := make(chan error, 1)
	go func() {
		_, err := c.Collect(context.Background(), market.Concept, "push2")
		jobErr <- err
	}()
	for seen.Load() == 0 {
		time.Sleep(time.Millisecond) // the job's first attempt is out
	}
	req := upstreamtest.NewJoining(context.Background())
	reqErr := make(chan error, 1)
	go func() {
		_, err := c.Collect(req, market.Concept, "push2")
		reqErr <- err
	}()
	select {
	case <-req.Joined():
	case <-time.After(10 * time.Second): // a failsafe: a collector that never asks fails below
	}
	close(release)
	for _, err := range []error{<-reqErr, <-jobErr} {
		if market.KindOf(err) != market.KindUnavailable || !strings.Contains(err.Error(), "push2") || !strings.Contains(err.Error(), "502") {
			t.Errorf("collection = %v, want unavailable naming push2 and its 502", err)
		}
	}
	if n := seen.Load(); n != 1 {
		t.Errorf("push2 was asked %d times, want once: a request waits on the collection from its first failure", n)
	}
}
