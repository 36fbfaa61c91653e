package upstream

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"mdqs/internal/market"
)

func newTestFinance(t *testing.T, base string) *Finance {
	t.Helper()
	c, err := NewFinance(FinanceConfig{SourceConfig: testSource(base)}, NewLimiters(), market.NewFixedClock(testNow()))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func checkReport(t *testing.T, got, want FinanceReport) {
	t.Helper()
	if got.Code != want.Code || got.Name != want.Name || got.Period != want.Period || got.NoticeDate != want.NoticeDate ||
		got.Industry != want.Industry {
		t.Errorf("report %s: got %+v\nwant %+v", want.Code, got, want)
	}
	for _, f := range []struct {
		n    string
		g, w float64
	}{
		{"Revenue", got.Revenue, want.Revenue}, {"RevenueYoY", got.RevenueYoY, want.RevenueYoY}, {"RevenueQoQ", got.RevenueQoQ, want.RevenueQoQ},
		{"NetProfit", got.NetProfit, want.NetProfit}, {"NetProfitYoY", got.NetProfitYoY, want.NetProfitYoY},
		{"NetProfitQoQ", got.NetProfitQoQ, want.NetProfitQoQ}, {"EPS", got.EPS, want.EPS}, {"EPSDeducted", got.EPSDeducted, want.EPSDeducted},
		{"BPS", got.BPS, want.BPS}, {"ROE", got.ROE, want.ROE}, {"GrossMargin", got.GrossMargin, want.GrossMargin},
		{"OCFPerShare", got.OCFPerShare, want.OCFPerShare},
	} {
		checkF(t, want.Code.String()+" "+f.n, f.g, f.w)
	}
}

func TestFinanceReportsPages(t *testing.T) {
	srv, rec := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		write(w, 200, jsonCT, fixture(t, "made_datacenter_yjbb_2020Q2_p"+r.URL.Query().Get("pageNumber")+".json"))
	})
	c := newTestFinance(t, srv.URL)
	rows, pages, err := c.Reports(context.Background(), FinanceQuery{Period: 20200630}, 1)
	if err != nil || pages != 2 || len(rows) != 2 {
		t.Fatalf("page 1: %d rows of %d pages, %v", len(rows), pages, err)
	}
	// The real 2020 row: no SECUCODE, so the exchange comes from the code.
	checkReport(t, rows[0], FinanceReport{Code: market.MustCode("300344.SZ"), Name: "太空智造", Period: 20200630, NoticeDate: 20200828,
		Revenue: 76755948.04, RevenueYoY: -65.0955787682, RevenueQoQ: 47.8119, NetProfit: -42325660, NetProfitYoY: -444.03,
		NetProfitQoQ: -11.9622, EPS: -0.0874, EPSDeducted: -0.0893, BPS: 1.230604809575, ROE: -6.55, GrossMargin: 23.9988262283,
		OCFPerShare: -0.027835091109, Industry: "软件服务"})
	// null and "-" are unknown, never zero; SECUCODE gives BJ.
	checkReport(t, rows[1], FinanceReport{Code: market.MustCode("430047.BJ"), Name: "诺思兰德", Period: 20200630, NoticeDate: 20200825,
		Revenue: 18345000.5, RevenueYoY: nan, RevenueQoQ: nan, NetProfit: -15230000, NetProfitYoY: nan, NetProfitQoQ: nan,
		EPS: -0.12, EPSDeducted: nan, BPS: 2.31, ROE: -5.2, GrossMargin: 58.6, OCFPerShare: -0.09, Industry: "生物制品"})
	q := rec.req(0).URL.Query()
	if rec.req(0).URL.Path != "/api/data/v1/get" || q.Get("reportName") != "RPT_LICO_FN_CPD" || q.Get("columns") != "ALL" ||
		q.Get("filter") != `(SECURITY_TYPE_CODE="058001001")(REPORTDATE='2020-06-30')` || q.Get("pageSize") != "500" || q.Get("pageNumber") != "1" {
		t.Errorf("request %s", rec.req(0).URL)
	}
	rows, _, err = c.Reports(context.Background(), FinanceQuery{Period: 20200630}, 2)
	if err != nil || len(rows) != 1 {
		t.Fatalf("page 2: %+v, %v (the B share must be skipped)", rows, err)
	}
	checkReport(t, rows[0], FinanceReport{Code: market.MustCode("600519.SH"), Name: "贵州茅台", Period: 20200630, NoticeDate: 20200729,
		Revenue: 45644400000, RevenueYoY: 10.84, RevenueQoQ: -8.29, NetProfit: 22176800000, NetProfitYoY: 13.3, NetProfitQoQ: -17.82,
		EPS: 17.66, EPSDeducted: 17.69, BPS: 123.7, ROE: 14.1, GrossMargin: 91.3, OCFPerShare: 3.82, Industry: "酿酒行业"})
	if st := c.Status(); st.Calls != 2 || st.Failures != 0 || st.Drift != "" {
		t.Errorf("status %+v", st)
	}
}

func TestFinanceReportsOneCode(t *testing.T) {
	srv, rec := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		write(w, 200, jsonCT, fixture(t, "made_datacenter_empty_9201.json"))
	})
	c := newTestFinance(t, srv.URL)
	rows, pages, err := c.Reports(context.Background(), FinanceQuery{Code: market.MustCode("600519.SH")}, 1)
	// 9201 "返回数据为空" is an answer: nothing matched.
	if err != nil || pages != 0 || len(rows) != 0 {
		t.Fatalf("9201: %+v %d %v", rows, pages, err)
	}
	if f := rec.req(0).URL.Query().Get("filter"); f != `(SECURITY_TYPE_CODE="058001001")(SECURITY_CODE="600519")` {
		t.Errorf("filter %s", f)
	}
}

func TestFinanceBrokenReplies(t *testing.T) {
	for _, tc := range []struct {
		name     string
		file     string
		kind     Kind
		field    string
		requests int
	}{
		{"9501 bad report", "made_datacenter_bad_report_9501.json", KindRC, "", 1},
		{"income renamed", "made_datacenter_yjbb_renamed_income.json", KindSchema, "TOTAL_OPERATE_INCOME", 1},
		{"not a quarter end", "made_datacenter_yjbb_not_quarter_end.json", KindSchema, "REPORTDATE", 1},
		{"truncated, retried", "made_datacenter_yjbb_2020Q2_p1_truncated.json", KindTruncated, "", 3},
		{"another API's shape", "made_em_fastnews_page.json", KindRC, "", 1},
		{"html", "made_nginx_502.html", KindHTML, "", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, rec := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) {
				ct := jsonCT
				if strings.HasSuffix(tc.file, ".html") {
					ct = "text/html"
				}
				write(w, 200, ct, fixture(t, tc.file))
			})
			c := newTestFinance(t, srv.URL)
			rows, _, err := c.Reports(context.Background(), FinanceQuery{Period: 20200630}, 1)
			e := wantErr(t, err, tc.kind, tc.requests, tc.field)
			if rows != nil || rec.count() != tc.requests {
				t.Errorf("rows %v after %d requests", rows, rec.count())
			}
			if tc.name == "9501 bad report" && (e.RC != 9501 || !strings.Contains(e.Detail, "报表配置不存在")) {
				t.Errorf("RC error %+v", e)
			}
		})
	}
}

func TestPeriods(t *testing.T) {
	for in, want := range map[string]market.Day{
		"2024Q3": 20240930, "2024q1": 20240331, "2023Q4": 20231231, "2024Q2": 20240630, "2024-09-30": 20240930, "20241231": 20241231,
	} {
		got, err := PeriodOf(in)
		if err != nil || got != want {
			t.Errorf("PeriodOf(%q) = %v, %v; want %v", in, got, err, want)
		}
		if name := PeriodName(got); name[:4] != in[:4] {
			t.Errorf("PeriodName(%v) = %s", got, name)
		}
	}
	for _, bad := range []string{"", "2024Q5", "2024Q0", "2024-09-29", "1889Q1", "24Q3", "2024H1", "Q32024"} {
		if d, err := PeriodOf(bad); err == nil {
			t.Errorf("PeriodOf(%q) = %v, want an error", bad, d)
		}
	}
	if PeriodName(20240930) != "2024Q3" || PeriodName(20241231) != "2024Q4" || PeriodName(20240331) != "2024Q1" {
		t.Error("PeriodName")
	}
}
