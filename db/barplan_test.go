package db_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/market"
)

// The K-line endpoint reads a year of one series out of millions of bars:
// the range must be an index range on (code, freq, ts), never a scan, on
// either store. A plan that filters after a scan, or uses the index on
// code alone, would be correct and a hundred times slower at scale.
func TestBarRangeUsesThePrimaryKey(t *testing.T) {
	s := dbtest.Open(t)
	ctx := context.Background()
	code := market.MustCode("600519.SH")
	bars := dayBars(40)
	if _, err := s.IngestBars(ctx, []db.BarBatch{{Code: code, Freq: market.Daily, Source: "demo", Bars: bars}}); err != nil {
		t.Fatal(err)
	}
	want := regexp.MustCompile(`SEARCH bars USING PRIMARY KEY \(code=\? AND freq=\? AND ts>\? AND ts<\?\)`)
	if s.IsPostgresStore() {
		want = regexp.MustCompile(`Index Scan( Backward)? using bars_pkey on bars(?s:.*)Index Cond: \(\(code = [^)]+\) AND \(freq = [^)]+\) AND \(ts >= [^)]+\) AND \(ts <= [^)]+\)\)`)
	}
	for _, q := range []db.BarQuery{
		{Code: code, Freq: market.Daily, FromTS: bars[5].TS, ToTS: bars[30].TS},
		{Code: code, Freq: market.Daily, Limit: 10, Newest: true}, // the last N bars, as the endpoint asks
	} {
		plan, err := s.ExplainBars(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(plan, "\n")
		if !want.MatchString(got) {
			t.Errorf("plan for %+v:\n%s\nwant it to match %s", q, got, want)
		}
		if strings.Contains(got, "TEMP B-TREE") || strings.Contains(got, "Sort") {
			t.Errorf("plan for %+v sorts its rows; the key's order should serve ORDER BY ts:\n%s", q, got)
		}
	}
}
