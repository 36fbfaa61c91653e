package ranking_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"mdqs/db/dbtest"
	"mdqs/internal/board"
	"mdqs/internal/market"
	"mdqs/internal/ranking"
	"mdqs/internal/upstream"
	"mdqs/internal/upstream/upstreamtest"
)

// TestGetStopsWaitingAtTheRequestsDeadline (issue 20): with nothing stored
// and push2 hanging, Get waits for the first collection only as long as
// the request may wait on upstreams (its context's deadline), then fails
// as unavailable naming the source, while the collection goes on. It used
// to wait for the rebuild's collections to give up (two minutes), past the
// server's write deadline.
func TestGetStopsWaitingAtTheRequestsDeadline(t *testing.T) {
	svc, hung := hangingPush2(t)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, _, err := svc.Get(ctx, 20261123, false)
	if market.KindOf(err) != market.KindUnavailable || !strings.Contains(err.Error(), "push2") || !strings.Contains(err.Error(), "no answer within") {
		t.Fatalf("Get with push2 hanging = %v; want unavailable naming push2", err)
	}
	if hung.Held() == 0 {
		t.Fatalf("Get returned after the collection ended; it should stop waiting while it goes on")
	}
}

// A request that joins a rebuild someone else started without a deadline
// (the end-of-day job's, at start) still names the source the rebuild
// waits for when its own time is up. It answered only "the sector sources
// are slow" before, which happens every evening and weekend, when the
// end-of-day job builds the current day's ranking as the server starts.
func TestAJoinedRebuildStillNamesTheSource(t *testing.T) {
	svc, hung := hangingPush2(t)
	go svc.Rebuild(context.Background(), 20261123) // the job's: no deadline
	for hung.Held() == 0 {
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, _, err := svc.Get(ctx, 20261123, false)
	if market.KindOf(err) != market.KindUnavailable || !strings.Contains(err.Error(), "push2 industry snapshot") || !strings.Contains(err.Error(), "no answer") {
		t.Fatalf("Get joining a rebuild with push2 hanging = %v; want unavailable naming push2's industry snapshot", err)
	}
}

// hangingPush2 is a ranking of push2's sectors, at 10:00 on a Monday with
// nothing stored, whose push2 holds every request for ten minutes.
func hangingPush2(t *testing.T) (*ranking.Service, *upstreamtest.Faulty) {
	t.Helper()
	clock := market.NewFixedClock(monday10)
	fake := upstreamtest.NewPush2(t)
	fake.SetSectors(market.Industry, monday10, upstreamtest.Sectors("行业", 12))
	fake.SetSectors(market.Concept, monday10, upstreamtest.Sectors("概念", 30))
	hung := upstreamtest.NewFaulty(t, fake.URL)
	hung.SetDelay(10 * time.Minute)
	hung.Set(upstreamtest.Slow)
	cfg := upstream.DefaultConfig().Push2
	cfg.BaseURL, cfg.Retries, cfg.Rate, cfg.Burst = hung.URL, -1, 1000, 1000
	p2, err := upstream.NewPush2(cfg, upstream.NewLimiters(), clock)
	if err != nil {
		t.Fatal(err)
	}
	window := market.Window{Start: 9*60 + 25, End: 15 * 60}
	store := dbtest.Open(t)
	col := board.NewCollector(store, map[string]board.SectorSource{"push2": p2}, clock, quiet(),
		board.Policy{Calendar: market.DefaultCalendar(), Window: window, Soft: time.Minute})
	t.Cleanup(col.Close)
	svc, err := ranking.New(ranking.Config{Soft: time.Minute, Hard: time.Hour, Window: window, Mode: "push2"},
		col, store, market.DefaultCalendar(), clock, quiet(), 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	return svc, hung
}
