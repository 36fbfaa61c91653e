package db_test

import (
	"context"
	"math"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/market"
)

func report(code string, period market.Day, revenue float64) db.ReportRecord {
	return db.ReportRecord{Code: market.MustCode(code), Name: "n" + code, Period: period, NoticeDate: period.AddDays(30),
		Revenue: revenue, RevenueYoY: 12.5, RevenueQoQ: math.NaN(), NetProfit: revenue / 10, NetProfitYoY: -3.25, NetProfitQoQ: 1,
		EPS: 0.5, EPSDeducted: math.NaN(), BPS: 6.1, ROE: 8.2, GrossMargin: 30, OCFPerShare: 0.7, Industry: "酿酒行业", Source: "datacenter"}
}

func TestReportsUpsertIsIdempotent(t *testing.T) {
	s := dbtest.Open(t)
	ctx := context.Background()
	rows := []db.ReportRecord{report("600519.SH", 20240930, 1.2e11), report("000001.SZ", 20240930, 1e11), report("600519.SH", 20240630, 8e10)}
	c, err := s.UpsertReports(ctx, rows, infoNow)
	if err != nil || c != (db.InfoCounts{Inserted: 3}) {
		t.Fatalf("first: %+v, %v", c, err)
	}
	c, err = s.UpsertReports(ctx, rows, infoNow.Add(time.Hour))
	if err != nil || c != (db.InfoCounts{Unchanged: 3}) {
		t.Fatalf("again (NaN must equal a stored NULL): %+v, %v", c, err)
	}
	restated := rows[0]
	restated.NetProfit, restated.EPSDeducted = 1.3e10, 0.48
	c, err = s.UpsertReports(ctx, []db.ReportRecord{restated}, infoNow.Add(2*time.Hour))
	if err != nil || c != (db.InfoCounts{Updated: 1}) {
		t.Fatalf("restated: %+v, %v", c, err)
	}
	got, total, err := s.Reports(ctx, db.ReportQuery{Codes: []market.Code{market.MustCode("600519.SH")}})
	if err != nil || total != 2 || got[0].Period != 20240930 || got[1].Period != 20240630 {
		t.Fatalf("600519: %+v (%d), %v", got, total, err)
	}
	r := got[0]
	if r.NetProfit != 1.3e10 || r.EPSDeducted != 0.48 || !math.IsNaN(r.RevenueQoQ) || r.Revenue != 1.2e11 || r.NoticeDate != 20241030 ||
		r.Industry != "酿酒行业" || r.Source != "datacenter" || r.Name != "n600519.SH" || !r.UpdatedAt.Equal(infoNow.Add(2*time.Hour)) {
		t.Errorf("row %+v", r)
	}
	if got[1].NoticeDate != 20240730 || !got[1].UpdatedAt.Equal(infoNow) {
		t.Errorf("untouched row %+v", got[1])
	}
	unknownNotice := report("300750.SZ", 20240930, 1)
	unknownNotice.NoticeDate = 0
	if _, err := s.UpsertReports(ctx, []db.ReportRecord{unknownNotice}, infoNow); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := s.Reports(ctx, db.ReportQuery{Codes: []market.Code{unknownNotice.Code}}); len(got) != 1 || got[0].NoticeDate != 0 {
		t.Errorf("unknown notice date: %+v", got)
	}
}

func TestReportQueries(t *testing.T) {
	s := dbtest.Open(t)
	ctx := context.Background()
	if _, err := s.LatestReportPeriod(ctx); market.KindOf(err) != market.KindNotFound {
		t.Fatalf("empty: %v", err)
	}
	var rows []db.ReportRecord
	for _, p := range []market.Day{20231231, 20240331, 20240630, 20240930} {
		for _, c := range []string{"600519.SH", "000001.SZ", "830799.BJ"} {
			rows = append(rows, report(c, p, 1e9))
		}
	}
	if _, err := s.UpsertReports(ctx, rows[:len(rows)-1], infoNow); err != nil { // 830799 has no 2024Q3
		t.Fatal(err)
	}
	key := func(rs []db.ReportRecord) []string {
		out := make([]string, len(rs))
		for i, r := range rs {
			out[i] = r.Code.Symbol + "@" + r.Period.Compact()
		}
		return out
	}
	tests := []struct {
		name  string
		q     db.ReportQuery
		total int
		want  []string
	}{
		{"a period, by code", db.ReportQuery{Period: 20240930}, 2, []string{"000001@20240930", "600519@20240930"}},
		{"a code, newest first, paged", db.ReportQuery{Codes: []market.Code{market.MustCode("830799.BJ")}, Limit: 2}, 3,
			[]string{"830799@20240630", "830799@20240331"}},
		{"a range", db.ReportQuery{From: 20240331, To: 20240630, Codes: []market.Code{market.MustCode("600519.SH")}}, 2,
			[]string{"600519@20240630", "600519@20240331"}},
		{"two codes, one period", db.ReportQuery{Period: 20231231, Codes: []market.Code{market.MustCode("830799.BJ"), market.MustCode("600519.SH")}}, 2,
			[]string{"600519@20231231", "830799@20231231"}},
		{"offset", db.ReportQuery{Period: 20231231, Offset: 2, Limit: 5}, 3, []string{"830799@20231231"}},
		{"nothing", db.ReportQuery{Period: 20221231}, 0, []string{}},
	}
	for _, tt := range tests {
		got, total, err := s.Reports(ctx, tt.q)
		if err != nil || total != tt.total || !sameStrings(key(got), tt.want) {
			t.Errorf("%s: %v (%d), %v; want %v (%d)", tt.name, key(got), total, err, tt.want, tt.total)
		}
	}
	if p, err := s.LatestReportPeriod(ctx); p != 20240930 || err != nil {
		t.Errorf("latest: %v, %v", p, err)
	}
	if p, err := s.LatestReportPeriod(ctx, market.MustCode("830799.BJ")); p != 20240630 || err != nil {
		t.Errorf("latest of 830799: %v, %v", p, err)
	}
	if _, err := s.LatestReportPeriod(ctx, market.MustCode("688981.SH")); market.KindOf(err) != market.KindNotFound {
		t.Errorf("latest of an unknown code: %v", err)
	}
}

// The migration leaves FTS5 usable through modernc (no CGO): the virtual
// table exists and answers MATCH.
func TestFTS5Available(t *testing.T) {
	s := dbtest.Open(t)
	if s.SchemaVersion() < 5 {
		t.Fatalf("schema %d", s.SchemaVersion())
	}
	if _, err := s.UpsertNews(context.Background(), newsFixture()[:1], infoNow); err != nil {
		t.Fatal(err)
	}
	if _, n, err := s.News(context.Background(), db.NewsQuery{Search: "中试"}); n != 1 || err != nil {
		t.Fatalf("MATCH through FTS5: %d, %v", n, err)
	}
}
