package board_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"mdqs/db/dbtest"
	"mdqs/internal/board"
	"mdqs/internal/market"
	"mdqs/internal/upstream"
	"mdqs/internal/upstream/upstreamtest"
)

var monday10 = time.Date(2026, 11, 23, 10, 0, 0, 0, market.Shanghai())

func TestResolveAndLabel(t *testing.T) {
	for _, tt := range []struct {
		mode          string
		ind, con, lbl string
	}{
		{"auto", "akshare", "push2", "mixed"},
		{"push2", "push2", "push2", "push2"},
		{"akshare", "akshare", "akshare", "akshare"},
		{"demo", "demo", "demo", "demo"},
	} {
		if board.Resolve(tt.mode, market.Industry) != tt.ind || board.Resolve(tt.mode, market.Concept) != tt.con || board.Label(tt.mode) != tt.lbl {
			t.Errorf("mode %s: industry %s concept %s label %s", tt.mode, board.Resolve(tt.mode, market.Industry),
				board.Resolve(tt.mode, market.Concept), board.Label(tt.mode))
		}
	}
	if _, err := board.ParseMode("sina"); market.KindOf(err) != market.KindInvalid {
		t.Fatalf("ParseMode(sina) = %v", err)
	}
}

func newCollector(t *testing.T) (*board.Collector, *upstreamtest.Server, *market.FixedClock, func() *board.Collector) {
	t.Helper()
	store := dbtest.Open(t)
	clock := market.NewFixedClock(monday10)
	fake := upstreamtest.NewPush2(t)
	cfg := upstream.DefaultConfig().Push2
	cfg.BaseURL, cfg.Retries, cfg.Rate, cfg.Burst = fake.URL, -1, 1000, 1000
	p2, err := upstream.NewPush2(cfg, upstream.NewLimiters(), clock)
	if err != nil {
		t.Fatal(err)
	}
	policy := board.Policy{Calendar: market.DefaultCalendar(), Window: market.Window{Start: 9*60 + 25, End: 15 * 60}, Soft: time.Minute}
	build := func() *board.Collector {
		return board.NewCollector(store, map[string]board.SectorSource{"push2": p2}, clock, slog.New(slog.NewTextHandler(io.Discard, nil)), policy)
	}
	return build(), fake, clock, build
}

func TestCollectStoresRemembersAndWarms(t *testing.T) {
	c, fake, clock, another := newCollector(t)
	fake.SetSectors(market.Concept, monday10, upstreamtest.Sectors("概念", 5))
	var observed []int
	c.Observe(func(ctx context.Context, st board.Stored) error {
		observed = append(observed, len(st.Sectors))
		return nil
	})
	ctx := context.Background()
	st, err := c.Collect(ctx, market.Concept, "push2")
	if err != nil || len(st.Sectors) != 5 || st.Source != "push2" || st.Day() != 20261123 || !st.CollectedAt.Equal(monday10) {
		t.Fatalf("Collect = %+v, %v", st, err)
	}
	if len(observed) != 1 || observed[0] != 5 {
		t.Fatalf("observers saw %v", observed)
	}
	clock.Advance(30 * time.Second)
	p := c.Current(ctx, market.Concept, "push2", 20261123, true)
	if !p.Found || p.Tried || fake.Requests(market.Concept) != 1 {
		t.Fatalf("a 30 s old collection was collected again (tried %v, requests %d)", p.Tried, fake.Requests(market.Concept))
	}
	// A new process on the same store answers without the upstream.
	fake.Fail(market.Concept, http.StatusBadGateway)
	fresh := another()
	if err := fresh.Warm(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := fresh.Latest(ctx, market.Concept, "push2", 20261123)
	if err != nil || len(got.Sectors) != 5 || got.Sectors[0].Name != "概念0" {
		t.Fatalf("after Warm: %+v, %v", got, err)
	}
	// Due again, with the upstream down: the pick keeps the latest and says why.
	clock.Advance(time.Minute)
	p = fresh.Current(ctx, market.Concept, "push2", 20261123, true)
	if !p.Found || !p.Tried || market.KindOf(p.Err) != market.KindUnavailable {
		t.Fatalf("failed collection: found %v tried %v err %v", p.Found, p.Tried, p.Err)
	}
}

func TestCollectRefusesEmptyAndUnknownSources(t *testing.T) {
	c, fake, _, _ := newCollector(t)
	fake.SetSectors(market.Industry, monday10, nil)
	if _, err := c.Collect(context.Background(), market.Industry, "push2"); market.KindOf(err) != market.KindUnavailable {
		t.Fatalf("empty snapshot: %v", err)
	}
	if _, err := c.Collect(context.Background(), market.Industry, "akshare"); market.KindOf(err) != market.KindInvalid {
		t.Fatalf("unconfigured source: %v", err)
	}
	if _, err := c.History(context.Background(), market.Industry, "push2", monday10); !board.IsNotFound(err) {
		t.Fatalf("History of a live-only source: %v, want not found", err)
	}
}
