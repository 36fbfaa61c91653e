package api

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

type reportAnswer struct {
	Items []struct {
		StockCode   string   `json:"stock_code"`
		StockName   string   `json:"stock_name"`
		Period      string   `json:"period"`
		ReportDate  string   `json:"report_date"`
		NoticeDate  *string  `json:"notice_date"`
		Revenue     *float64 `json:"revenue"`
		NetProfit   *float64 `json:"net_profit"`
		EPS         *float64 `json:"eps"`
		ROE         *float64 `json:"roe"`
		GrossMargin *float64 `json:"gross_margin"`
		Industry    string   `json:"industry"`
		Source      string   `json:"source"`
	} `json:"items"`
	Total    int     `json:"total"`
	Page     int     `json:"page"`
	PageSize int     `json:"page_size"`
	Period   *string `json:"period"`
}

func TestFinancialReportsEndpoint(t *testing.T) {
	h := newInfoHarness(t)
	h.get("/v1/api/financial-reports").expect(t, 404, "not found")
	if err := h.api.Info.Finance.Job(context.Background()); err != nil { // 2026Q3 and 2026Q2, as the job runs
		t.Fatal(err)
	}
	r := h.get("/v1/api/financial-reports")
	r.expect(t, 200, "OK")
	latest := decode[reportAnswer](t, r)
	if latest.Period == nil || *latest.Period != "2026Q3" || latest.Total < 350 || len(latest.Items) != 20 || latest.PageSize != 20 {
		t.Fatalf("latest period: %v total %d items %d", latest.Period, latest.Total, len(latest.Items))
	}
	x := latest.Items[0]
	if x.Period != "2026Q3" || x.ReportDate != "2026-09-30" || x.NoticeDate == nil || x.Revenue == nil || x.EPS == nil || x.ROE == nil ||
		x.Source != "demo" || x.StockName == "" || x.Industry == "" {
		t.Errorf("item %+v", x)
	}
	for _, f := range []string{`"revenue_yoy":`, `"net_profit_qoq":`, `"eps_deducted":`, `"bps":`, `"ocf_per_share":`, `"updated_at":`} {
		if !strings.Contains(string(r.data), f) {
			t.Errorf("field %s missing", f)
		}
	}
	// One stock, both periods, newest first; the same by period.
	one := decode[reportAnswer](t, h.get("/v1/api/financial-reports?stock_code="+x.StockCode))
	if one.Total != 2 || one.Items[0].Period != "2026Q3" || one.Items[1].Period != "2026Q2" || one.Period != nil {
		t.Errorf("one stock: %+v", one)
	}
	q2 := decode[reportAnswer](t, h.get("/v1/api/financial-reports?period=2026-06-30&stock_code="+x.StockCode))
	if q2.Total != 1 || q2.Items[0].Period != "2026Q2" || *q2.Period != "2026Q2" {
		t.Errorf("period by its day: %+v", q2)
	}
	rng := decode[reportAnswer](t, h.get("/v1/api/financial-reports?start_period=2026Q2&end_period=2026Q2&page_size=100&page=2"))
	if rng.Total != listedBy(h, "2026-06-30") || rng.Total > latest.Total || rng.Page != 2 || len(rng.Items) == 0 || rng.Items[0].Period != "2026Q2" {
		t.Errorf("range: total %d page %d", rng.Total, rng.Page)
	}
	// A bank reports no gross margin: null, never 0.
	var raw struct {
		Items []map[string]json.RawMessage `json:"items"`
	}
	for p := 1; p <= (latest.Total+99)/100; p++ {
		var more struct {
			Items []map[string]json.RawMessage `json:"items"`
		}
		json.Unmarshal(h.get("/v1/api/financial-reports?page_size=100&page="+strconv.Itoa(p)).data, &more)
		raw.Items = append(raw.Items, more.Items...)
	}
	if len(raw.Items) != latest.Total {
		t.Fatalf("paged through %d of %d rows", len(raw.Items), latest.Total)
	}
	banks := 0
	for _, it := range raw.Items {
		if string(it["industry"]) == `"银行"` {
			banks++
			if string(it["gross_margin"]) != "null" {
				t.Errorf("bank %s gross_margin %s", it["stock_code"], it["gross_margin"])
			}
		}
	}
	if banks == 0 {
		t.Fatal("no bank in the test market: the null check did not run")
	}
	for _, tc := range []struct {
		query   string
		status  int
		message string
	}{
		{"period=2026Q5", 400, "missing or invalid params"},
		{"period=2026-09-29", 400, "missing or invalid params"},
		{"period=2026Q3&start_period=2026Q1", 400, "missing or invalid params"},
		{"start_period=2026Q3&end_period=2026Q1", 400, "missing or invalid params"},
		{"page_size=101", 400, "missing or invalid params"},
		{"stock_code=60051", 400, "missing or invalid params"},
		{"period=2019Q1", 404, "not found"},
		{"stock_code=000002.SZ", 404, "not found"},
	} {
		r := h.get("/v1/api/financial-reports?" + tc.query)
		r.expect(t, tc.status, tc.message)
		if r.detail == "" {
			t.Errorf("%s: no detail", tc.query)
		}
	}
	h.addClient("news-only", "secret-n", clientOpts{scopes: "news"})
	h.signed("GET", "/v1/api/financial-reports", h.token("news-only", "secret-n"), nil).expect(t, 403, "forbidden")
}

// listedBy counts the demo stocks listed on or before day: those with a
// report of the period ending that day.
func listedBy(h *infoHarness, day string) int {
	n := 0
	for _, s := range h.demo.Stocks() {
		if s.Listed.String() <= day {
			n++
		}
	}
	return n
}
