package board_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"mdqs/db/dbtest"
	"mdqs/internal/board"
	"mdqs/internal/market"
	"mdqs/internal/upstream"
	"mdqs/internal/upstream/upstreamtest"
)

// A due collection that the upstream is slow to deliver does not hold the
// reader past Policy.Wait when an older collection of the day can answer:
// the reader gets the older one (with the reason), the collection goes on,
// and the next reader gets its result. With nothing to answer with, the
// reader waits for the collection.
func TestCurrentAnswersFromTheLatestWhileASlowCollectionRuns(t *testing.T) {
	store := dbtest.Open(t)
	clock := market.NewFixedClock(monday10)
	fake := upstreamtest.NewPush2(t)
	slow := upstreamtest.NewFaulty(t, fake.URL)
	cfg := upstream.DefaultConfig().Push2
	cfg.BaseURL, cfg.Retries, cfg.Rate, cfg.Burst = slow.URL, -1, 1000, 1000
	p2, err := upstream.NewPush2(cfg, upstream.NewLimiters(), clock)
	if err != nil {
		t.Fatal(err)
	}
	c := board.NewCollector(store, map[string]board.SectorSource{"push2": p2}, clock, slog.New(slog.NewTextHandler(io.Discard, nil)),
		board.Policy{Calendar: market.DefaultCalendar(), Window: market.Window{Start: 9*60 + 25, End: 15 * 60}, Soft: time.Minute,
			Wait: 20 * time.Millisecond})
	ctx := context.Background()

	fake.SetSectors(market.Industry, monday10, upstreamtest.Sectors("行业", 4))
	first := c.Current(ctx, market.Industry, "push2", 20261123, true)
	if !first.Found || first.Err != nil || len(first.Sectors) != 4 {
		t.Fatalf("first collection: found %v err %v", first.Found, first.Err)
	}

	// A minute later the collection is due; the upstream now takes 2 s.
	clock.Advance(time.Minute)
	fake.SetSectors(market.Industry, monday10.Add(time.Minute), upstreamtest.Sectors("行业", 6))
	slow.SetDelay(2 * time.Second)
	slow.Set(upstreamtest.Slow)
	p := c.Current(ctx, market.Industry, "push2", 20261123, true)
	if st, _ := c.Latest(ctx, market.Industry, "push2", 20261123); len(st.Sectors) != 4 {
		t.Fatalf("Current returned after the 2 s collection landed; it should not wait for it")
	}
	if !p.Found || !p.Tried || p.Err == nil || market.KindOf(p.Err) != market.KindUnavailable || len(p.Sectors) != 4 {
		t.Fatalf("while collecting: found %v tried %v err %v sectors %d", p.Found, p.Tried, p.Err, len(p.Sectors))
	}

	// The collection finishes in the background and becomes the latest.
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, err := c.Latest(ctx, market.Industry, "push2", 20261123)
		if err == nil && len(st.Sectors) == 6 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the background collection never landed: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if n := slow.Requests(); n != 2 {
		t.Errorf("upstream requests = %d, want 2 (one per collection)", n)
	}
}
