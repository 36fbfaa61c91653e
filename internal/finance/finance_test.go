package finance_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/demo"
	"mdqs/internal/finance"
	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

var t0 = time.Date(2026, 11, 23, 10, 0, 0, 0, market.Shanghai())

// fakeDataCenter serves RPT_LICO_FN_CPD pages of n rows of 2024Q3 in the
// data centre's envelope, size per page, and can fail a page.
type fakeDataCenter struct {
	*httptest.Server
	mu       sync.Mutex
	n        int
	profit   float64
	failPage int
}

func newDataCenter(t *testing.T, n int) *fakeDataCenter {
	f := &fakeDataCenter{n: n, profit: 1e8}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeDataCenter) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	q := r.URL.Query()
	page, _ := strconv.Atoi(q.Get("pageNumber"))
	size, _ := strconv.Atoi(q.Get("pageSize"))
	if page == f.failPage {
		w.WriteHeader(http.StatusBadGateway)
		return
	}
	if !strings.Contains(q.Get("filter"), "(REPORTDATE='2024-09-30')") {
		fmt.Fprint(w, `{"version":null,"result":null,"success":false,"message":"返回数据为空","code":9201}`)
		return
	}
	var rows []string
	for i := (page - 1) * size; i < min(page*size, f.n); i++ {
		rows = append(rows, fmt.Sprintf(`{"SECUCODE":"%06d.SH","SECURITY_CODE":"%06d","SECURITY_NAME_ABBR":"公司%d","REPORTDATE":"2024-09-30 00:00:00","NOTICE_DATE":"2024-10-28 00:00:00","BASIC_EPS":0.5,"DEDUCT_BASIC_EPS":null,"TOTAL_OPERATE_INCOME":2e9,"PARENT_NETPROFIT":%v,"WEIGHTAVG_ROE":8.1,"YSTZ":3.5,"SJLTZ":"-","BPS":6.2,"MGJYXJJE":0.4,"XSMLL":25.5,"YSHZ":1.1,"SJLHZ":2.2,"PUBLISHNAME":"电力行业"}`,
			600000+i, 600000+i, i, f.profit))
	}
	pages := (f.n + size - 1) / size
	fmt.Fprintf(w, `{"version":"x","result":{"pages":%d,"data":[%s],"count":%d},"success":true,"message":"ok","code":0}`, pages, strings.Join(rows, ","), f.n)
}

func live(t *testing.T, f *fakeDataCenter) (*finance.Service, *db.Store) {
	t.Helper()
	cfg := upstream.DefaultFinanceConfig()
	cfg.BaseURL, cfg.Retries, cfg.Rate, cfg.Burst, cfg.PageSize = f.URL, -1, 1000, 1000, 10
	c, err := upstream.NewFinance(cfg, upstream.NewLimiters(), market.NewFixedClock(t0))
	if err != nil {
		t.Fatal(err)
	}
	store := dbtest.Open(t)
	return finance.New(finance.Config{}, store, c, market.NewFixedClock(t0), nil), store
}

func TestImportIsIdempotent(t *testing.T) {
	fake := newDataCenter(t, 25)
	svc, store := live(t, fake)
	ctx := context.Background()
	res, err := svc.Import(ctx, finance.ImportRequest{Period: 20240930})
	if err != nil || res.Pages != 3 || res.Total != 3 || res.Fetched != 25 || !res.Complete || res.Counts != (db.InfoCounts{Inserted: 25}) {
		t.Fatalf("first import %+v, %v", res, err)
	}
	res, err = svc.Import(ctx, finance.ImportRequest{Period: 20240930})
	if err != nil || res.Counts != (db.InfoCounts{Unchanged: 25}) {
		t.Fatalf("again %+v, %v", res, err)
	}
	fake.mu.Lock()
	fake.profit = 1.1e8 // restated
	fake.mu.Unlock()
	res, err = svc.Import(ctx, finance.ImportRequest{Period: 20240930})
	if err != nil || res.Counts != (db.InfoCounts{Updated: 25}) {
		t.Fatalf("restated %+v, %v", res, err)
	}
	rows, total, _ := store.Reports(ctx, db.ReportQuery{Period: 20240930})
	if total != 25 || rows[0].Code != market.MustCode("600000.SH") || rows[0].NetProfit != 1.1e8 || rows[0].Source != "datacenter" ||
		rows[0].NoticeDate != 20241028 || rows[0].Industry != "电力行业" {
		t.Errorf("stored %+v", rows[0])
	}
	if run, err := store.LastImport(ctx, finance.ImportKind, "2024Q3", true); err != nil || run.Updated != 25 {
		t.Errorf("run %+v, %v", run, err)
	}
	// Reports not out yet: a complete import of nothing.
	res, err = svc.Import(ctx, finance.ImportRequest{Period: 20241231})
	if err != nil || !res.Complete || res.Fetched != 0 {
		t.Errorf("empty period %+v, %v", res, err)
	}
	if _, err := svc.Import(ctx, finance.ImportRequest{}); market.KindOf(err) != market.KindInvalid {
		t.Errorf("no period or code: %v", err)
	}
}

func TestImportPartialFailure(t *testing.T) {
	fake := newDataCenter(t, 25)
	fake.failPage = 2
	svc, store := live(t, fake)
	ctx := context.Background()
	res, err := svc.Import(ctx, finance.ImportRequest{Period: 20240930})
	if err != nil || res.Complete || len(res.Failures) != 1 || res.Failures[0].Page != 2 || res.Counts.Inserted != 10 {
		t.Fatalf("result %+v, %v", res, err)
	}
	if _, total, _ := store.Reports(ctx, db.ReportQuery{}); total != 10 {
		t.Errorf("stored %d rows, want page 1's 10", total)
	}
	fake.failPage = 1
	if _, err := svc.Import(ctx, finance.ImportRequest{Period: 20240930}); market.KindOf(err) != market.KindUnavailable {
		t.Errorf("first page failing: %v", err)
	}
	if err := svc.Job(ctx); err == nil {
		t.Error("the job hides a failing upstream")
	}
}

func TestRecentPeriods(t *testing.T) {
	for _, tc := range []struct {
		day  market.Day
		n    int
		want string
	}{
		{20261123, 2, "[2026-09-30 2026-06-30]"},
		{20270415, 2, "[2027-03-31 2026-12-31]"},
		{20261231, 3, "[2026-12-31 2026-09-30 2026-06-30]"},
		{20260101, 1, "[2025-12-31]"},
	} {
		if got := fmt.Sprint(finance.RecentPeriods(tc.day, tc.n)); got != tc.want {
			t.Errorf("RecentPeriods(%v, %d) = %s, want %s", tc.day, tc.n, got, tc.want)
		}
	}
}

func TestDemoImportAndQuery(t *testing.T) {
	clock := market.NewFixedClock(t0)
	m, err := demo.New(demo.Config{Seed: 3, Stocks: 300, Industries: 20, Concepts: 40}, clock)
	if err != nil {
		t.Fatal(err)
	}
	svc := finance.New(finance.Config{Source: demo.Source}, dbtest.Open(t), m, clock, nil)
	ctx := context.Background()
	if _, err := svc.Query(ctx, finance.Query{Page: 1, PageSize: 20}); market.KindOf(err) != market.KindNotFound {
		t.Fatalf("empty: %v", err)
	}
	if err := svc.Job(ctx); err != nil {
		t.Fatal(err)
	}
	latest, err := svc.Query(ctx, finance.Query{Page: 1, PageSize: 20})
	if err != nil || latest.Period != 20260930 || latest.Total < 250 || len(latest.Items) != 20 || latest.Items[0].Source != "demo" {
		t.Fatalf("latest period: %+v, %v", latest.Period, err)
	}
	code := latest.Items[3].Code
	one, err := svc.Query(ctx, finance.Query{Codes: []market.Code{code}, Page: 1, PageSize: 20})
	if err != nil || one.Total != 2 || one.Items[0].Period != 20260930 || one.Items[1].Period != 20260630 {
		t.Fatalf("one stock (the job imported two periods): %+v, %v", one, err)
	}
	if _, err := svc.Import(ctx, finance.ImportRequest{Code: code}); err != nil {
		t.Fatal(err)
	}
	hist, err := svc.Query(ctx, finance.Query{Codes: []market.Code{code}, From: 20250101, To: 20251231, Page: 1, PageSize: 20})
	if err != nil || hist.Total != 4 || hist.Items[0].Period != 20251231 || hist.Items[3].Period != 20250331 {
		t.Fatalf("a year of one stock: %+v, %v", hist, err)
	}
	for _, q := range []finance.Query{
		{Period: 20260930, From: 20250101, Page: 1, PageSize: 10},
		{From: 20260930, To: 20250101, Page: 1, PageSize: 10},
		{Page: 0, PageSize: 10},
		{Page: 1, PageSize: 101},
	} {
		if _, err := svc.Query(ctx, q); market.KindOf(err) != market.KindInvalid {
			t.Errorf("Query(%+v) = %v, want invalid", q, err)
		}
	}
	if _, err := svc.Query(ctx, finance.Query{Period: 20100331, Page: 1, PageSize: 10}); market.KindOf(err) != market.KindNotFound {
		t.Errorf("a period with nothing: %v", err)
	}
}
