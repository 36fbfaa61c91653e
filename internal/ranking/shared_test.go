package ranking_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"mdqs/cache"
	"mdqs/cache/cachetest"
	"mdqs/internal/market"
	"mdqs/internal/ranking"
)

// follower is a second instance on the fixture's store and shared store
// that may not collect.
func (f *fixture) follower(t *testing.T, shared cache.Shared) *ranking.Service {
	t.Helper()
	svc, err := ranking.New(ranking.Config{Soft: time.Minute, Hard: time.Hour, Window: market.Window{Start: 9*60 + 25, End: 15 * 60},
		Mode: "push2", Shared: shared, Collects: func() bool { return false }}, f.col, f.store, market.DefaultCalendar(), f.clock, quiet(), 16<<20)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	return svc
}

func TestInstancesServeTheNewestSharedBuild(t *testing.T) {
	shared := cachetest.NewShared()
	f := newFixture(t, "push2", time.Hour)
	leader, err := ranking.New(ranking.Config{Soft: time.Minute, Hard: time.Hour, Window: market.Window{Start: 9*60 + 25, End: 15 * 60},
		Mode: "push2", Shared: shared}, f.col, f.store, market.DefaultCalendar(), f.clock, quiet(), 16<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer leader.Close()
	follower := f.follower(t, shared)
	ctx := context.Background()

	a, _, err := leader.Get(ctx, 20261123, false)
	if err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(10 * time.Second)
	b, _, err := follower.Get(ctx, 20261123, false)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Full.JSON, b.Full.JSON) || a.Full.ETag != b.Full.ETag {
		t.Fatalf("the follower built its own ranking (etag %s) instead of serving the leader's (%s)", b.Full.ETag, a.Full.ETag)
	}
	// The leader rebuilds from a new collection: the follower's near cache
	// must not keep serving the old build.
	f.clock.Advance(61 * time.Second)
	f.publish(f.clock.Now())
	c, _, err := leader.Get(ctx, 20261123, false)
	if err != nil || c.Full.ETag == a.Full.ETag {
		t.Fatalf("leader did not rebuild: %v", err)
	}
	d, _, _ := follower.Get(ctx, 20261123, false)
	if d.Full.ETag != c.Full.ETag {
		t.Fatalf("follower serves %s after the leader built %s", d.Full.ETag, c.Full.ETag)
	}
}

func TestAFollowerNeverCollects(t *testing.T) {
	f := newFixture(t, "push2", time.Hour)
	f.get(t, 20261123, false) // the leader collects and stores
	before := f.requests()
	follower := f.follower(t, cachetest.NewShared())
	f.clock.Advance(5 * time.Minute) // every collection is past the soft freshness
	e, _, err := follower.Get(context.Background(), 20261123, true)
	if err != nil || len(e.Ranking.Industry) != 12 {
		t.Fatalf("follower Get = %v; want the stored collections ranked", err)
	}
	if n := f.requests() - before; n != 0 {
		t.Fatalf("a follower made %d upstream requests; only the leader collects", n)
	}
}
