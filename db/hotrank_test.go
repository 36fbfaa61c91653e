package db_test

import (
	"context"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/market"
)

var infoNow = time.Date(2026, 11, 23, 10, 0, 0, 0, market.Shanghai())

func entry(day market.Day, code, name string, rank int) db.HotRankEntry {
	return db.HotRankEntry{Day: day, Code: market.MustCode(code), Name: name, Rank: rank, Heat: 1000 - rank, Source: "emappdata"}
}

func codesOf(es []db.HotRankEntry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Code.String()
	}
	return out
}

func sameStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestHotRankUpsertIsIdempotentAndKeepsRanksUnique(t *testing.T) {
	s := dbtest.Open(t)
	ctx := context.Background()
	day := market.Day(20261123)
	page := []db.HotRankEntry{entry(day, "600519.SH", "贵州茅台", 1), entry(day, "000001.SZ", "平安银行", 2), entry(day, "300750.SZ", "宁德时代", 3)}
	c, err := s.UpsertHotRank(ctx, day, page, infoNow)
	if err != nil || c != (db.InfoCounts{Inserted: 3}) {
		t.Fatalf("first import: %+v, %v", c, err)
	}
	c, err = s.UpsertHotRank(ctx, day, page, infoNow.Add(time.Minute))
	if err != nil || c != (db.InfoCounts{Unchanged: 3}) {
		t.Fatalf("same list again: %+v, %v", c, err)
	}
	got, total, _ := s.HotRank(ctx, db.HotRankQuery{Day: day})
	if total != 3 || !got[0].UpdatedAt.Equal(infoNow) {
		t.Errorf("an unchanged row was rewritten: %+v", got)
	}
	// A later collection: 300750 rises to 1, 600519 falls to 2 and
	// 000001 drops out of the page's ranks in favour of 688981.
	later := []db.HotRankEntry{entry(day, "300750.SZ", "宁德时代", 1), entry(day, "600519.SH", "贵州茅台", 2), entry(day, "688981.SH", "中芯国际", 3)}
	c, err = s.UpsertHotRank(ctx, day, later, infoNow.Add(time.Hour))
	if err != nil || c != (db.InfoCounts{Inserted: 1, Updated: 2, Removed: 1}) {
		t.Fatalf("later list: %+v, %v", c, err)
	}
	got, total, err = s.HotRank(ctx, db.HotRankQuery{Day: day})
	if err != nil || total != 3 || !sameStrings(codesOf(got), []string{"300750.SZ", "600519.SH", "688981.SH"}) {
		t.Fatalf("day list %v (%d), %v", codesOf(got), total, err)
	}
	if got[0].Rank != 1 || got[0].Heat != 999 || got[0].Name != "宁德时代" || got[0].Source != "emappdata" || !got[0].UpdatedAt.Equal(infoNow.Add(time.Hour)) {
		t.Errorf("row %+v", got[0])
	}
	// A page further down leaves the first page's rows alone.
	c, err = s.UpsertHotRank(ctx, day, []db.HotRankEntry{entry(day, "601127.SH", "赛力斯", 4)}, infoNow)
	if err != nil || c != (db.InfoCounts{Inserted: 1}) {
		t.Errorf("page 2: %+v, %v", c, err)
	}
	if c, err := s.UpsertHotRank(ctx, day, nil, infoNow); err != nil || c != (db.InfoCounts{}) {
		t.Errorf("empty page: %+v, %v", c, err)
	}
}

func TestHotRankQueries(t *testing.T) {
	s := dbtest.Open(t)
	ctx := context.Background()
	if _, err := s.LatestHotRankDay(ctx, 0); market.KindOf(err) != market.KindNotFound {
		t.Fatalf("empty store: %v", err)
	}
	for _, day := range []market.Day{20261119, 20261120, 20261123} {
		var page []db.HotRankEntry
		for i, code := range []string{"600519.SH", "000001.SZ", "300750.SZ", "688981.SH"} {
			rank := (i+int(day))%4 + 1 // 20261120 is a multiple of 4: ranks rotate by day
			page = append(page, entry(day, code, "n"+code, rank))
		}
		if _, err := s.UpsertHotRank(ctx, day, page, infoNow); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name  string
		q     db.HotRankQuery
		total int
		codes []string
	}{
		{"one day by rank", db.HotRankQuery{Day: 20261123}, 4, []string{"000001.SZ", "300750.SZ", "688981.SH", "600519.SH"}},
		{"paged", db.HotRankQuery{Day: 20261123, Offset: 1, Limit: 2}, 4, []string{"300750.SZ", "688981.SH"}},
		{"past the end", db.HotRankQuery{Day: 20261123, Offset: 8, Limit: 2}, 4, []string{}},
		{"codes of a day", db.HotRankQuery{Day: 20261120, Codes: []market.Code{market.MustCode("300750.SZ"), market.MustCode("600519.SH")}}, 2,
			[]string{"600519.SH", "300750.SZ"}},
		{"range of one code, newest first", db.HotRankQuery{From: 20261119, To: 20261120, Codes: []market.Code{market.MustCode("000001.SZ")}}, 2,
			[]string{"000001.SZ", "000001.SZ"}},
		{"open range", db.HotRankQuery{From: 20261120}, 8, nil},
		{"nothing", db.HotRankQuery{Day: 20261121}, 0, []string{}},
	}
	for _, tt := range tests {
		got, total, err := s.HotRank(ctx, tt.q)
		if err != nil || total != tt.total || (tt.codes != nil && !sameStrings(codesOf(got), tt.codes)) {
			t.Errorf("%s: %v (%d), %v; want %v (%d)", tt.name, codesOf(got), total, err, tt.codes, tt.total)
		}
	}
	got, _, _ := s.HotRank(ctx, db.HotRankQuery{From: 20261119, Codes: []market.Code{market.MustCode("000001.SZ")}})
	if len(got) != 3 || got[0].Day != 20261123 || got[2].Day != 20261119 {
		t.Errorf("history %+v", got)
	}
	for _, tt := range []struct{ before, want market.Day }{{0, 20261123}, {20261122, 20261120}, {20261119, 20261119}} {
		if d, err := s.LatestHotRankDay(ctx, tt.before); d != tt.want || err != nil {
			t.Errorf("LatestHotRankDay(%v) = %v, %v; want %v", tt.before, d, err, tt.want)
		}
	}
	if _, err := s.LatestHotRankDay(ctx, 20261118); market.KindOf(err) != market.KindNotFound {
		t.Errorf("before any day: %v", err)
	}
}

func TestImportRuns(t *testing.T) {
	s := dbtest.Open(t)
	ctx := context.Background()
	if _, err := s.LastImport(ctx, "hot_rank", "", false); market.KindOf(err) != market.KindNotFound {
		t.Fatalf("no runs: %v", err)
	}
	run := db.InfoImport{Kind: "hot_rank", Source: "emappdata", Scope: "2026-11-23", Started: infoNow, Finished: infoNow.Add(time.Second),
		Pages: 2, Fetched: 100, InfoCounts: db.InfoCounts{Inserted: 90, Unchanged: 10}, Complete: true}
	if _, err := s.RecordImport(ctx, run); err != nil {
		t.Fatal(err)
	}
	failed := run
	failed.Started, failed.Finished, failed.Complete, failed.Failed, failed.Error = infoNow.Add(time.Hour), infoNow.Add(time.Hour), false, 1, "page 2: timeout"
	if _, err := s.RecordImport(ctx, failed); err != nil {
		t.Fatal(err)
	}
	last, err := s.LastImport(ctx, "hot_rank", "2026-11-23", false)
	if err != nil || last.Complete || last.Error != "page 2: timeout" || last.Failed != 1 || !last.Started.Equal(infoNow.Add(time.Hour)) {
		t.Errorf("last run %+v, %v", last, err)
	}
	last, err = s.LastImport(ctx, "hot_rank", "2026-11-23", true)
	if err != nil || !last.Complete || last.Inserted != 90 || last.Unchanged != 10 || last.Fetched != 100 || last.Source != "emappdata" ||
		!last.Finished.Equal(infoNow.Add(time.Second)) {
		t.Errorf("last complete run %+v, %v", last, err)
	}
	if _, err := s.LastImport(ctx, "news", "", false); market.KindOf(err) != market.KindNotFound {
		t.Errorf("another kind: %v", err)
	}
	if n, err := s.PruneImports(ctx, "hot_rank", infoNow.Add(30*time.Minute)); n != 1 || err != nil {
		t.Errorf("prune: %d, %v", n, err)
	}
	if last, err := s.LastImport(ctx, "hot_rank", "", true); market.KindOf(err) != market.KindNotFound {
		t.Errorf("after prune: %+v, %v", last, err)
	}
}
