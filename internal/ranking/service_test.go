package ranking_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/board"
	"mdqs/internal/market"
	"mdqs/internal/ranking"
	"mdqs/internal/upstream"
	"mdqs/internal/upstream/upstreamtest"
)

// monday10 is inside the window of a trading day.
var monday10 = time.Date(2026, 11, 23, 10, 0, 0, 0, market.Shanghai())

type fixture struct {
	clock *market.FixedClock
	p2    *upstreamtest.Server
	ak    *upstreamtest.Server
	store *db.Store
	col   *board.Collector
	svc   *ranking.Service
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// newFixture wires the real push2 and AKTools clients to local fakes; mode
// is the source mode (push2 or auto). The fakes' data is stamped with the
// pinned clock.
func newFixture(t *testing.T, mode string, hard time.Duration) *fixture {
	t.Helper()
	f := &fixture{clock: market.NewFixedClock(monday10), p2: upstreamtest.NewPush2(t), ak: upstreamtest.NewAKTools(t), store: dbtest.Open(t)}
	lims := upstream.NewLimiters()
	fast := func(c upstream.SourceConfig, base string) upstream.SourceConfig {
		c.BaseURL, c.Retries, c.BackoffBase, c.BackoffMax, c.Rate, c.Burst = base, -1, time.Millisecond, time.Millisecond, 1000, 1000
		return c
	}
	pcfg := upstream.DefaultConfig().Push2
	pcfg.SourceConfig = fast(pcfg.SourceConfig, f.p2.URL)
	// The clients read the pinned clock too (AKTools rows carry no time of
	// their own); their rate caps are set high enough never to wait on it.
	p2, err := upstream.NewPush2(pcfg, lims, f.clock)
	if err != nil {
		t.Fatal(err)
	}
	ak, err := upstream.NewAKShare(fast(upstream.DefaultConfig().AKShare, f.ak.URL), lims, f.clock)
	if err != nil {
		t.Fatal(err)
	}
	start, _ := market.ParseTimeOfDay("09:25")
	end, _ := market.ParseTimeOfDay("15:00")
	f.col = board.NewCollector(f.store, map[string]board.SectorSource{"push2": p2, "akshare": ak}, f.clock, quiet(),
		board.Policy{Calendar: market.DefaultCalendar(), Window: market.Window{Start: start, End: end}, Soft: time.Minute})
	eod, _ := market.ParseTimeOfDay("15:05")
	f.svc, err = ranking.New(ranking.Config{Soft: time.Minute, Hard: hard, Window: market.Window{Start: start, End: end},
		EODAt: eod, CatchUpDays: 10, Mode: mode}, f.col, f.store, market.DefaultCalendar(), f.clock, quiet(), 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.svc.Close)
	f.publish(f.clock.Now())
	return f
}

// publish sets both families on both fakes, stamped at.
func (f *fixture) publish(at time.Time) {
	f.p2.SetSectors(market.Industry, at, upstreamtest.Sectors("行业", 12))
	f.p2.SetSectors(market.Concept, at, upstreamtest.Sectors("概念", 30))
	f.ak.SetSectors(market.Industry, at, upstreamtest.Sectors("行业", 12))
}

func (f *fixture) get(t *testing.T, day market.Day, refresh bool) (*ranking.Entry, bool) {
	t.Helper()
	e, stale, err := f.svc.Get(context.Background(), day, refresh)
	if err != nil {
		t.Fatalf("Get(%v, refresh=%v): %v", day, refresh, err)
	}
	return e, stale
}

func (f *fixture) requests() int {
	return f.p2.Requests(market.Industry) + f.p2.Requests(market.Concept)
}

func TestFreshRankingIsServedFromTheCache(t *testing.T) {
	f := newFixture(t, "push2", 24*time.Hour)
	first, _ := f.get(t, 20261123, false)
	if n := f.requests(); n != 2 {
		t.Fatalf("first build made %d upstream requests, want 2 (one per family)", n)
	}
	f.clock.Advance(59 * time.Second)
	again, stale := f.get(t, 20261123, false)
	if again.Built != first.Built || stale || f.requests() != 2 {
		t.Fatalf("within the soft freshness: rebuilt=%v stale=%v requests=%d", again.Built != first.Built, stale, f.requests())
	}
}

func TestSoftExpiryRebuildsFromAFreshCollection(t *testing.T) {
	f := newFixture(t, "push2", 24*time.Hour)
	first, _ := f.get(t, 20261123, false)
	f.clock.Advance(61 * time.Second)
	f.publish(f.clock.Now())
	second, stale := f.get(t, 20261123, false)
	if stale || !second.Built.After(first.Built) || f.requests() != 4 {
		t.Fatalf("after the soft freshness: stale=%v newer=%v requests=%d; want a rebuild with 2 new requests",
			stale, second.Built.After(first.Built), f.requests())
	}
	if second.Ranking.TS != f.clock.Now().Unix() {
		t.Fatalf("ts = %d, want the new collection's %d", second.Ranking.TS, f.clock.Now().Unix())
	}
}

func TestRefreshRebuildsUnconditionally(t *testing.T) {
	f := newFixture(t, "push2", 24*time.Hour)
	first, _ := f.get(t, 20261123, false)
	f.clock.Advance(5 * time.Second)
	second, _ := f.get(t, 20261123, true)
	if !second.Built.After(first.Built) {
		t.Fatal("refresh=1 did not rebuild a fresh ranking")
	}
	// The snapshot itself is still fresh: a rebuild from it needs no call.
	if f.requests() != 2 {
		t.Fatalf("refresh of a fresh snapshot made %d requests, want 2 in all", f.requests())
	}
}

func TestFailedRebuildServesTheOldRanking(t *testing.T) {
	f := newFixture(t, "push2", 24*time.Hour)
	first, _ := f.get(t, 20261123, false)
	f.p2.Fail(market.Industry, http.StatusBadGateway)
	f.p2.Fail(market.Concept, http.StatusBadGateway)
	f.clock.Advance(2 * time.Minute)
	got, stale := f.get(t, 20261123, false)
	if !stale || got.Built != first.Built {
		t.Fatalf("with the upstream down: stale=%v same=%v; want the old ranking, marked stale", stale, got.Built == first.Built)
	}
}

func TestNoRankingAndFailedRebuildIs503(t *testing.T) {
	f := newFixture(t, "push2", 24*time.Hour)
	f.p2.Fail(market.Industry, http.StatusBadGateway)
	_, _, err := f.svc.Get(context.Background(), 20261123, false)
	if market.KindOf(err) != market.KindUnavailable {
		t.Fatalf("no cache, upstream down: err = %v (kind %v), want unavailable", err, market.KindOf(err))
	}
}

func TestAfterARestartStoredCollectionsAnswerWhileTheUpstreamIsDown(t *testing.T) {
	f := newFixture(t, "push2", 24*time.Hour)
	f.get(t, 20261123, false) // collected and stored
	// A new service on the same store: empty cache, upstream down.
	fresh, err := ranking.New(ranking.Config{Soft: time.Minute, Hard: time.Hour, Window: market.Window{Start: 9*60 + 25, End: 15 * 60},
		Mode: "push2"}, f.col, f.store, market.DefaultCalendar(), f.clock, quiet(), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	f.p2.Fail(market.Industry, http.StatusBadGateway)
	f.p2.Fail(market.Concept, http.StatusBadGateway)
	f.clock.Advance(5 * time.Minute)
	e, stale, err := fresh.Get(context.Background(), 20261123, false)
	if err != nil || !stale || len(e.Ranking.Industry) != 12 {
		t.Fatalf("restart with the upstream down: %v stale=%v; want the stored collections' ranking, marked stale", err, stale)
	}
}

func TestConcurrentRequestsShareOneRebuild(t *testing.T) {
	f := newFixture(t, "push2", 24*time.Hour)
	f.get(t, 20261123, false)
	f.clock.Advance(2 * time.Minute)
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, _, err := f.svc.Get(context.Background(), 20261123, false); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n := f.requests(); n != 4 {
		t.Fatalf("20 concurrent stale requests made %d upstream requests in all, want 4 (2 + one rebuild's 2)", n)
	}
}

func TestHardExpiryNeverOutlivesTheDay(t *testing.T) {
	f := newFixture(t, "push2", 24*time.Hour)
	f.clock.Set(time.Date(2026, 11, 23, 14, 0, 0, 0, market.Shanghai()))
	f.publish(f.clock.Now())
	e, _ := f.get(t, 20261123, false)
	midnight := time.Date(2026, 11, 24, 0, 0, 0, 0, market.Shanghai())
	if !e.Expires.Equal(midnight) {
		t.Fatalf("Expires = %v, want the next midnight %v (24 h would outlive the day)", e.Expires, midnight)
	}
	f2 := newFixture(t, "push2", time.Hour)
	e, _ = f2.get(t, 20261123, false)
	if !e.Expires.Equal(monday10.Add(time.Hour)) {
		t.Fatalf("Expires = %v, want the 1 h hard TTL", e.Expires)
	}
	// Past its hard expiry an entry is not served, even for a final day.
	f2.clock.Set(time.Date(2026, 11, 23, 16, 0, 0, 0, market.Shanghai()))
	f2.get(t, 20261123, false)
	f2.clock.Set(time.Date(2026, 11, 23, 17, 0, 1, 0, market.Shanghai()))
	before := f2.requests()
	again, _ := f2.get(t, 20261123, false)
	if !again.Built.Equal(f2.clock.Now()) || f2.requests() != before {
		t.Fatalf("after the hard expiry: built %v (want now), requests %d -> %d (the final snapshot needs no call)",
			again.Built, before, f2.requests())
	}
}

func TestAfterTheCloseTheFinalSnapshotIsCollectedOnce(t *testing.T) {
	f := newFixture(t, "push2", 24*time.Hour)
	f.get(t, 20261123, false) // 10:00
	f.clock.Set(time.Date(2026, 11, 23, 15, 30, 0, 0, market.Shanghai()))
	f.publish(f.clock.Now())
	f.get(t, 20261123, false)
	if f.requests() != 4 {
		t.Fatalf("first request after the close made %d requests in all, want 4 (the final collection)", f.requests())
	}
	f.clock.Advance(10 * time.Minute)
	f.get(t, 20261123, false)
	if f.requests() != 4 {
		t.Fatalf("later requests after the close collected again (%d requests)", f.requests())
	}
}

func TestEndOfDayStoresOnceAndCatchesUp(t *testing.T) {
	f := newFixture(t, "push2", 24*time.Hour)
	// Friday's session was collected but the service was down at its close.
	friday := time.Date(2026, 11, 20, 14, 59, 0, 0, market.Shanghai())
	f.clock.Set(friday)
	f.publish(friday)
	if _, err := f.svc.Rebuild(context.Background(), 20261120); err != nil {
		t.Fatal(err)
	}
	// Monday 15:06, after the end-of-day time.
	f.clock.Set(time.Date(2026, 11, 23, 15, 6, 0, 0, market.Shanghai()))
	f.publish(f.clock.Now())
	ctx := context.Background()
	done, err := f.svc.EndOfDay(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(done) != 2 || done[0] != 20261120 || done[1] != 20261123 {
		t.Fatalf("EndOfDay stored %v, want Friday (caught up) and Monday", done)
	}
	stored, err := f.store.DailyRanking(ctx, 20261123)
	if err != nil || len(stored.Industry) != 12 || len(stored.Sectors) != 42 {
		t.Fatalf("stored Monday ranking: %v, %v", stored, err)
	}
	again, err := f.svc.EndOfDay(ctx)
	if err != nil || len(again) != 0 {
		t.Fatalf("second EndOfDay stored %v, %v; want nothing", again, err)
	}
	restored, _ := f.store.DailyRanking(ctx, 20261123)
	if restored.UpdatedMS != stored.UpdatedMS {
		t.Fatal("the second run rewrote the day")
	}
}

func TestEndOfDayWaitsForItsTime(t *testing.T) {
	f := newFixture(t, "push2", 24*time.Hour)
	f.clock.Set(time.Date(2026, 11, 23, 15, 1, 0, 0, market.Shanghai()))
	done, err := f.svc.EndOfDay(context.Background())
	if err != nil || len(done) != 0 {
		t.Fatalf("EndOfDay at 15:01 stored %v, %v; want nothing before 15:05 (and no data for earlier days)", done, err)
	}
}

func TestPastDayComesFromTheDailyTable(t *testing.T) {
	f := newFixture(t, "push2", 24*time.Hour)
	ctx := context.Background()
	kept := &market.Ranking{Day: "20261119", Source: "push2", UpdatedMS: 1234, TS: 99,
		Industry: []market.RankedSector{{SectorName: "存档行业", MainNet: 1, Flow: "in", Signal: "neutral", FlowTag: "inflow"}}}
	if err := f.store.SaveDailyRanking(ctx, 20261119, kept); err != nil {
		t.Fatal(err)
	}
	e, _ := f.get(t, 20261119, false)
	if e.Ranking.UpdatedMS != 1234 || len(e.Ranking.Industry) != 1 || e.Ranking.Industry[0].SectorName != "存档行业" {
		t.Fatalf("past day = %+v, want the stored ranking", e.Ranking)
	}
	if f.requests() != 0 {
		t.Fatalf("a stored past day made %d upstream requests", f.requests())
	}
	_, _, err := f.svc.Get(ctx, 20261118, false)
	if market.KindOf(err) != market.KindNotFound {
		t.Fatalf("a past day without data: %v, want not found", err)
	}
}

func TestAutoModeTakesIndustryFromAKShareAndConceptFromPush2(t *testing.T) {
	f := newFixture(t, "auto", 24*time.Hour)
	e, _ := f.get(t, 20261123, false)
	if e.Ranking.Source != "mixed" {
		t.Fatalf("source = %q, want mixed", e.Ranking.Source)
	}
	if f.ak.Requests(market.Industry) == 0 || f.p2.Requests(market.Industry) != 0 || f.p2.Requests(market.Concept) != 1 {
		t.Fatalf("requests: akshare industry %d, push2 industry %d, push2 concept %d",
			f.ak.Requests(market.Industry), f.p2.Requests(market.Industry), f.p2.Requests(market.Concept))
	}
	if len(e.Ranking.Industry) != 12 || len(e.Ranking.Concept) != 30 {
		t.Fatalf("lists: %d industry, %d concept", len(e.Ranking.Industry), len(e.Ranking.Concept))
	}
}

func TestSchedulerCollectsAndWritesBack(t *testing.T) {
	f := newFixture(t, "push2", 24*time.Hour)
	if !f.svc.InWindow() {
		t.Fatal("10:00 on a Monday is outside the window")
	}
	if err := f.svc.Collect(context.Background()); err != nil {
		t.Fatal(err)
	}
	if f.requests() != 2 {
		t.Fatalf("Collect made %d requests, want 2", f.requests())
	}
	// The request finds the scheduler's ranking in the cache.
	f.clock.Advance(10 * time.Second)
	f.get(t, 20261123, false)
	if f.requests() != 2 {
		t.Fatal("a request after the scheduler's rebuild went upstream")
	}
	// One family down: the other's fresh data is still ranked.
	f.clock.Advance(time.Minute)
	f.publish(f.clock.Now())
	f.p2.Fail(market.Industry, http.StatusBadGateway)
	if err := f.svc.Collect(context.Background()); err == nil {
		t.Fatal("Collect with a family down reported no error")
	}
	e, stale := f.get(t, 20261123, false)
	if stale || e.Ranking.TS != f.clock.Now().Unix() {
		t.Fatalf("after a half-failed collection: stale=%v ts=%d; want the concept collection ranked", stale, e.Ranking.TS)
	}
	for _, tt := range []struct {
		at   time.Time
		want bool
	}{
		{time.Date(2026, 11, 23, 9, 24, 0, 0, market.Shanghai()), false},
		{time.Date(2026, 11, 23, 9, 25, 0, 0, market.Shanghai()), true},
		{time.Date(2026, 11, 23, 15, 0, 0, 0, market.Shanghai()), true},
		{time.Date(2026, 11, 23, 15, 1, 0, 0, market.Shanghai()), false},
		{time.Date(2026, 11, 21, 10, 0, 0, 0, market.Shanghai()), false}, // Saturday
		{time.Date(2026, 10, 5, 10, 0, 0, 0, market.Shanghai()), false},  // National Day
	} {
		f.clock.Set(tt.at)
		if got := f.svc.InWindow(); got != tt.want {
			t.Errorf("InWindow at %v = %v, want %v", tt.at, got, tt.want)
		}
	}
}

// After the close the day's ranking is final: it is built once from the
// closing collections and then served as it is, so its ETag stays and a
// poller gets its 304. Before, it was rebuilt every minute until midnight.
func TestRankingIsFinalAfterTheClose(t *testing.T) {
	f := newFixture(t, "push2", 24*time.Hour)
	day := market.Day(20261123)
	f.clock.Set(day.At(14, 59, 0))
	during, _ := f.get(t, day, false)
	if during.Final {
		t.Fatal("a ranking of the session is final")
	}
	f.clock.Set(day.At(15, 2, 0))
	f.publish(day.At(15, 0, 3))
	first, _ := f.get(t, day, false)
	if !first.Final || first == during {
		t.Fatalf("the first ranking after the close: final %v, rebuilt %v", first.Final, first != during)
	}
	requests := f.p2.Requests(market.Industry)
	for _, later := range []time.Duration{time.Minute, 30 * time.Minute, 3 * time.Hour} {
		f.clock.Set(day.At(15, 2, 0).Add(later))
		e, stale := f.get(t, day, false)
		if e.Full.ETag != first.Full.ETag || stale {
			t.Fatalf("%v after: ETag %s, want %s (stale %v)", later, e.Full.ETag, first.Full.ETag, stale)
		}
	}
	if f.p2.Requests(market.Industry) != requests {
		t.Fatalf("%d more collections after the final ranking", f.p2.Requests(market.Industry)-requests)
	}
}

// stats/range and top50?day= agree on which days exist: a past day that
// top50 answers from its stored collections is listed, not missing.
func TestStatsRangeListsTheDaysTop50Answers(t *testing.T) {
	f := newFixture(t, "push2", 24*time.Hour)
	friday := market.Day(20261120)
	f.clock.Set(friday.At(14, 0, 0))
	f.publish(friday.At(14, 0, 0))
	f.get(t, friday, false) // collects Friday; no end-of-day job runs
	f.clock.Set(monday10)
	f.publish(monday10)
	ctx := context.Background()
	if _, _, err := f.svc.Get(ctx, friday, false); err != nil {
		t.Fatalf("top50?day=Friday: %v", err)
	}
	stats, missing, err := f.svc.StatsRange(ctx, 20261119, 20261123, 3)
	if err != nil {
		t.Fatal(err)
	}
	days := map[string]bool{}
	for _, s := range stats {
		days[s.TradeDay] = true
	}
	if !days["20261120"] || !days["20261123"] || len(missing) != 1 || missing[0] != "20261119" {
		t.Fatalf("stats for %v, missing %v; want Friday and Monday listed, Thursday (nothing stored) missing", days, missing)
	}
	if _, _, err := f.svc.Get(ctx, 20261119, false); market.KindOf(err) != market.KindNotFound {
		t.Fatalf("top50?day=Thursday: %v, want not found as stats/range says", err)
	}
}

// A leader that dies just after collecting is followed by one whose
// catch-up runs at once: it must not ask the upstream again for a family
// the dead one collected moments ago, and must collect one it had not
// reached yet.
func TestCollectSkipsAFamilyCollectedMomentsAgo(t *testing.T) {
	f := newFixture(t, "push2", 24*time.Hour)
	ctx := context.Background()
	if err := f.svc.Collect(ctx); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(100 * time.Millisecond)
	if err := f.svc.Collect(ctx); err != nil {
		t.Fatal(err)
	}
	if f.requests() != 2 {
		t.Fatalf("a second Collect 0.1 s after the first made %d requests in all, want the first's 2", f.requests())
	}
	// The dead leader stored the industries, not yet the concepts.
	f.clock.Advance(time.Minute)
	f.publish(f.clock.Now())
	if _, err := f.col.Collect(ctx, market.Industry, "push2"); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(100 * time.Millisecond)
	ind, con := f.p2.Requests(market.Industry), f.p2.Requests(market.Concept)
	if err := f.svc.Collect(ctx); err != nil {
		t.Fatal(err)
	}
	if f.p2.Requests(market.Industry) != ind || f.p2.Requests(market.Concept) != con+1 {
		t.Fatalf("after an industry-only collection: industry +%d, concept +%d; want +0, +1",
			f.p2.Requests(market.Industry)-ind, f.p2.Requests(market.Concept)-con)
	}
	// Past half an interval both are due again.
	f.clock.Advance(31 * time.Second)
	before := f.requests()
	if err := f.svc.Collect(ctx); err != nil {
		t.Fatal(err)
	}
	if f.requests() != before+2 {
		t.Fatalf("half an interval later: %d requests, want 2", f.requests()-before)
	}
}
