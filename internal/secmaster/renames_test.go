package secmaster_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/market"
	"mdqs/internal/secmaster"
	"mdqs/internal/upstream"
)

// fakeChanges serves each source's name changes, or its error, and
// counts the reads.
type fakeChanges struct {
	mu    sync.Mutex
	rows  map[string][]upstream.NameChange
	fail  map[string]error
	reads int
}

func (f *fakeChanges) NameChangeSources() []string { return []string{upstream.SourceSZSE} }

func (f *fakeChanges) NameChangesFrom(_ context.Context, src string) ([]upstream.NameChange, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	if err := f.fail[src]; err != nil {
		return nil, err
	}
	return f.rows[src], nil
}

// The name changes are read with the delisted lists, at start and then
// once an interval; a failed read keeps the stored rows and is tried at
// the next run, and does not stop the delisted lists.
func TestNameChangesImportSchedule(t *testing.T) {
	store := dbtest.Open(t)
	ctx := context.Background()
	clock := market.NewFixedClock(time.Date(2026, 11, 23, 9, 0, 0, 0, market.Shanghai()))
	pingan := market.MustCode("000001.SZ")
	changes := &fakeChanges{rows: map[string][]upstream.NameChange{"szse": {{Code: pingan, Day: 20120802, Before: "深发展Ａ", After: "平安银行", Source: "szse"}}}}
	imp := secmaster.NewDelisted(store, &fakeLists{rows: delistedRows()}, clock, 7*24*time.Hour).WithNameChanges(changes)
	if err := imp.Import(ctx); err != nil {
		t.Fatal(err)
	}
	changes.fail = map[string]error{"szse": errors.New("upstream szse: http_status 403")}
	for _, step := range []struct {
		after   time.Duration
		reads   int
		wantErr bool
	}{
		{time.Hour, 1, false},         // not due
		{7 * 24 * time.Hour, 2, true}, // due, fails
		{time.Hour, 3, true},          // tried again
	} {
		clock.Set(clock.Now().Add(step.after))
		err := imp.Import(ctx)
		if (err != nil) != step.wantErr || (err != nil && !strings.Contains(err.Error(), "the szse list of short-name changes")) {
			t.Errorf("at %v: Import = %v, want error %v", clock.Now(), err, step.wantErr)
		}
		if changes.reads != step.reads {
			t.Errorf("at %v: reads %d, want %d", clock.Now(), changes.reads, step.reads)
		}
		got, err := store.NameChanges(ctx, pingan)
		if err != nil || len(got) != 1 || got[0].After != "平安银行" {
			t.Errorf("at %v: stored %+v, %v; want the first read kept", clock.Now(), got, err)
		}
	}
	// The delisted lists were stored all the same.
	if got, err := store.Delisting(ctx, jintian); err != nil || len(got) != 1 {
		t.Errorf("delisting %+v, %v", got, err)
	}
}

// names is what History answers as the code's names, one string each:
// "name from..to source", "?" for an unknown start, "now" while current.
func names(t *testing.T, svc *secmaster.Service, code string) []string {
	t.Helper()
	tl, err := svc.History(context.Background(), market.MustCode(code))
	if err != nil {
		t.Fatalf("History(%s): %v", code, err)
	}
	out := make([]string, len(tl.Names))
	for i, n := range tl.Names {
		from, to := "?", "now"
		if n.From != 0 {
			from = n.From.String()
		}
		if n.To != 0 {
			to = n.To.String()
		}
		out[i] = n.Name + " " + from + ".." + to + " " + n.Source
	}
	return out
}

func storeChanges(t *testing.T, store *db.Store, rows ...db.NameChange) {
	t.Helper()
	if err := store.ReplaceNameChanges(context.Background(), "szse", rows, time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
}

// Before anything is recorded, the list alone gives the names: the first
// one's start unknown, each next from its change day to the session
// before the next change, the last still the name, or until the session
// before its delisting.
func TestNamesFromTheListAlone(t *testing.T) {
	store := dbtest.Open(t)
	clock := market.NewFixedClock(time.Date(2026, 11, 24, 9, 0, 0, 0, market.Shanghai()))
	svc := secmaster.New(store, &quoteList{}, market.DefaultCalendar(), clock, secmaster.Config{RecordAfter: 15*60 + 5})
	storeChanges(t, store,
		db.NameChange{Code: market.MustCode("000001.SZ"), Day: 20120802, Before: "深发展Ａ", After: "平安银行"},
		// A change the list gives no day for is placed nowhere.
		db.NameChange{Code: market.MustCode("000001.SZ"), Day: 0, Before: "深发展", After: "深发展Ａ"},
		db.NameChange{Code: market.MustCode("000003.SZ"), Day: 20200601, Before: "金田实业", After: "PT金田Ａ"},
	)
	if err := store.ReplaceDelistings(context.Background(), "szse", []db.Delisting{{Code: market.MustCode("000003.SZ"), Delisted: 20210301}}, clock.Now()); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		code string
		want []string
	}{
		{"000001.SZ", []string{"深发展Ａ ?..2012-08-01 szse", "平安银行 2012-08-02..now szse"}},
		// The session before 2021-03-01 (a Monday) is Friday's.
		{"000003.SZ", []string{"金田实业 ?..2020-05-29 szse", "PT金田Ａ 2020-06-01..2021-02-26 szse"}},
	} {
		if got := names(t, svc, tc.code); strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("names of %s = %q, want %q", tc.code, got, tc.want)
		}
	}
}

// With a record, the record wins for the days it covers; the list fills
// the days before it, and after it for a change made once it stopped.
func TestNamesJoinTheRecordAndTheList(t *testing.T) {
	store := dbtest.Open(t)
	ctx := context.Background()
	clock := market.NewFixedClock(time.Date(2026, 11, 24, 15, 10, 0, 0, market.Shanghai()))
	pingan, xingyuan, newco := market.MustCode("000001.SZ"), market.MustCode("000005.SZ"), market.MustCode("000009.SZ")
	list := &quoteList{qs: []market.Quote{
		{Code: pingan, Name: "平安银行", Price: 10, Volume: 1},
		{Code: xingyuan, Name: "*ST星源", Price: 1, Volume: 1},
	}}
	svc := secmaster.New(store, list, market.DefaultCalendar(), clock, secmaster.Config{RecordAfter: 15*60 + 5})
	if err := svc.Record(ctx); err != nil {
		t.Fatal(err)
	}
	clock.Set(clock.Now().Add(24 * time.Hour))
	list.qs = append(list.qs, market.Quote{Code: newco, Name: "新股份", Price: 20, Volume: 1})
	if err := svc.Record(ctx); err != nil {
		t.Fatal(err)
	}
	storeChanges(t, store,
		db.NameChange{Code: pingan, Day: 20120802, Before: "深发展Ａ", After: "平安银行"},
		// Two changes of one day, listed in the reverse order: the name
		// in between held no session, and the session before 2024-05-06
		// is 2024-04-30 (the May holiday).
		db.NameChange{Code: xingyuan, Day: 20240506, Before: "ST星源", After: "*ST星源"},
		db.NameChange{Code: xingyuan, Day: 20240506, Before: "世纪星源", After: "ST星源"},
		// 000009 entered the record on its second day: the list says
		// nothing of the days before it, and its change after the record
		// ends the recorded name.
		db.NameChange{Code: newco, Day: 20261201, Before: "新股份", After: "新名字"},
	)
	for _, tc := range []struct {
		code string
		want []string
	}{
		{"000001.SZ", []string{"深发展Ａ ?..2012-08-01 szse", "平安银行 2012-08-02..2026-11-23 szse", "平安银行 ?..now quotes"}},
		{"000005.SZ", []string{"世纪星源 ?..2024-04-30 szse", "*ST星源 2024-05-06..2026-11-23 szse", "*ST星源 ?..now quotes"}},
		{"000009.SZ", []string{"新股份 2026-11-25..2026-11-25 quotes", "新名字 2026-12-01..now szse"}},
	} {
		if got := names(t, svc, tc.code); strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("names of %s = %q, want %q", tc.code, got, tc.want)
		}
	}
	// The list's names carry the warnings back before the record.
	tl, err := svc.History(ctx, xingyuan)
	if err != nil {
		t.Fatal(err)
	}
	var st []string
	for _, sp := range tl.Spans {
		if sp.Field == db.FieldST {
			st = append(st, fmt.Sprintf("%s %s..%s %s", sp.Value, sp.First, sp.Last, sp.Source))
		}
	}
	if want := "*ST 2024-05-06..2026-11-23 szse|*ST 2026-11-24..2026-11-25 quotes"; strings.Join(st, "|") != want {
		t.Errorf("warnings of 000005 = %q, want %q", st, want)
	}
	// A code the change list alone knows is answered, not a not-found.
	storeChanges(t, store, db.NameChange{Code: market.MustCode("000013.SZ"), Day: 20040920, Before: "石化A", After: "*ST石化A"})
	if got := names(t, svc, "000013.SZ"); len(got) != 2 {
		t.Errorf("names of a code only the list knows: %q", got)
	}
}

// A recorded name from the first recorded day has a known start when the
// code listed that day.
func TestRecordedNameStartsAtItsListing(t *testing.T) {
	store := dbtest.Open(t)
	ctx := context.Background()
	clock := market.NewFixedClock(time.Date(2026, 11, 24, 15, 10, 0, 0, market.Shanghai()))
	code := market.MustCode("001280.SZ")
	svc := secmaster.New(store, &quoteList{qs: []market.Quote{{Code: code, Name: "中国铀业", Price: 30, Volume: 1}}}, market.DefaultCalendar(), clock, secmaster.Config{RecordAfter: 15*60 + 5})
	if err := svc.Record(ctx); err != nil {
		t.Fatal(err)
	}
	if got := names(t, svc, code.String()); len(got) != 1 || got[0] != "中国铀业 ?..now quotes" {
		t.Errorf("listing unknown: %q", got)
	}
	if err := store.ReplaceListingDays(ctx, "tdx-base", map[market.Code]market.Day{code: 20261124}); err != nil {
		t.Fatal(err)
	}
	if got := names(t, svc, code.String()); len(got) != 1 || got[0] != "中国铀业 2026-11-24..now quotes" {
		t.Errorf("listed on the first recorded day: %q", got)
	}
}
