package screener_test

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/demo"
	"mdqs/internal/market"
	"mdqs/internal/quote"
	"mdqs/internal/screener"
	"mdqs/internal/secmaster"
)

// pastFixture is a demo market whose security master has recorded the 200
// sessions before 2026-06-01, its frame reading the demo's history, and a
// queue over it.
type pastFixture struct {
	dm    *demo.Market
	sec   *secmaster.Service
	store *db.Store
	clock *market.FixedClock
	frame *screener.Frame
	queue *screener.Queue
}

func newPastFixture(t *testing.T) *pastFixture {
	t.Helper()
	cal := market.DefaultCalendar()
	clock := market.NewFixedClock(time.Date(2026, 6, 1, 16, 0, 0, 0, market.Shanghai()))
	// Seed 5 delists 300274.SZ on 2026-04-22.
	dm, err := demo.New(demo.Config{Seed: 5, Stocks: 300, Industries: 20, Concepts: 40, Calendar: cal}, clock)
	if err != nil {
		t.Fatal(err)
	}
	store := dbtest.Open(t)
	// The demo's gbbq, as the demo terminal's import stores it: the
	// listing records carry the share counts.
	var actions []db.Action
	for _, s := range dm.Stocks() {
		for _, e := range dm.Actions(s.Code) {
			actions = append(actions, db.Action{Code: e.Code, Day: e.Day, Category: int(e.Category),
				F: e.F, Source: "demo"})
		}
	}
	if _, err := store.ReplaceActions(context.Background(), "demo", actions); err != nil {
		t.Fatal(err)
	}
	quotes := quote.New(dm, dm, cal, clock, quote.Config{Age: time.Minute, Source: "demo"})
	sec := secmaster.New(store, quotes, cal, clock, secmaster.Config{RecordAfter: 15*60 + 5, History: dm, BackfillDays: 200})
	if err := sec.Record(context.Background()); err != nil {
		t.Fatal(err)
	}
	frame := screener.NewFrame(store, quotes, nil, nil, cal, clock, 0)
	frame.ReadHistoryFrom(dm)
	frame.ReadPastFrom(sec)
	q := screener.NewQueue(store, frame, clock, quiet(), defaultConfig())
	if err := q.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(q.Stop)
	return &pastFixture{dm: dm, sec: sec, store: store, clock: clock, frame: frame, queue: q}
}

// A screen of a past date screens that day's universe at that day's close:
// a stock delisted since is in it, with its prices of the day, and the
// indicators are those of the bars through that day.
func TestScreenOfAPastDateScreensThatDaysUniverse(t *testing.T) {
	f := newPastFixture(t)
	ctx := context.Background()
	gone := market.MustCode("300274.SZ")
	if f.dm.DelistingDays()[gone] != 20260422 {
		t.Fatalf("the fixture's market delists %v; want 300274.SZ on 2026-04-22", f.dm.DelistingDays())
	}
	day := market.Day(20260421) // its last session
	past, err := f.frame.RowsOn(ctx, day)
	if err != nil {
		t.Fatal(err)
	}
	now, err := f.frame.Rows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byCode := map[string]screener.Row{}
	for _, r := range past {
		byCode[r.Code] = r
	}
	if _, ok := byCode[gone.String()]; !ok {
		t.Fatalf("the screen of %v lacks %v, listed that day", day, gone)
	}
	if slices.ContainsFunc(now, func(r screener.Row) bool { return r.Code == gone.String() }) {
		t.Fatalf("today's screen has %v, delisted on 2026-04-22", gone)
	}
	want := 0 // the stocks of the day's universe: a screen screens stocks, not the ETFs beside them
	for code := range f.dm.NamesOn(day) {
		if market.Classify(code) == market.TypeStock {
			want++
		}
	}
	if len(past) != want {
		t.Fatalf("%d rows on %v; the market listed %d stocks", len(past), day, want)
	}
	checked := 0
	for _, code := range []market.Code{gone, codeOf(t, past[0]), codeOf(t, past[len(past)/2])} {
		r := byCode[code.String()]
		bars, err := f.dm.Klines(ctx, code, market.Daily, 20260101, day)
		if err != nil {
			t.Fatal(err)
		}
		if len(bars) < 21 || bars[len(bars)-1].Day != day {
			continue // suspended that day, or too new
		}
		checked++
		last, prev := bars[len(bars)-1], bars[len(bars)-2]
		sum := 0.0
		for _, b := range bars[len(bars)-5:] {
			sum += b.Close
		}
		if r.Price != last.Close || r.PrevClose != prev.Close || r.High != last.High || r.Volume != float64(last.Volume) ||
			math.Abs(r.Pct-(last.Close/prev.Close-1)*100) > 1e-9 || math.Abs(r.MA5-sum/5) > 1e-9 {
			t.Fatalf("%v on %v: row %+v; the bars say close %v prev %v high %v volume %v ma5 %v", code, day, r, last.Close, prev.Close, last.High, last.Volume, sum/5)
		}
		if r.Name != f.dm.NamesOn(day)[code] {
			t.Fatalf("%v named %q in the screen; %q that day", code, r.Name, f.dm.NamesOn(day)[code])
		}
		if !math.IsNaN(r.PE) || !math.IsNaN(r.MainNet) || !math.IsNaN(r.HotRank) || !math.IsNaN(r.AvgCost) {
			t.Fatalf("%v: fields no store keeps as of %v are known: %+v", code, day, r)
		}
	}
	if checked == 0 {
		t.Fatal("no stock traded that day to compare")
	}
	// The turnover rate and market values come from the share counts in
	// force that day; without a record they are unknown.
	secs, _, err := f.sec.Universe(ctx, day, secmaster.Filter{Type: market.TypeStock})
	if err != nil {
		t.Fatal(err)
	}
	withShares, without := 0, 0
	for _, s := range secs {
		r := byCode[s.Code.String()]
		switch {
		case math.IsNaN(r.Price):
		case s.Shares.Float > 0:
			withShares++
			want := math.Round(r.Volume/float64(s.Shares.Float)*1e4) / 100
			if r.Turnover != want || r.FloatCap != r.Price*float64(s.Shares.Float) || r.MarketCap != r.Price*float64(s.Shares.Total) {
				t.Fatalf("%v: turnover %v float cap %v market cap %v; the shares of %v (%+v) give %v", s.Code, r.Turnover, r.FloatCap, r.MarketCap, day, s.Shares, want)
			}
		default:
			without++
			if !math.IsNaN(r.Turnover) || !math.IsNaN(r.FloatCap) {
				t.Fatalf("%v has no share record by %v, yet turnover %v float cap %v", s.Code, day, r.Turnover, r.FloatCap)
			}
		}
	}
	if withShares == 0 || without == 0 {
		t.Fatalf("%d stocks with share records, %d without: want both cases", withShares, without)
	}

	// Through the queue: universe.date, and its mistakes refused at submit.
	job, _, err := f.queue.Submit(ctx, "a", screener.Submission{Expression: `code == "300274.SZ" && price > 0`,
		Universe: screener.Universe{Date: day.String()}, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for job.State != db.JobSucceeded && job.State != db.JobFailed && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
		if job, err = f.queue.Status(ctx, "a", job.ID); err != nil {
			t.Fatal(err)
		}
	}
	_, res, err := f.queue.Results(ctx, "a", job.ID, 1, 10)
	if err != nil || job.State != db.JobSucceeded || len(res) != 1 || res[0].Code != gone.String() {
		t.Fatalf("screen of %v: %s %s, %+v, %v", day, job.State, job.Error, res, err)
	}
	for _, c := range []struct {
		date string
		kind market.Kind
	}{
		{"2026-04-18", market.KindInvalid},  // a Saturday
		{"2026-06-01", market.KindInvalid},  // today: leave the date out
		{"2026-13-01", market.KindInvalid},  // no such day
		{"2025-01-02", market.KindNotFound}, // before the record
	} {
		_, _, err := f.queue.Submit(ctx, "a", screener.Submission{Expression: "price > 0", Universe: screener.Universe{Date: c.date}})
		if market.KindOf(err) != c.kind {
			t.Errorf("universe.date %s: %v; want %v", c.date, err, c.kind)
		}
	}
}

// Stocks listed after the date are not in its screen.
func TestScreenOfAPastDateLeavesOutLaterListings(t *testing.T) {
	f := newPastFixture(t)
	ctx := context.Background()
	first, err := f.frame.RowsOn(ctx, 20251103)
	if err != nil {
		t.Fatal(err)
	}
	listed := f.dm.ListingDays()
	for _, r := range first {
		if d := listed[codeOf(t, r)]; d > 20251103 {
			t.Fatalf("%s listed %v is in the screen of 2025-11-03", r.Code, d)
		}
	}
	n := 0
	for _, d := range listed {
		if d <= 20251103 {
			n++
		}
	}
	if n-len(f.dm.DelistingDays()) > len(first) || len(first) > n {
		t.Fatalf("%d rows; %d stocks listed by then, %d of the market's delisted at some time", len(first), n, len(f.dm.DelistingDays()))
	}
}

func codeOf(t *testing.T, r screener.Row) market.Code {
	t.Helper()
	c, err := market.ParseCode(r.Code)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
