package kline_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"mdqs/cache/cachetest"
	"mdqs/internal/kline"
	"mdqs/internal/market"
)

// fetchStamped serves a session whose last bar's close is the fetch's
// number, so a test tells one instance's fetch from another's.
type fetchStamped struct{ calls atomic.Int64 }

func (f *fetchStamped) Trends(ctx context.Context, code market.Code, ndays int) ([]market.Bar, error) {
	n := f.calls.Add(1)
	day := market.Day(20261123)
	var bars []market.Bar
	for i := range 30 {
		ts := day.At(9, 31+i, 0)
		bars = append(bars, market.Bar{Day: day, TS: ts.UnixMilli(), Open: 10, High: 10, Low: 10, Close: 10, Volume: 100})
	}
	bars[len(bars)-1].Close = float64(n)
	return bars, nil
}

func lastClose(s kline.Session) float64 { return s.Bars[len(s.Bars)-1].Close }

// Instances sharing the intraday series ask the upstream once between
// them, and none serves an older fetch than another holds.
func TestInstancesShareIntradaySeries(t *testing.T) {
	clock := market.NewFixedClock(time.Date(2026, 11, 23, 10, 0, 0, 0, market.Shanghai()))
	src := &fetchStamped{}
	shared := cachetest.NewShared()
	window := market.Window{Start: 9*60 + 25, End: 15 * 60}
	instance := func() *kline.Intraday {
		return kline.NewIntraday(src, market.DefaultCalendar(), window, clock, kline.IntradayConfig{MaxWatched: 10, RefreshAge: time.Minute, Shared: shared})
	}
	a, b := instance(), instance()
	ctx := context.Background()
	code := market.MustCode("600519.SH")

	// A fetches while Redis is away: only A holds its series.
	shared.SetDown(true)
	sa, err := a.Get(ctx, code)
	if err != nil || lastClose(sa) != 1 {
		t.Fatalf("A, shared store down: %v %v; want its own fetch", err, sa.Bars)
	}
	shared.SetDown(false)

	// B, 20 s later, holds nothing and finds nothing shared: it fetches
	// and shares.
	clock.Advance(20 * time.Second)
	sb, err := b.Get(ctx, code)
	if err != nil || lastClose(sb) != 2 || src.calls.Load() != 2 {
		t.Fatalf("B: %v close %v after %d fetches; want its own fetch, the second", err, lastClose(sb), src.calls.Load())
	}
	// A's own series is not due yet, but B's is newer: A serves B's.
	clock.Advance(10 * time.Second)
	sa, err = a.Get(ctx, code)
	if err != nil || lastClose(sa) != 2 || !sa.Fetched.Equal(sb.Fetched) {
		t.Fatalf("A after B's fetch: close %v fetched %v; want B's (close 2, %v)", lastClose(sa), sa.Fetched, sb.Fetched)
	}
	// A third instance that starts now asks the upstream nothing.
	c := instance()
	if sc, err := c.Get(ctx, code); err != nil || lastClose(sc) != 2 || src.calls.Load() != 2 {
		t.Fatalf("C: close %v after %d fetches; want B's series and no fetch", lastClose(sc), src.calls.Load())
	}
	// Once B's fetch is past the refresh age, the first to ask fetches
	// and the others follow it.
	clock.Advance(time.Minute)
	if sc, _ := c.Get(ctx, code); lastClose(sc) != 3 {
		t.Fatalf("C, series due: close %v; want a fresh fetch", lastClose(sc))
	}
	if sa, _ := a.Get(ctx, code); lastClose(sa) != 3 || src.calls.Load() != 3 {
		t.Fatalf("A after C's fetch: close %v, %d fetches; want C's and no fetch of its own", lastClose(sa), src.calls.Load())
	}
	// Redis gone again: each goes on from its own memory.
	shared.SetDown(true)
	if sb, err := b.Get(ctx, code); err != nil || len(sb.Bars) == 0 {
		t.Fatalf("B with the shared store down: %v", err)
	}
}

// Instances sharing first screens serve the newest build any of them made.
func TestInstancesShareFirstScreens(t *testing.T) {
	f := newReadFixture(t)
	ctx := context.Background()
	code := f.dm.Stocks()[0].Code
	shared := cachetest.NewShared()
	pager := func() *kline.Pager {
		p, err := kline.NewPager(f.svc, time.Minute, shared)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.Close)
		return p
	}
	a, b := pager(), pager()

	shared.SetDown(true)
	pa, err := a.Get(ctx, code, market.Daily, 1, 20, 0)
	if err != nil || pa.FromCache {
		t.Fatalf("A's first page with the shared store down: %v, from cache %v", err, pa.FromCache)
	}
	shared.SetDown(false)

	f.clock.Advance(20 * time.Second)
	pb, err := b.Get(ctx, code, market.Daily, 1, 20, 0)
	if err != nil || pb.FromCache || !pb.AsOf.After(pa.AsOf) {
		t.Fatalf("B: %v, from cache %v, built %v; want its own build after A's %v", err, pb.FromCache, pb.AsOf, pa.AsOf)
	}
	f.clock.Advance(10 * time.Second)
	pa, err = a.Get(ctx, code, market.Daily, 1, 20, 0)
	if err != nil || !pa.FromCache || !pa.AsOf.Equal(pb.AsOf) {
		t.Fatalf("A after B's build: from cache %v, built %v; want B's build of %v", pa.FromCache, pa.AsOf, pb.AsOf)
	}
	for i := range pb.Bars {
		if pa.Bars[i] != pb.Bars[i] {
			t.Fatalf("bar %d: A %+v, B %+v", i, pa.Bars[i], pb.Bars[i])
		}
	}
	// A new instance serves the shared build without building.
	pc, err := pager().Get(ctx, code, market.Daily, 2, 20, 0)
	if err != nil || !pc.FromCache || !pc.AsOf.Equal(pb.AsOf) {
		t.Fatalf("C, page 2: from cache %v, built %v; want B's build", pc.FromCache, pc.AsOf)
	}
	// Past the ttl the shared build is stale too: the next request builds.
	f.clock.Advance(time.Minute)
	if pc, _ := pager().Get(ctx, code, market.Daily, 1, 20, 0); pc.FromCache {
		t.Fatal("a first screen older than the ttl was served from the shared store")
	}
	if n := shared.Puts(); n != 2 {
		t.Fatalf("%d builds shared, want 2 (B's, then the one past the ttl)", n)
	}
}
