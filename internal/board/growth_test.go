package board_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"mdqs/db/dbtest"
	"mdqs/internal/board"
	"mdqs/internal/market"
	"mdqs/internal/upstream"
	"mdqs/internal/upstream/upstreamtest"
)

// TestRequestsForADayTheSourceDoesNotShowDoNotGrowTheStore (issue 20): a
// source showing another session than the day asked for (stuck on a past
// one, or already showing the next one's auction) fails every request for
// the day. Such requests used to collect and store a whole collection
// each: N requests, N collections. Now the same data is not stored twice,
// and a source that has just shown another day is not asked again within
// the soft freshness; a genuinely new collection is still stored.
func TestRequestsForADayTheSourceDoesNotShowDoNotGrowTheStore(t *testing.T) {
	for _, tc := range []struct {
		name    string
		changes bool // the source's data changes between requests
	}{
		{"frozen on a past session", false},
		{"moving, of another day", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := dbtest.Open(t)
			clock := market.NewFixedClock(monday10)
			fake := upstreamtest.NewPush2(t)
			cfg := upstream.DefaultConfig().Push2
			cfg.BaseURL, cfg.Retries, cfg.Rate, cfg.Burst = fake.URL, -1, 1000, 1000
			p2, err := upstream.NewPush2(cfg, upstream.NewLimiters(), clock)
			if err != nil {
				t.Fatal(err)
			}
			c := board.NewCollector(store, map[string]board.SectorSource{"push2": p2}, clock, slog.New(slog.DiscardHandler),
				board.Policy{Calendar: market.DefaultCalendar(), Window: market.Window{Start: 9*60 + 25, End: 15 * 60}, Soft: time.Minute})
			ctx := context.Background()
			past := monday10.AddDate(0, 0, -7) // the Monday before
			fake.SetSectors(market.Concept, past, upstreamtest.Sectors("概念", 30))
			for i := range 50 {
				if tc.changes {
					fake.SetSectors(market.Concept, past.Add(time.Duration(i)*time.Second), upstreamtest.Sectors("概念", 30))
				}
				p := c.Current(ctx, market.Concept, "push2", 20261123, true)
				if p.Found || p.Err == nil || market.KindOf(p.Err) != market.KindUnavailable || !p.Tried {
					t.Fatalf("request %d: found %v tried %v err %v; want an unavailable error", i, p.Found, p.Tried, p.Err)
				}
				clock.Advance(time.Second)
			}
			n, err := store.Collections(ctx, market.Concept, "push2", 0)
			if err != nil {
				t.Fatal(err)
			}
			if n != 1 {
				t.Errorf("50 requests within the soft freshness stored %d collections, want 1", n)
			}
			if got := fake.Requests(market.Concept); got != 1 {
				t.Errorf("50 requests within the soft freshness asked the source %d times, want 1", got)
			}

			// Past the soft freshness the source is asked again: new data is
			// stored, the same data is not.
			clock.Advance(time.Minute)
			if tc.changes {
				fake.SetSectors(market.Concept, past.Add(time.Hour), upstreamtest.Sectors("概念", 30))
			}
			if p := c.Current(ctx, market.Concept, "push2", 20261123, true); p.Err == nil {
				t.Fatalf("source still on another day: no error")
			}
			want := 1
			if tc.changes {
				want = 2
			}
			if n, _ := store.Collections(ctx, market.Concept, "push2", 0); n != want || fake.Requests(market.Concept) != 2 {
				t.Errorf("after the soft freshness: %d collections (want %d), %d requests (want 2)", n, want, fake.Requests(market.Concept))
			}

			// The source catches up with the day: the next ask, a soft
			// freshness after the last, stores its collection and answers.
			clock.Advance(time.Minute)
			fake.SetSectors(market.Concept, clock.Now(), upstreamtest.Sectors("概念", 30))
			p := c.Current(ctx, market.Concept, "push2", 20261123, true)
			if p.Err != nil || !p.Found || p.Day() != 20261123 {
				t.Fatalf("the source back on the day: found %v err %v", p.Found, p.Err)
			}
			if n, _ := store.Collections(ctx, market.Concept, "push2", 20261123); n != 1 {
				t.Errorf("the day's collection: %d stored, want 1", n)
			}
		})
	}
}
