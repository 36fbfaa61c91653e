package secmaster_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/config"
	"mdqs/internal/market"
	"mdqs/internal/secmaster"
	"mdqs/internal/upstream"
)

// fakeLists serves each source's rows, or its error, and counts the reads.
type fakeLists struct {
	mu    sync.Mutex
	rows  map[string][]upstream.Delisting
	fail  map[string]error
	reads map[string]int
}

func (f *fakeLists) Sources() []string { return []string{upstream.SourceSZSE, upstream.SourceSSE} }

func (f *fakeLists) Statuses() []upstream.Status { return nil }

func (f *fakeLists) DelistedFrom(_ context.Context, src string) ([]upstream.Delisting, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.reads == nil {
		f.reads = map[string]int{}
	}
	f.reads[src]++
	if err := f.fail[src]; err != nil {
		return nil, err
	}
	return f.rows[src], nil
}

func (f *fakeLists) count(src string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.reads[src]
}

var (
	jintian = market.MustCode("000003.SZ")
	handan  = market.MustCode("600001.SH")
)

func delistedRows() map[string][]upstream.Delisting {
	return map[string][]upstream.Delisting{
		"szse": {{Code: jintian, Name: "PT金田Ａ", Listed: 19910703, Delisted: 20020614, Source: "szse"}},
		"sse":  {{Code: handan, Name: "邯郸钢铁", Listed: 19980122, Delisted: 20091229, Source: "sse"}},
	}
}

// The job reads a list at start when it was never read, then not again
// until the interval has passed; a failed list is read again at the next
// run while the other keeps its rows.
func TestDelistedImportSchedule(t *testing.T) {
	store := dbtest.Open(t)
	ctx := context.Background()
	clock := market.NewFixedClock(time.Date(2026, 11, 23, 9, 0, 0, 0, market.Shanghai()))
	lists := &fakeLists{rows: delistedRows(), fail: map[string]error{"sse": errors.New("upstream sse: http_status 403")}}
	imp := secmaster.NewDelisted(store, lists, clock, 7*24*time.Hour)
	err := imp.Import(ctx)
	if err == nil || !strings.Contains(err.Error(), "the sse list") {
		t.Fatalf("Import with SSE failing = %v, want an error naming the sse list", err)
	}
	if got, err := store.Delisting(ctx, jintian); err != nil || len(got) != 1 || got[0].Delisted != 20020614 || got[0].Source != "szse" {
		t.Errorf("SZSE's row despite SSE failing: %+v, %v", got, err)
	}
	lists.fail = nil
	clock.Set(clock.Now().Add(time.Hour))
	if err := imp.Import(ctx); err != nil {
		t.Fatal(err)
	}
	if lists.count("szse") != 1 || lists.count("sse") != 2 {
		t.Errorf("reads szse %d, sse %d; want 1 (not due) and 2 (retried)", lists.count("szse"), lists.count("sse"))
	}
	for _, step := range []struct {
		after     time.Duration
		szse, sse int
	}{
		{6 * 24 * time.Hour, 1, 2}, // within the week: nothing due
		{23 * time.Hour, 2, 2},     // SZSE's week is over, SSE's (read an hour later) not yet
		{time.Hour, 2, 3},
	} {
		clock.Set(clock.Now().Add(step.after))
		if err := imp.Import(ctx); err != nil {
			t.Fatal(err)
		}
		if lists.count("szse") != step.szse || lists.count("sse") != step.sse {
			t.Errorf("at %v: reads szse %d, sse %d; want %d, %d", clock.Now(), lists.count("szse"), lists.count("sse"), step.szse, step.sse)
		}
	}
}

// History answers a delisted code's delisting day and its list; the
// list's listing day counts only where no other source states one.
func TestHistoryOfADelistedCode(t *testing.T) {
	store := dbtest.Open(t)
	ctx := context.Background()
	clock := market.NewFixedClock(time.Date(2026, 11, 24, 15, 10, 0, 0, market.Shanghai()))
	list := &quoteList{qs: []market.Quote{{Code: market.MustCode("000001.SZ"), Name: "平安银行", Price: 10, Volume: 1}}}
	svc := secmaster.New(store, list, market.DefaultCalendar(), clock, secmaster.Config{RecordAfter: 15*60 + 5})
	if err := svc.Record(ctx); err != nil {
		t.Fatal(err)
	}
	if err := secmaster.NewDelisted(store, &fakeLists{rows: delistedRows()}, clock, time.Hour).Import(ctx); err != nil {
		t.Fatal(err)
	}
	// The terminal's base.dbf states 600001's listing a day apart from
	// SSE's list: base.dbf wins.
	if err := store.ReplaceListingDays(ctx, "tdx-base", map[market.Code]market.Day{handan: 19980121}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		code           market.Code
		listed, delist db.ListedOn
	}{
		{jintian, db.ListedOn{Day: 19910703, Source: "szse"}, db.ListedOn{Day: 20020614, Source: "szse"}},
		{handan, db.ListedOn{Day: 19980121, Source: "tdx-base"}, db.ListedOn{Day: 20091229, Source: "sse"}},
	} {
		tl, err := svc.History(ctx, tc.code)
		if err != nil {
			t.Fatalf("History(%s): %v", tc.code, err)
		}
		if tl.Listed != tc.listed || tl.Delisted != tc.delist || len(tl.Spans) != 0 {
			t.Errorf("History(%s) listed %+v delisted %+v spans %d; want %+v, %+v, none", tc.code, tl.Listed, tl.Delisted, len(tl.Spans), tc.listed, tc.delist)
		}
	}
	// A code no record and no list knows is still not found.
	if _, err := svc.History(ctx, market.MustCode("000004.SZ")); market.KindOf(err) != market.KindNotFound {
		t.Errorf("an unknown code: %v", err)
	}
	// The recorded universe takes the list's listing day last too.
	u, _, err := svc.Universe(ctx, 20261124, secmaster.Filter{})
	if err != nil || len(u) != 1 || u[0].Listed.Day != 0 {
		t.Errorf("universe %+v, %v", u, err)
	}
}

// From the configuration: nothing in demo mode or when turned off; in live
// mode the clients go where securities.szse and securities.sse point, and
// an import stores what they answer.
func TestDelistedFromConfig(t *testing.T) {
	szse := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("CATALOGID") == "SSGSGMXX" {
			_, _ = w.Write([]byte(`[{"metadata":{"tabkey":"tab2","pagecount":1,"recordcount":1},"data":[{"bgrq":"2012-08-02","zqdm":"000001","zqjc":"平安银行","bgqzqjc":"深发展Ａ","bghzqjc":"平安银行"}]}]`))
			return
		}
		_, _ = w.Write([]byte(`[{"metadata":{"tabkey":"tab2","pagecount":1,"recordcount":1},"data":[{"zqdm":"000003","zqjc":"PT金田Ａ","ssrq":"1991-07-03","zzrq":"2002-06-14"}]}]`))
	}))
	defer szse.Close()
	sse := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("STOCK_TYPE") == "8" {
			_, _ = w.Write([]byte(`{"pageHelp":{"pageCount":0,"total":0,"pageSize":500},"result":[]}`))
			return
		}
		_, _ = w.Write([]byte(`{"pageHelp":{"pageCount":1,"total":1,"pageSize":500},"result":[{"COMPANY_CODE":"600001","COMPANY_ABBR":"邯郸钢铁","LIST_DATE":"19980122","DELIST_DATE":"20091229"}]}`))
	}))
	defer sse.Close()
	store := dbtest.Open(t)
	clock := market.NewFixedClock(time.Date(2026, 11, 23, 9, 0, 0, 0, market.Shanghai()))
	cfg := config.Default()
	if d, err := secmaster.DelistedFromConfig(cfg, store, nil, clock); d != nil || err != nil {
		t.Errorf("demo mode: %v, %v; want no import", d, err)
	}
	cfg.Sources.Default = "push2"
	cfg.Securities.Delisted = false
	if d, err := secmaster.DelistedFromConfig(cfg, store, nil, clock); d != nil || err != nil {
		t.Errorf("turned off: %v, %v; want no import", d, err)
	}
	cfg.Securities.Delisted = true
	cfg.Securities.SZSE.BaseURL, cfg.Securities.SSE.BaseURL = szse.URL, sse.URL
	d, err := secmaster.DelistedFromConfig(cfg, store, nil, clock)
	if err != nil || d == nil {
		t.Fatalf("live: %v, %v", d, err)
	}
	if err := d.Import(context.Background()); err != nil {
		t.Fatal(err)
	}
	rows, err := store.Delistings(context.Background())
	if err != nil || len(rows) != 2 || rows[0].Code != jintian || rows[0].Source != "szse" || rows[1].Code != handan || rows[1].Delisted != 20091229 {
		t.Errorf("stored %+v, %v", rows, err)
	}
	// The name changes come on the same schedule, from the same client.
	if got, err := store.NameChanges(context.Background(), market.MustCode("000001.SZ")); err != nil || len(got) != 1 || got[0].After != "平安银行" || got[0].Source != "szse" {
		t.Errorf("name changes stored %+v, %v", got, err)
	}
	if st := d.Statuses(); len(st) != 2 || st[0].Source != "szse" || st[0].Requests != 2 || st[1].Source != "sse" || st[1].Requests != 2 {
		t.Errorf("statuses %+v", st)
	}
}
