package hotrank_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/demo"
	"mdqs/internal/hotrank"
	"mdqs/internal/hotrank/hotranktest"
	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

// t0 is a Monday in Shanghai, inside the session.
var t0 = time.Date(2026, 11, 23, 10, 0, 0, 0, market.Shanghai())

func live(t *testing.T, list []hotranktest.Stock, clock market.Clock) (*hotrank.Service, *hotranktest.Server, *db.Store) {
	t.Helper()
	fake := hotranktest.New(t, list)
	cfg := upstream.DefaultHotRankConfig()
	cfg.BaseURL, cfg.Names.BaseURL = fake.URL, fake.URL
	cfg.Retries, cfg.Names.Retries, cfg.Rate, cfg.Burst, cfg.Names.Rate, cfg.Names.Burst = -1, -1, 1000, 1000, 1000, 1000
	c, err := upstream.NewHotRank(cfg, upstream.NewLimiters(), clock)
	if err != nil {
		t.Fatal(err)
	}
	store := dbtest.Open(t)
	svc := hotrank.New(hotrank.Config{PageSize: 20}, store, hotrank.Live(c, clock), market.DefaultCalendar(), clock, nil)
	return svc, fake, store
}

func TestImportFromEastMoneyIsIdempotent(t *testing.T) {
	clock := market.NewFixedClock(t0)
	svc, fake, store := live(t, hotranktest.Stocks(50), clock)
	ctx := context.Background()
	res, err := svc.Import(ctx, hotrank.ImportRequest{})
	if err != nil {
		t.Fatal(err)
	}
	// 50 rows at 20 a page: pages of 20, 20 and a short 10 that ends it.
	if res.Date != 20261123 || res.Pages != 3 || res.Fetched != 50 || !res.Complete || len(res.Failures) != 0 ||
		res.Counts != (db.InfoCounts{Inserted: 50}) || res.Source != "emappdata" || res.Size != 20 {
		t.Fatalf("first import %+v", res)
	}
	again, err := svc.Import(ctx, hotrank.ImportRequest{})
	if err != nil || again.Counts != (db.InfoCounts{Unchanged: 50}) || !again.Complete {
		t.Fatalf("second import %+v, %v", again, err)
	}
	got, total, _ := store.HotRank(ctx, db.HotRankQuery{Day: 20261123})
	if total != 50 || got[0].Code != market.MustCode("600000.SH") || got[0].Name != "股票0" || got[0].Heat != 10000 ||
		got[2].Code != market.MustCode("920002.BJ") || got[49].Rank != 50 || got[49].Heat != hotrank.HeatOf(50) {
		t.Errorf("stored %+v ... %+v", got[0], got[49])
	}
	last, err := store.LastImport(ctx, hotrank.ImportKind, "2026-11-23", true)
	if err != nil || last.Unchanged != 50 || last.Pages != 3 {
		t.Errorf("import run %+v, %v", last, err)
	}
	if fake.Posts() != 6 {
		t.Errorf("list requests = %d, want 6", fake.Posts())
	}
}

// A page that fails stores nothing of itself, keeps what came before and
// says so; a later list that drops stocks leaves no stale ranks.
func TestImportPartialFailure(t *testing.T) {
	clock := market.NewFixedClock(t0)
	svc, fake, store := live(t, hotranktest.Stocks(50), clock)
	ctx := context.Background()
	fake.FailPage(2, 502)
	res, err := svc.Import(ctx, hotrank.ImportRequest{})
	if err != nil {
		t.Fatalf("a later page's failure is not the import's: %v", err)
	}
	if res.Complete || res.Pages != 2 || len(res.Failures) != 1 || res.Failures[0].Page != 2 ||
		res.Failures[0].Kind != "http_status" || !strings.Contains(res.Failures[0].Error, "502") || res.Counts.Inserted != 20 {
		t.Fatalf("result %+v", res)
	}
	if _, total, _ := store.HotRank(ctx, db.HotRankQuery{Day: 20261123}); total != 20 {
		t.Errorf("stored %d rows, want page 1's 20", total)
	}
	if last, err := store.LastImport(ctx, hotrank.ImportKind, "", false); err != nil || last.Complete || !strings.Contains(last.Error, "page 2") {
		t.Errorf("run %+v, %v", last, err)
	}
	// First page down: nothing imported, 503.
	fake.FailPage(1, 503)
	if _, err := svc.Import(ctx, hotrank.ImportRequest{}); market.KindOf(err) != market.KindUnavailable {
		t.Errorf("first page failing: %v", err)
	}
	fake.FailPage(1, 0)
	fake.FailPage(2, 0)
	// The list shrinks and reorders: ranks stay unique, dropped stocks go.
	short := hotranktest.Stocks(50)[10:25]
	fake.SetList(short)
	res, err = svc.Import(ctx, hotrank.ImportRequest{})
	if err != nil || !res.Complete {
		t.Fatalf("reimport %+v, %v", res, err)
	}
	got, total, _ := store.HotRank(ctx, db.HotRankQuery{Day: 20261123})
	if total != 15 || got[0].Code != short[0].Code || got[0].Rank != 1 || got[14].Rank != 15 {
		t.Errorf("after the list shrank: %d rows, first %+v", total, got[0])
	}
}

func TestImportRefusals(t *testing.T) {
	clock := market.NewFixedClock(t0)
	svc, fake, _ := live(t, hotranktest.Stocks(5), clock)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		req  hotrank.ImportRequest
		msg  string
	}{
		{"tomorrow", hotrank.ImportRequest{Day: 20261124}, "invalid date"},
		{"a past day from a live-only upstream", hotrank.ImportRequest{Day: 20261120}, "invalid date"},
		{"size over the upstream's limit", hotrank.ImportRequest{Size: 101}, "missing or invalid params"},
		{"negative pages", hotrank.ImportRequest{MaxPages: -1}, "missing or invalid params"},
		{"too many pages", hotrank.ImportRequest{MaxPages: 21}, "missing or invalid params"},
	} {
		_, err := svc.Import(ctx, tc.req)
		var me *market.Error
		if market.KindOf(err) != market.KindInvalid || !errors.As(err, &me) || me.Message != tc.msg {
			t.Errorf("%s: %v, want invalid %q", tc.name, err, tc.msg)
		}
	}
	if fake.Posts() != 0 {
		t.Errorf("refused imports reached the upstream %d times", fake.Posts())
	}
	// max_pages bounds the walk: one page of a longer list is not complete.
	res, err := svc.Import(ctx, hotrank.ImportRequest{Size: 2, MaxPages: 1})
	if err != nil || res.Complete || res.Pages != 1 || res.Counts.Inserted != 2 {
		t.Errorf("one page: %+v, %v", res, err)
	}
}

func TestHeatOf(t *testing.T) {
	for rank, want := range map[int]int{1: 10000, 2: 9901, 100: 5025, 1000: 910, 5000: 196, 0: 0, -3: 0} {
		if got := hotrank.HeatOf(rank); got != want {
			t.Errorf("HeatOf(%d) = %d, want %d", rank, got, want)
		}
	}
	for r := 1; r < 6000; r++ {
		if hotrank.HeatOf(r+1) > hotrank.HeatOf(r) {
			t.Fatalf("heat rises from rank %d to %d", r, r+1)
		}
	}
}

func demoService(t *testing.T, clock *market.FixedClock) (*hotrank.Service, *db.Store, *demo.Market) {
	t.Helper()
	m, err := demo.New(demo.Config{Seed: 1, Stocks: 400, Industries: 20, Concepts: 40}, clock)
	if err != nil {
		t.Fatal(err)
	}
	store := dbtest.Open(t)
	return hotrank.New(hotrank.Config{Source: demo.Source}, store, m, market.DefaultCalendar(), clock, nil), store, m
}

func TestDemoImportAndQueries(t *testing.T) {
	clock := market.NewFixedClock(t0)
	svc, _, _ := demoService(t, clock)
	ctx := context.Background()
	if _, err := svc.Query(ctx, hotrank.Query{Page: 1, Size: 20}); market.KindOf(err) != market.KindNotFound {
		t.Fatalf("empty store: %v", err)
	}
	for _, day := range []market.Day{20261119, 20261120, 20261123} {
		res, err := svc.Import(ctx, hotrank.ImportRequest{Day: day})
		if err != nil || !res.Complete || res.Counts.Inserted != demo.HotRankDepth || res.Source != "demo" {
			t.Fatalf("import %v: %+v, %v", day, res, err)
		}
	}
	latest, err := svc.Query(ctx, hotrank.Query{Page: 2, Size: 30})
	if err != nil || latest.Day != 20261123 || latest.Total != 100 || len(latest.Items) != 30 || latest.Items[0].Rank != 31 {
		t.Fatalf("latest day page 2: %+v, %v", latest, err)
	}
	first := latest.Items[0].Code
	codes, err := svc.Query(ctx, hotrank.Query{Codes: []market.Code{first}, From: 20261119, To: 20261123, Page: 1, Size: 10})
	if err != nil || codes.Day != 0 || codes.Total < 1 || codes.Items[0].Code != first || codes.Items[0].Day != 20261123 {
		t.Fatalf("range of a code: %+v, %v", codes, err)
	}
	if _, err := svc.Query(ctx, hotrank.Query{Day: 20261121, Page: 1, Size: 10}); market.KindOf(err) != market.KindNotFound {
		t.Errorf("a day without a list: %v", err)
	}
	if p, err := svc.Query(ctx, hotrank.Query{Day: 20261120, Page: 9, Size: 20}); err != nil || p.Total != 100 || len(p.Items) != 0 {
		t.Errorf("past the end: %+v, %v", p, err)
	}
	for _, q := range []hotrank.Query{
		{From: 20261123, To: 20261119, Page: 1, Size: 10},
		{From: 20261119, Page: 1, Size: 10},
		{From: 20250101, To: 20261123, Page: 1, Size: 10},
	} {
		var me *market.Error
		if _, err := svc.Query(ctx, q); !errors.As(err, &me) || me.Message != "invalid date" {
			t.Errorf("Query(%+v) = %v, want invalid date", q, err)
		}
	}
	if _, err := svc.Query(ctx, hotrank.Query{Day: 20261123, From: 20261119, To: 20261120, Page: 1, Size: 10}); market.KindOf(err) != market.KindInvalid {
		t.Errorf("date and a range: %v", err)
	}
	top, err := svc.Top(ctx, 0, 5)
	if err != nil || len(top.Items) != 5 || top.Items[4].Rank != 5 || top.Day != 20261123 {
		t.Errorf("top 5: %+v, %v", top, err)
	}
	d, err := svc.Detail(ctx, first, 0, 0)
	if err != nil || d.Latest.Day != 20261123 || d.LatestDay != 20261123 || len(d.History) < 1 || d.Best.Rank > d.Latest.Rank ||
		d.From != 20260826 || d.To != 20261123 || d.Name == "" {
		t.Errorf("detail %+v, %v", d, err)
	}
	if _, err := svc.Detail(ctx, market.MustCode("000002.SZ"), 0, 0); market.KindOf(err) != market.KindNotFound {
		t.Errorf("never ranked: %v", err)
	}
}

// The in-window job imports today; the after-close job fills the recent
// days a demo store lacks, then takes today's final list once after the
// close, and again after a restart only if it has not.
func TestJobs(t *testing.T) {
	clock := market.NewFixedClock(time.Date(2026, 11, 23, 14, 0, 0, 0, market.Shanghai()))
	svc, store, _ := demoService(t, clock)
	ctx := context.Background()
	if !svc.InWindow(clock.Now()) || svc.InWindow(time.Date(2026, 11, 22, 14, 0, 0, 0, market.Shanghai())) {
		t.Error("window gate")
	}
	if err := svc.AfterClose(ctx); err != nil {
		t.Fatal(err)
	}
	// Before the close: the five trading days before today, not today.
	for _, d := range []market.Day{20261116, 20261117, 20261118, 20261119, 20261120} {
		if _, n, _ := store.HotRank(ctx, db.HotRankQuery{Day: d}); n != demo.HotRankDepth {
			t.Errorf("catch-up left %v with %d rows", d, n)
		}
	}
	if _, err := store.LastImport(ctx, hotrank.ImportKind, "2026-11-23", false); market.KindOf(err) != market.KindNotFound {
		t.Fatal("the after-close job took today's list before the close")
	}
	if _, n, _ := store.HotRank(ctx, db.HotRankQuery{Day: 20261113}); n != 0 {
		t.Error("catch-up went back further than five trading days")
	}
	if err := svc.Collect(ctx); err != nil {
		t.Fatal(err)
	}
	clock.Set(time.Date(2026, 11, 23, 15, 6, 0, 0, market.Shanghai()))
	if err := svc.AfterClose(ctx); err != nil {
		t.Fatal(err)
	}
	run, _ := store.LastImport(ctx, hotrank.ImportKind, "2026-11-23", true)
	if !run.Started.Equal(clock.Now()) {
		t.Fatalf("after-close run started %v", run.Started)
	}
	clock.Set(time.Date(2026, 11, 23, 15, 7, 0, 0, market.Shanghai()))
	if err := svc.AfterClose(ctx); err != nil {
		t.Fatal(err)
	}
	if again, _ := store.LastImport(ctx, hotrank.ImportKind, "", false); again.ID != run.ID {
		t.Error("the after-close job ran twice")
	}
	// Sunday: no list of the day itself (the catch-up fills the week).
	clock.Set(time.Date(2026, 11, 29, 16, 0, 0, 0, market.Shanghai()))
	if err := svc.AfterClose(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := store.LastImport(ctx, hotrank.ImportKind, "2026-11-29", false); market.KindOf(err) != market.KindNotFound {
		t.Error("the after-close job ran on a Sunday")
	}
	if _, n, _ := store.HotRank(ctx, db.HotRankQuery{Day: 20261127}); n != demo.HotRankDepth {
		t.Error("the week was not caught up")
	}
}

// A live (today-only) source has nothing to catch up.
func TestNoCatchUpFromEastMoney(t *testing.T) {
	clock := market.NewFixedClock(time.Date(2026, 11, 23, 8, 0, 0, 0, market.Shanghai()))
	svc, fake, _ := live(t, hotranktest.Stocks(5), clock)
	if err := svc.AfterClose(context.Background()); err != nil {
		t.Fatal(err)
	}
	if fake.Posts() != 0 {
		t.Errorf("the after-close job asked EastMoney %d times before the close", fake.Posts())
	}
}

// A live server that has never imported hot rank imports the current list
// at start, whatever the hour, and an outage then shows as the 503 naming
// the source, never 404 "no hot rank is stored yet". Once a list is held,
// the start asks nothing.
func TestStartImportsWhatIsMissing(t *testing.T) {
	clock := market.NewFixedClock(time.Date(2026, 11, 23, 8, 0, 0, 0, market.Shanghai()))
	svc, fake, _ := live(t, hotranktest.Stocks(5), clock)
	ctx := context.Background()
	fake.FailPage(1, http.StatusBadGateway)
	if err := svc.AtStart(ctx); err == nil {
		t.Fatal("AtStart with EastMoney failing = nil, want its error")
	}
	_, err := svc.Query(ctx, hotrank.Query{Page: 1, Size: 20})
	if market.KindOf(err) != market.KindUnavailable || !strings.Contains(err.Error(), "emappdata") {
		t.Fatalf("query after a failed start import = %v, want unavailable naming emappdata", err)
	}
	fake.FailPage(1, 0)
	if err := svc.AtStart(ctx); err != nil {
		t.Fatal(err)
	}
	if page, err := svc.Query(ctx, hotrank.Query{Page: 1, Size: 20}); err != nil || len(page.Items) != 5 {
		t.Fatalf("query after the start import = %d items, %v; want 5", len(page.Items), err)
	}
	posts := fake.Posts()
	if err := svc.AtStart(ctx); err != nil || fake.Posts() != posts {
		t.Errorf("AtStart with a list held = %v and asked EastMoney %d more times, want nil and none", err, fake.Posts()-posts)
	}
}
