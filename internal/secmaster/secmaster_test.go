package secmaster_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/market"
	"mdqs/internal/secmaster"
)

func TestSTOf(t *testing.T) {
	for name, want := range map[string]string{"ST甲钢": "ST", "*ST乙科": "*ST", "S*ST丙": "*ST", "SST丁": "ST", " st戊 ": "ST",
		"平安银行": "", "STAR": "ST", "N丙": "", "": ""} {
		if got := secmaster.STOf(name); got != want {
			t.Errorf("STOf(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestBoard(t *testing.T) {
	for code, want := range map[string]string{"600000.SH": "main", "000001.SZ": "main", "002594.SZ": "main", "300750.SZ": "chinext",
		"688981.SH": "star", "430047.BJ": "bse", "920001.BJ": "bse", "000001.SH": "", "510300.SH": ""} {
		if got := secmaster.Board(market.MustCode(code)); got != want {
			t.Errorf("Board(%s) = %q, want %q", code, got, want)
		}
	}
}

// quoteList is a quote source whose list a test sets.
type quoteList struct{ qs []market.Quote }

func (q *quoteList) Quotes(context.Context) ([]market.Quote, error) { return q.qs, nil }

// The job records a trading day's list once, after the close only; the
// universe of a past day keeps a code delisted since, with its name and
// ST status of that day; a day not recorded is a not-found naming the
// recorded range.
func TestRecordedUniverseIsPointInTime(t *testing.T) {
	store := dbtest.Open(t)
	ctx := context.Background()
	clock := market.NewFixedClock(time.Date(2026, 11, 24, 14, 0, 0, 0, market.Shanghai()))
	list := &quoteList{}
	svc := secmaster.New(store, list, market.DefaultCalendar(), clock, secmaster.Config{RecordAfter: 15*60 + 5})
	q := func(code, name string, vol int64) market.Quote {
		return market.Quote{Code: market.MustCode(code), Name: name, Price: 10, Volume: vol}
	}
	list.qs = []market.Quote{q("600001.SH", "ST甲钢", 100), q("000002.SZ", "乙科", 0)}
	if err := svc.Record(ctx); err != nil {
		t.Fatal(err)
	}
	if _, _, err := svc.Universe(ctx, 20261124, secmaster.Filter{}); market.KindOf(err) != market.KindNotFound {
		t.Fatalf("before the close nothing is recorded; universe: %v", err)
	}
	clock.Set(time.Date(2026, 11, 24, 15, 10, 0, 0, market.Shanghai()))
	if err := svc.Record(ctx); err != nil {
		t.Fatal(err)
	}
	clock.Set(time.Date(2026, 11, 25, 15, 10, 0, 0, market.Shanghai()))
	list.qs = []market.Quote{q("000002.SZ", "乙科", 50)} // 600001 delisted
	if err := svc.Record(ctx); err != nil {
		t.Fatal(err)
	}
	u, rec, err := svc.Universe(ctx, 20261124, secmaster.Filter{})
	if err != nil || rec.First != 20261124 || rec.Last != 20261125 || len(u) != 2 {
		t.Fatalf("universe of 2026-11-24 = %+v, %+v, %v", u, rec, err)
	}
	if u[0].Code.Symbol != "000002" || !u[0].Suspended || u[1].Code.Symbol != "600001" || u[1].ST != "ST" || u[1].Name != "ST甲钢" {
		t.Errorf("2026-11-24: %+v", u)
	}
	yes := true
	if st, _, _ := svc.Universe(ctx, 20261124, secmaster.Filter{ST: &yes}); len(st) != 1 || st[0].Code.Symbol != "600001" {
		t.Errorf("st=true on 2026-11-24: %+v", st)
	}
	if u, _, _ := svc.Universe(ctx, 20261125, secmaster.Filter{}); len(u) != 1 || u[0].Suspended {
		t.Errorf("2026-11-25: %+v; want 000002 alone, trading", u)
	}
	_, _, err = svc.Universe(ctx, 20261120, secmaster.Filter{})
	if market.KindOf(err) != market.KindNotFound || !strings.Contains(err.Error(), "2026-11-24 to 2026-11-25") {
		t.Errorf("a day before the record: %v; want not found naming the recorded range", err)
	}
	h, err := svc.History(ctx, market.MustCode("600001.SH"))
	if err != nil || h.LastSeen != 20261124 || len(h.Spans) != 3 {
		t.Fatalf("history of 600001 = %+v, %v; want last seen 2026-11-24 and 3 spans", h, err)
	}
	if _, err := svc.History(ctx, market.MustCode("600999.SH")); market.KindOf(err) != market.KindNotFound {
		t.Errorf("a code never recorded: %v", err)
	}
	if err := store.ReplaceListingDays(ctx, "tdx", map[market.Code]market.Day{market.MustCode("000002.SZ"): 19910129}); err != nil {
		t.Fatal(err)
	}
	if u, _, _ := svc.Universe(ctx, 20261125, secmaster.Filter{}); u[0].Listed != (db.ListedOn{Day: 19910129, Source: "tdx"}) {
		t.Errorf("listing day from base.dbf: %+v", u[0].Listed)
	}
}

// history is a past the test writes: on each day, the codes listed then.
type history struct {
	on func(day market.Day) map[market.Code]string
}

func (h history) NamesOn(day market.Day) map[market.Code]string { return h.on(day) }

// DelistingDays: 600001 left before the days back-filled.
func (h history) DelistingDays() map[market.Code]market.Day {
	return map[market.Code]market.Day{market.MustCode("600001.SH"): 20261110}
}

// SuspendedOn: 000002 did not trade on 2026-11-20.
func (h history) SuspendedOn(day market.Day) map[market.Code]bool {
	return map[market.Code]bool{market.MustCode("000002.SZ"): day == 20261120}
}

func (h history) ListingDays() map[market.Code]market.Day {
	return map[market.Code]market.Day{market.MustCode("300003.SZ"): 20261119}
}

// A source that knows its past (the demo) back-fills the days before the
// first record, oldest first and only once; a listing within them starts
// the code's listed span there, and its listing day is stated.
func TestBackfillFromAPastTheSourceKnows(t *testing.T) {
	store := dbtest.Open(t)
	ctx := context.Background()
	clock := market.NewFixedClock(time.Date(2026, 11, 24, 10, 0, 0, 0, market.Shanghai()))
	calls := 0
	h := history{on: func(d market.Day) map[market.Code]string {
		calls++
		names := map[market.Code]string{market.MustCode("000002.SZ"): "ST乙科"}
		if d >= 20261119 {
			names[market.MustCode("300003.SZ")] = "N丙"
		}
		return names
	}}
	svc := secmaster.New(store, &quoteList{}, market.DefaultCalendar(), clock,
		secmaster.Config{RecordAfter: 15*60 + 5, History: h, BackfillDays: 5})
	if err := svc.Record(ctx); err != nil {
		t.Fatal(err)
	}
	rec, err := svc.Recorded(ctx)
	if err != nil || rec.First != 20261117 || rec.Last != 20261123 || rec.Count != 5 {
		t.Fatalf("recorded = %+v, %v; want the 5 trading days before 2026-11-24", rec, err)
	}
	first := calls // the 5 days, and the delisted code's last name
	if err := svc.Record(ctx); err != nil || calls != first || first != 6 {
		t.Fatalf("the first run asked the past %d times, the second %d, %v; want 6, then nothing more", first, calls-first, err)
	}
	tl, err := svc.History(ctx, market.MustCode("300003.SZ"))
	if err != nil || len(tl.Spans) == 0 || tl.Spans[0].First != 20261119 || tl.Listed.Day != 20261119 || tl.Listed.Source != secmaster.HistorySource {
		t.Fatalf("the stock listed on 2026-11-19: %+v, %v", tl, err)
	}
	if u, _, _ := svc.Universe(ctx, 20261118, secmaster.Filter{}); len(u) != 1 || u[0].ST != "ST" {
		t.Errorf("2026-11-18, before the listing: %+v; want 000002 alone, under its warning", u)
	}
	// A code delisted before the record starts: its delisting, as the
	// past states it, is its whole timeline.
	if tl, err := svc.History(ctx, market.MustCode("600001.SH")); err != nil || len(tl.Spans) != 0 ||
		tl.Delisted != (db.ListedOn{Day: 20261110, Source: secmaster.HistorySource}) {
		t.Errorf("600001, delisted 2026-11-10: %+v, %v", tl, err)
	}
	for day, want := range map[market.Day]bool{20261119: false, 20261120: true, 20261123: false} {
		if u, _, _ := svc.Universe(ctx, day, secmaster.Filter{}); len(u) != 2 || u[0].Suspended != want {
			t.Errorf("%v: %+v; want 000002 suspended %v", day, u, want)
		}
	}
}

// failingList is a list that cannot be had.
type failingList struct{}

func (failingList) Quotes(context.Context) ([]market.Quote, error) {
	return nil, errors.New("push2 etf: HTTP 502")
}

// The ETF list joins the day's record (the funds the A-share list leaves
// out, so the archive keeps their minutes): a fund the quote list has too
// is kept once, a row of another day is left out; a list that fails leaves
// the day recorded from the quote list, with an error naming it.
func TestRecordAddsTheETFList(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 11, 24, 15, 10, 0, 0, market.Shanghai())
	q := func(code, name string, when time.Time) market.Quote {
		return market.Quote{Code: market.MustCode(code), Name: name, Price: 4, Volume: 100, At: when}
	}
	stocks := &quoteList{qs: []market.Quote{q("600519.SH", "贵州茅台", at), q("510300.SH", "沪深300ETF", at)}}
	funds := &quoteList{qs: []market.Quote{q("510300.SH", "300ETF", at), q("159915.SZ", "创业板ETF", at),
		q("512880.SH", "证券ETF", at.AddDate(0, 0, -1))}}

	store := dbtest.Open(t)
	svc := secmaster.New(store, stocks, market.DefaultCalendar(), market.NewFixedClock(at),
		secmaster.Config{RecordAfter: 15*60 + 5, More: []secmaster.Quotes{funds}})
	if err := svc.Record(ctx); err != nil {
		t.Fatal(err)
	}
	u, _, err := svc.Universe(ctx, 20261124, secmaster.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range u {
		got[s.Code.String()] = s.Name
	}
	want := map[string]string{"600519.SH": "贵州茅台", "510300.SH": "沪深300ETF", "159915.SZ": "创业板ETF"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("the day's universe %v, want %v", got, want)
	}
	if f, _, _ := svc.Universe(ctx, 20261124, secmaster.Filter{Type: market.TypeFund}); len(f) != 2 {
		t.Errorf("funds of the day: %+v, want the two ETFs", f)
	}

	store2 := dbtest.Open(t)
	svc2 := secmaster.New(store2, stocks, market.DefaultCalendar(), market.NewFixedClock(at),
		secmaster.Config{RecordAfter: 15*60 + 5, More: []secmaster.Quotes{failingList{}}})
	err = svc2.Record(ctx)
	if err == nil || !strings.Contains(err.Error(), "HTTP 502") {
		t.Fatalf("a failing ETF list: %v, want its error", err)
	}
	if u, _, err := svc2.Universe(ctx, 20261124, secmaster.Filter{}); err != nil || len(u) != 2 {
		t.Fatalf("the day recorded without the ETFs: %d codes, %v; want the quote list's 2", len(u), err)
	}
}
