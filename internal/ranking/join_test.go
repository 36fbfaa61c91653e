package ranking_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"mdqs/db/dbtest"
	"mdqs/internal/board"
	"mdqs/internal/market"
	"mdqs/internal/ranking"
	"mdqs/internal/upstream"
	"mdqs/internal/upstream/upstreamtest"
)

// TestARequestJoiningTheEndOfDayBuild (issue 32): the end-of-day job
// started the day's ranking build, whose collections ask push2 (not
// answered since the start) with the shipped retries; a request for the
// ranking joins the build while the first attempts are out. They fail,
// and the collections end there: one attempt per family, not four each
// and their backoff (top50 waited 12 s through the binary with no DNS).
func TestARequestJoiningTheEndOfDayBuild(t *testing.T) {
	var seen atomic.Int64
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.Add(1)
		<-release
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
	window := market.Window{Start: 9*60 + 25, End: 15 * 60}
	col := board.NewCollector(dbtest.Open(t), map[string]board.SectorSource{"push2": p2}, clock, quiet(),
		board.Policy{Calendar: market.DefaultCalendar(), Window: window, Soft: time.Minute})
	t.Cleanup(col.Close)
	svc, err := ranking.New(ranking.Config{Soft: time.Minute, Hard: time.Hour, Window: window, EODAt: 15*60 + 5, CatchUpDays: 10, Mode: "push2"},
		col, dbtest.Open(t), market.DefaultCalendar(), clock, quiet(), 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)

	jobErr := make(chan error, 1)
	go func() {
		_, err := svc.Rebuild(context.Background(), 20261123)
		jobErr <- err
	}()
	for seen.Load() < 2 {
		time.Sleep(time.Millisecond) // both families' first attempts are out
	}
	req := upstreamtest.NewJoining(context.Background())
	reqErr := make(chan error, 1)
	go func() {
		_, err := svc.Rebuild(req, 20261123)
		reqErr <- err
	}()
	select {
	case <-req.Joined():
	case <-time.After(10 * time.Second): // a failsafe: a service that never asks fails below
	}
	close(release)
	for _, err := range []error{<-reqErr, <-jobErr} {
		if market.KindOf(err) != market.KindUnavailable || !strings.Contains(err.Error(), "push2") {
			t.Errorf("build = %v, want unavailable naming push2", err)
		}
	}
	if n := seen.Load(); n != 2 {
		t.Errorf("push2 was asked %d times, want twice (once a family): a request waits on the build from its first failures", n)
	}
}
