package ranking_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/board"
	"mdqs/internal/demo"
	"mdqs/internal/market"
	"mdqs/internal/ranking"
)

// friday10 is inside the window of Friday 2026-11-27: the current day.
var friday10 = time.Date(2026, 11, 27, 10, 0, 0, 0, market.Shanghai())

// replaySource is the demo market whose replays of past days a test can
// count and hold.
type replaySource struct {
	*demo.Market
	replays atomic.Int64
	gate    chan struct{} // nil: never held
	held    chan struct{} // closed when a replay first waits at the gate
	once    sync.Once
}

func (r *replaySource) SectorsAt(ctx context.Context, kind market.SectorKind, t time.Time) (market.SectorSnapshot, error) {
	r.replays.Add(1)
	if r.gate != nil {
		r.once.Do(func() { close(r.held) })
		select {
		case <-r.gate:
		case <-ctx.Done():
			return market.SectorSnapshot{}, ctx.Err()
		}
	}
	return r.Market.SectorsAt(ctx, kind, t)
}

type statsFixture struct {
	svc    *ranking.Service
	store  *db.Store
	src    *replaySource
	target string
}

// newStatsFixture is the ranking service in demo mode on a small demo
// market, its own store, the clock pinned at now.
func newStatsFixture(t *testing.T, now time.Time, gate chan struct{}) *statsFixture {
	t.Helper()
	clock := market.NewFixedClock(now)
	cal := market.DefaultCalendar()
	dm, err := demo.New(demo.Config{Seed: 7, Stocks: 300, Industries: 20, Concepts: 40, Calendar: cal}, clock)
	if err != nil {
		t.Fatal(err)
	}
	src := &replaySource{Market: dm, gate: gate, held: make(chan struct{})}
	target := dbtest.Target(t)
	store := dbtest.OpenAt(t, target)
	start, _ := market.ParseTimeOfDay("09:25")
	end, _ := market.ParseTimeOfDay("15:00")
	window := market.Window{Start: start, End: end}
	col := board.NewCollector(store, map[string]board.SectorSource{"demo": src}, clock, quiet(),
		board.Policy{Calendar: cal, Window: window, Soft: time.Minute})
	t.Cleanup(col.Close)
	eod, _ := market.ParseTimeOfDay("15:05")
	svc, err := ranking.New(ranking.Config{Soft: time.Minute, Hard: time.Hour, Window: window, EODAt: eod, CatchUpDays: 10, Mode: "demo"},
		col, store, cal, clock, quiet(), 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	return &statsFixture{svc: svc, store: store, src: src, target: target}
}

type statsAnswer struct {
	Stats   []ranking.DailyStats
	Missing []string
}

func answerJSON(t *testing.T, range_ func() ([]ranking.DailyStats, []string, error)) string {
	t.Helper()
	stats, missing, err := range_()
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(statsAnswer{stats, missing})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestKeptStatsAnswerAsTheRankings holds the kept stats to the answers
// computed from whole rankings, as stats/range computed them before: two
// services on the same demo market and clock, each on its own store, one
// answering from kept stats, the other from every day's whole ranking.
// Days stored by the end-of-day job, past days built on first demand, the
// current day (live and provisional), days after it, several tops; and a
// store whose rankings were stored before the stats were kept (their rows
// cleared), whose stats are then kept from those rankings.
func TestKeptStatsAnswerAsTheRankings(t *testing.T) {
	ctx := context.Background()
	kept := newStatsFixture(t, friday10, nil)
	computed := newStatsFixture(t, friday10, nil)
	for _, f := range []*statsFixture{kept, computed} {
		if _, err := f.svc.EndOfDay(ctx); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name     string
		from, to market.Day
		top      int
	}{
		{"end-of-day days and today", 20261116, 20261127, 10},
		{"two months built on demand", 20260901, 20261031, 3},
		{"a year, every name", 20251128, 20261127, ranking.StatsTop},
		{"past today", 20261120, 20261204, 1},
		{"the same again", 20260901, 20261031, 3},
	}
	for _, tc := range cases {
		got := answerJSON(t, func() ([]ranking.DailyStats, []string, error) {
			return kept.svc.StatsRange(ctx, tc.from, tc.to, tc.top)
		})
		want := answerJSON(t, func() ([]ranking.DailyStats, []string, error) {
			return computed.svc.StatsRangeFromRankings(ctx, tc.from, tc.to, tc.top)
		})
		if got != want {
			t.Errorf("%s: StatsRange(%v, %v, %d) from kept stats differs from the whole rankings':\n got %.600s\nwant %.600s",
				tc.name, tc.from, tc.to, tc.top, got, want)
		}
		if !strings.Contains(got, `"provisional":true`) && tc.to >= 20261127 {
			t.Errorf("%s: no provisional current day in %.300s", tc.name, got)
		}
	}
	// A year is kept: every trading day of it has its stats stored.
	st, err := kept.store.DailyStats(ctx, 20251128, 20261126)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(market.DefaultCalendar().Between(20251128, 20261126)); len(st) != n {
		t.Errorf("after the year's range %d days have kept stats, want all %d past trading days", len(st), n)
	}

	if dbtest.Postgres(t) {
		return // clearing the rows by hand is done on the SQLite file
	}
	raw, err := sql.Open("sqlite", kept.target)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`DELETE FROM daily_stats`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	for _, tc := range cases {
		got := answerJSON(t, func() ([]ranking.DailyStats, []string, error) {
			return kept.svc.StatsRange(ctx, tc.from, tc.to, tc.top)
		})
		want := answerJSON(t, func() ([]ranking.DailyStats, []string, error) {
			return computed.svc.StatsRangeFromRankings(ctx, tc.from, tc.to, tc.top)
		})
		if got != want {
			t.Errorf("%s, rankings stored before the stats: got %.600s\nwant %.600s", tc.name, got, want)
		}
	}
	if st, err := kept.store.DailyStats(ctx, 20251128, 20261126); err != nil || len(st) == 0 {
		t.Errorf("stats not kept again from the stored rankings: %d days, %v", len(st), err)
	}
}

// TestStatsRangeKeepsTheRankingCache: a range over past days reads and
// keeps their stats without putting each day's whole ranking in the
// ranking cache (a year of them, 380 KB a day at real scale, flushed the
// current day's ranking out of its 64 MiB), and asking again replays
// nothing. Before, each past day was built through the cache.
func TestStatsRangeKeepsTheRankingCache(t *testing.T) {
	ctx := context.Background()
	f := newStatsFixture(t, friday10, nil)
	before := f.svc.CacheStats().KeysAdded
	if _, _, err := f.svc.StatsRange(ctx, 20260601, 20260831, 10); err != nil {
		t.Fatal(err)
	}
	if added := f.svc.CacheStats().KeysAdded - before; added != 0 {
		t.Errorf("a range of past days added %d rankings to the cache, want none", added)
	}
	replays := f.src.replays.Load()
	if replays == 0 {
		t.Fatal("the range replayed no past day: the fixture does not test the first computation")
	}
	if _, _, err := f.svc.StatsRange(ctx, 20260601, 20260831, 5); err != nil {
		t.Fatal(err)
	}
	if n := f.src.replays.Load() - replays; n != 0 {
		t.Errorf("the same range again replayed %d days, want none: their stats are kept", n)
	}
}

// TestStatsRangeGoesOnAfterTheWait: a request that stops waiting while
// the stats of its days are first kept (server.upstream_wait) is a 503
// saying so, and the work goes on: every day is kept without another
// request. Before, the work stopped with the request, so each retry
// redid part of it and a year answered 503 twice before a 200.
func TestStatsRangeGoesOnAfterTheWait(t *testing.T) {
	gate := make(chan struct{})
	f := newStatsFixture(t, friday10, gate)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-f.src.held
		cancel() // the request's wait ends while the first replay is held
	}()
	_, _, err := f.svc.StatsRange(ctx, 20261001, 20261031, 10)
	if market.KindOf(err) != market.KindUnavailable || !strings.Contains(err.Error(), "goes on in the background") {
		t.Fatalf("StatsRange after the wait = %v, want unavailable saying the work goes on", err)
	}
	close(gate)
	want := len(market.DefaultCalendar().Between(20261001, 20261031))
	deadline := time.Now().Add(time.Minute) // a failsafe, not a measure
	for {
		st, err := f.store.DailyStats(context.Background(), 20261001, 20261031)
		if err != nil {
			t.Fatal(err)
		}
		if len(st) == want {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d days kept a minute after the request left: the work stopped with it", len(st), want)
		}
		time.Sleep(10 * time.Millisecond)
	}
	stats, missing, err := f.svc.StatsRange(context.Background(), 20261001, 20261031, 10)
	if err != nil || len(stats) != want || len(missing) != 0 {
		t.Errorf("StatsRange once kept = %d days, missing %v, %v; want %d days", len(stats), missing, err, want)
	}
}

// TestKeepAYearOfStatsAhead: the demo's stats of the last year are kept
// ahead of any request (the demo-daily-stats job), so the first one-year
// stats/range on a fresh demo store reads kept rows instead of replaying
// some 240 days while the caller waits (16-24 s, a 503 after
// server.upstream_wait). A second run finds every day kept and replays
// nothing; the current day is left to its live ranking.
func TestKeepAYearOfStatsAhead(t *testing.T) {
	ctx := context.Background()
	f := newStatsFixture(t, friday10, nil)
	n, err := f.svc.KeepStatsAhead(ctx, 366)
	if err != nil {
		t.Fatal(err)
	}
	cal := market.DefaultCalendar()
	past := cal.Between(market.Day(20261127).AddDays(-366), cal.Prev(20261127))
	kept, err := f.store.DailyStats(ctx, past[0], past[len(past)-1])
	if err != nil {
		t.Fatal(err)
	}
	if n != len(past) || len(kept) != len(past) {
		t.Fatalf("kept %d days (store %d), want every past trading day of the year, %d", n, len(kept), len(past))
	}
	replays := f.src.replays.Load()
	if n, err := f.svc.KeepStatsAhead(ctx, 366); err != nil || n != 0 {
		t.Errorf("a second run kept %d days (%v), want none", n, err)
	}
	if _, _, err := f.svc.StatsRange(ctx, past[0], 20261127, 10); err != nil {
		t.Fatal(err)
	}
	if d := f.src.replays.Load() - replays; d != 0 {
		t.Errorf("after the job, a year's range replayed %d days, want none", d)
	}
}
