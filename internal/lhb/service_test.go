package lhb_test

import (
	"context"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"mdqs/db/dbtest"
	"mdqs/internal/demo"
	"mdqs/internal/lhb"
	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

// A Friday evening after the list is out.
var friday = market.Day(20261120)

func demoMarket(t *testing.T, clock market.Clock) *demo.Market {
	t.Helper()
	m, err := demo.New(demo.Config{Seed: 7, Stocks: 400}, clock)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// MergeSeats on the real 2024 buy list of 600611 (through the real
// client): ten rows are five seats, each with both reasons, the amounts
// kept once.
func TestMergeSeatsRealList(t *testing.T) {
	body, err := os.ReadFile("testdata/datacenter_lhb_dailydetailsbuy_600611_2024-07-16.json")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(body) }))
	defer srv.Close()
	c, err := upstream.NewLHB(upstream.LHBConfig{SourceConfig: upstream.SourceConfig{BaseURL: srv.URL, Rate: 1000, Burst: 100}},
		upstream.NewLimiters(), nil)
	if err != nil {
		t.Fatal(err)
	}
	rows, _, err := c.Seats(context.Background(), 20240716, market.MustCode("600611.SH"), upstream.LHBBuy, 1)
	if err != nil || len(rows) != 10 {
		t.Fatalf("Seats: %d rows, %v", len(rows), err)
	}
	seats := lhb.MergeSeats(rows)
	if len(seats) != 5 {
		t.Fatalf("MergeSeats = %d seats, want 5: %+v", len(seats), seats)
	}
	reasons := []string{"有价格涨跌幅限制的日收盘价格涨幅偏离值达到7%的前五只证券", "有价格涨跌幅限制的日换手率达到20%的前五只证券"}
	sum := 0.0
	for i, s := range seats {
		if s.Seq != i+1 || s.Side != "buy" || !slices.Equal(s.Reasons, reasons) || !math.IsNaN(s.Sell) {
			t.Errorf("seat %d %+v", i, s)
		}
		sum += s.Buy
	}
	if seats[0].SeatName != "国泰君安证券股份有限公司总部" || seats[0].Buy != 37521554.1 || math.Abs(seats[0].BuyPct-1.9000938125) > 1e-9 ||
		seats[4].SeatName != "国泰君安证券股份有限公司昆明人民中路证券营业部" {
		t.Errorf("ranking %+v", seats)
	}
	if want := 37521554.1 + 37045933 + 32388929.49 + 27223118 + 25337327; math.Abs(sum-want) > 0.01 {
		t.Errorf("sum of buys %.2f, want %.2f (each seat once)", sum, want)
	}
}

// Two 机构专用 seats under one reason stay two seats even with equal
// amounts; a seat whose amounts differ between a one-day and a three-day
// reason keeps a row per window.
func TestMergeSeatsKeepsDistinctTrades(t *testing.T) {
	nan := math.NaN()
	row := func(name, id, reason string, buy float64) upstream.LHBSeatRow {
		return upstream.LHBSeatRow{Day: 20260904, Code: market.MustCode("600127.SH"), Side: upstream.LHBBuy, SeatName: name, TradeID: id,
			Reason: reason, Buy: buy, Sell: nan, Net: buy}
	}
	got := lhb.MergeSeats([]upstream.LHBSeatRow{
		row("机构专用", "1", "d1", 100), row("机构专用", "1", "d1", 100), row("机构专用", "2", "d3", 100), row("机构专用", "2", "d3", 100),
		row("A", "1", "d1", 50), row("A", "2", "d3", 300),
	})
	if len(got) != 4 || got[0].SeatName != "A" || got[0].Buy != 300 || got[1].SeatName != "机构专用" || len(got[1].Reasons) != 2 ||
		len(got[2].Reasons) != 2 || got[3].Buy != 50 {
		t.Errorf("MergeSeats = %+v", got)
	}
}

// The demo's day imports whole: the day's record, its stocks with
// reasons, and seats merged to five a side; a second import replaces it.
func TestImportDemoDay(t *testing.T) {
	clock := market.NewFixedClock(friday.At(20, 0, 0))
	store := dbtest.Open(t)
	svc := lhb.New(lhb.Config{Source: demo.Source}, store, demoMarket(t, clock), market.DefaultCalendar(), clock, nil)
	ctx := context.Background()
	res, err := svc.Import(ctx, friday)
	if err != nil || res.Listings == 0 || res.Seats != 10*res.Stocks || res.SeatRows < res.Seats {
		t.Fatalf("Import = %+v, %v", res, err)
	}
	ans, err := svc.Day(ctx, friday, true)
	if err != nil || ans.Record.Listings != res.Listings || ans.Record.Source != demo.Source || len(ans.Stocks) != res.Stocks {
		t.Fatalf("Day = %+v, %v", ans.Record, err)
	}
	for _, st := range ans.Stocks {
		if len(st.Buy) != 5 || len(st.Sell) != 5 || len(st.Reasons) == 0 || len(st.Buy[0].Reasons) != len(st.Reasons) {
			t.Errorf("%v: %d reasons, %d buy seats, %d sell seats", st.Code, len(st.Reasons), len(st.Buy), len(st.Sell))
		}
	}
	if _, err := svc.Import(ctx, friday); err != nil {
		t.Fatal(err)
	}
	if again, _ := svc.Day(ctx, friday, true); len(again.Stocks) != len(ans.Stocks) {
		t.Errorf("re-import: %d stocks, want %d", len(again.Stocks), len(ans.Stocks))
	}
	// One stock's range and a seat's activity read the same rows.
	code := ans.Stocks[0].Code
	sa, err := svc.Stock(ctx, code, friday.AddDays(-10), friday)
	if err != nil || len(sa.Stocks) != 1 || sa.Imported != 1 || sa.TradingDays != 9 || len(sa.Missing) != 8 || sa.Latest != friday {
		t.Errorf("Stock = %+v, %v", sa.Coverage, err)
	}
	name := ans.Stocks[0].Buy[0].SeatName
	seat, err := svc.Seat(ctx, name, friday, friday, 1, 100)
	if err != nil || seat.Totals.Rows == 0 || seat.Totals.Buy <= 0 || seat.Items[0].SeatName != name {
		t.Errorf("Seat(%s) = %+v, %v", name, seat.Totals, err)
	}
}

// fakeSource answers the list with rows, nothing (9201), or an error.
type fakeSource struct {
	mu    sync.Mutex
	rows  []upstream.LHBListing
	err   error
	calls int
}

func (f *fakeSource) Listings(ctx context.Context, day market.Day, page int) ([]upstream.LHBListing, int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.err != nil {
		return nil, 0, f.err
	}
	return f.rows, min(1, len(f.rows)), nil
}

func (f *fakeSource) Seats(ctx context.Context, day market.Day, code market.Code, side upstream.LHBSide, page int) ([]upstream.LHBSeatRow, int, error) {
	if f.err != nil {
		return nil, 0, f.err
	}
	return []upstream.LHBSeatRow{{Day: day, Code: code, Side: side, SeatName: "机构专用", Reason: "r", TradeID: "1", Buy: 1, Sell: math.NaN()}}, 1, nil
}

// An empty answer after 18:00 is "not out yet" (nothing stored, asked
// again) until empty_final_after; then the day is recorded as having no
// list, which GET /lhb tells from a day not imported.
func TestEmptyDayIsRetriedThenFinal(t *testing.T) {
	clock := market.NewFixedClock(friday.At(18, 30, 0))
	store := dbtest.Open(t)
	src := &fakeSource{rows: []upstream.LHBListing{}}
	svc := lhb.New(lhb.Config{}, store, src, market.DefaultCalendar(), clock, nil)
	ctx := context.Background()
	if _, err := svc.Import(ctx, friday); !errors.Is(err, lhb.ErrNotPublished) {
		t.Fatalf("empty at 18:30: %v, want ErrNotPublished", err)
	}
	_, err := svc.Day(ctx, friday, false)
	if market.KindOf(err) != market.KindNotFound || !strings.Contains(err.Error(), "not imported yet") {
		t.Errorf("Day before the import: %v", err)
	}
	if err := svc.Job(ctx); err != nil {
		t.Errorf("Job with the list not out: %v, want nil (it asks again)", err)
	}
	clock.Set(friday.AddDays(1).At(0, 30, 0))
	if _, err := svc.Import(ctx, friday); err != nil {
		t.Fatalf("empty past the final time: %v", err)
	}
	ans, err := svc.Day(ctx, friday, false)
	if err != nil || ans.Record.Listings != 0 || len(ans.Stocks) != 0 {
		t.Errorf("a day without a list: %+v, %v", ans, err)
	}
}

// The source down: the import stores nothing and is the job's error; the
// day's query is 503 naming the source and the failure, never 404. Days
// the job does not reach, non-trading days and future days are 404s
// saying why.
func TestOutageIs503(t *testing.T) {
	clock := market.NewFixedClock(friday.At(19, 0, 0))
	store := dbtest.Open(t)
	src := &fakeSource{err: &upstream.Error{Kind: upstream.KindTransport, Source: upstream.SourceLHB, Path: "/api/data/v1/get"}}
	svc := lhb.New(lhb.Config{}, store, src, market.DefaultCalendar(), clock, nil)
	ctx := context.Background()
	err := svc.Job(ctx)
	if err == nil || !strings.Contains(err.Error(), "transport") {
		t.Fatalf("Job = %v, want the transport failure", err)
	}
	if days, _ := store.LHBDays(ctx, 0, 0); len(days) != 0 {
		t.Fatalf("stored %+v while the source failed", days)
	}
	_, err = svc.Day(ctx, friday, false)
	var me *market.Error
	if !errors.As(err, &me) || me.Kind != market.KindUnavailable || !strings.Contains(me.Detail, upstream.SourceLHB) ||
		!strings.Contains(me.Detail, "transport") || me.RetryAfter <= 0 {
		t.Errorf("Day while failing = %#v, want 503 naming %s", err, upstream.SourceLHB)
	}
	if _, err := svc.Stock(ctx, market.MustCode("600519.SH"), friday.AddDays(-7), friday); market.KindOf(err) != market.KindUnavailable {
		t.Errorf("Stock while failing: %v", err)
	}
	for _, tc := range []struct {
		day  market.Day
		want string
	}{
		{20261121, "not a trading day"},
		{20261123, "not published yet"},
		{20260105, "mdqs lhb backfill"},
	} {
		if _, err := svc.Day(ctx, tc.day, false); market.KindOf(err) != market.KindNotFound || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Day(%v) = %v, want 404 saying %q", tc.day, err, tc.want)
		}
	}
	if _, err := svc.Import(ctx, 20261121); market.KindOf(err) != market.KindInvalid {
		t.Errorf("Import of a Saturday: %v", err)
	}
}

// The job imports the last catch_up_days published trading days it does
// not hold, and asks nothing for days it holds; before 18:00 today is not
// due.
func TestJobCatchesUp(t *testing.T) {
	clock := market.NewFixedClock(friday.At(17, 0, 0))
	store := dbtest.Open(t)
	m := demoMarket(t, clock)
	svc := lhb.New(lhb.Config{Source: demo.Source, CatchUpDays: 3}, store, m, market.DefaultCalendar(), clock, nil)
	ctx := context.Background()
	if due := svc.Due(clock.Now()); !slices.Equal(due, []market.Day{20261117, 20261118, 20261119}) {
		t.Errorf("Due at 17:00 = %v", due)
	}
	if err := svc.Job(ctx); err != nil {
		t.Fatal(err)
	}
	days, _ := store.LHBDays(ctx, 0, 0)
	if len(days) != 3 || days[2].Day != 20261119 {
		t.Fatalf("after the job: %+v", days)
	}
	clock.Set(friday.At(18, 10, 0))
	if err := svc.Job(ctx); err != nil {
		t.Fatal(err)
	}
	if days, _ := store.LHBDays(ctx, 0, 0); len(days) != 4 || days[3].Day != friday {
		t.Errorf("after 18:00: %+v", days)
	}
	before := m.Status().Calls
	if err := svc.Job(ctx); err != nil || m.Status().Calls != before {
		t.Errorf("a job with every day held asked the source %d times, %v", m.Status().Calls-before, err)
	}
	// A backfill fills older days and skips the held ones.
	var got []market.Day
	err := svc.Backfill(ctx, 20261109, 20261118, false, func(r lhb.ImportResult, err error) { got = append(got, r.Day) })
	if err != nil || !slices.Equal(got, []market.Day{20261109, 20261110, 20261111, 20261112, 20261113, 20261116}) {
		t.Errorf("Backfill imported %v, %v", got, err)
	}
}
