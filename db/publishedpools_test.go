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

var poolsAt = time.Date(2024, 9, 23, 15, 40, 0, 0, market.Shanghai())

func publishedRow(code, name string, boards, firstSeal int) db.PublishedRow {
	return db.PublishedRow{Code: market.MustCode(code), Name: name, Industry: "工程 建设", Price: 16.06, LimitPrice: math.NaN(),
		ChangePct: 10, Amount: 21155838, FloatCap: 2028186773.58, Turnover: 1.04, SealFund: 192332954, Boards: boards,
		FirstSeal: firstSeal, LastSeal: 33900, OpenedTimes: 0, CountDays: 4, CountUp: 4}
}

// A day's pools are replaced whole (every kind) and only that day's; the
// not-sent values (NaN, -1) survive as unknown, names keep their spaces;
// a day never imported is not found; a failed import leaves the old day.
func TestPublishedPoolsReplaceDay(t *testing.T) {
	s := dbtest.Open(t)
	ctx := context.Background()
	d1, d2 := market.Day(20240920), market.Day(20240923)
	yest := publishedRow("603316.SH", "诚邦股份", 1, -1)
	yest.LastSeal, yest.SealFund, yest.LimitPrice = -1, math.NaN(), 4.61
	first := db.PublishedDay{Day: d2, Asked: d2, Source: "push2ex", ImportedAt: poolsAt, Pools: []db.PublishedPool{
		{Kind: "up", Total: 2, Rows: []db.PublishedRow{publishedRow("600198.SH", "大 唐电信", 5, 33901), publishedRow("000004.SZ", "国华网安", 4, 33900)}},
		{Kind: "broken", Total: 0, Rows: nil},
		{Kind: "yesterday", Total: 1, Rows: []db.PublishedRow{yest}},
	}}
	if err := s.ReplacePublishedPools(ctx, first); err != nil {
		t.Fatal(err)
	}
	other := db.PublishedDay{Day: d1, Asked: 20240922, Source: "push2ex", ImportedAt: poolsAt, Pools: []db.PublishedPool{
		{Kind: "up", Total: 1, Rows: []db.PublishedRow{publishedRow("000635.SZ", "英 力 特", 1, 36192)}}}}
	if err := s.ReplacePublishedPools(ctx, other); err != nil {
		t.Fatal(err)
	}
	got, err := s.PublishedPools(ctx, d2)
	if err != nil || got.Day != d2 || got.Asked != d2 || got.Source != "push2ex" || !got.ImportedAt.Equal(poolsAt) || len(got.Pools) != 3 {
		t.Fatalf("PublishedPools(%v) = %+v, %v", d2, got, err)
	}
	up, ok := got.Pool("up")
	if !ok || up.Total != 2 || len(up.Rows) != 2 || up.Rows[0].Code.String() != "000004.SZ" || up.Rows[1].Name != "大 唐电信" {
		t.Fatalf("up %+v", up)
	}
	if r := up.Rows[1]; r.Boards != 5 || r.FirstSeal != 33901 || r.LastSeal != 33900 || r.OpenedTimes != 0 || !math.IsNaN(r.LimitPrice) ||
		r.Price != 16.06 || r.FloatCap != 2028186773.58 || r.Industry != "工程 建设" || r.CountDays != 4 || r.CountUp != 4 {
		t.Errorf("up row %+v", r)
	}
	if b, ok := got.Pool("broken"); !ok || b.Total != 0 || b.Rows == nil || len(b.Rows) != 0 {
		t.Errorf("an empty pool is held as empty: %+v %v", b, ok)
	}
	if y, _ := got.Pool("yesterday"); len(y.Rows) != 1 || y.Rows[0].FirstSeal != -1 || y.Rows[0].LastSeal != -1 || !math.IsNaN(y.Rows[0].SealFund) ||
		y.Rows[0].LimitPrice != 4.61 {
		t.Errorf("yesterday %+v", y)
	}
	if o, err := s.PublishedPools(ctx, d1); err != nil || o.Asked != 20240922 || len(o.Pools) != 1 {
		t.Errorf("d1 (asked on the Sunday after) %+v %v", o, err)
	}

	// A failing import (a code twice in one pool) stores nothing of it.
	bad := first
	bad.Pools = []db.PublishedPool{{Kind: "up", Total: 2, Rows: []db.PublishedRow{publishedRow("000004.SZ", "x", 1, 1), publishedRow("000004.SZ", "x", 1, 1)}}}
	if err := s.ReplacePublishedPools(ctx, bad); err == nil {
		t.Fatal("a code twice in one pool was stored")
	}
	if again, _ := s.PublishedPools(ctx, d2); len(again.Pools) != 3 {
		t.Errorf("after the failed import the day has %d pools, want the old 3", len(again.Pools))
	}

	// A re-import with fewer kinds: nothing of the old import left; d1 untouched.
	re := db.PublishedDay{Day: d2, Asked: d2, Source: "push2ex", ImportedAt: poolsAt.Add(time.Hour), Pools: []db.PublishedPool{
		{Kind: "down", Total: 0}}}
	if err := s.ReplacePublishedPools(ctx, re); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.PublishedPools(ctx, d2); len(got.Pools) != 1 || got.Pools[0].Kind != "down" || !got.ImportedAt.Equal(poolsAt.Add(time.Hour)) {
		t.Errorf("after the re-import: %+v", got)
	}
	if days, err := s.PublishedPoolDays(ctx, 0, 0); err != nil || len(days) != 2 || days[0] != d1 || days[1] != d2 {
		t.Errorf("PublishedPoolDays = %v, %v", days, err)
	}
	if days, _ := s.PublishedPoolDays(ctx, d2, 0); len(days) != 1 {
		t.Errorf("PublishedPoolDays from d2 = %v", days)
	}
	if _, err := s.PublishedPools(ctx, 20240924); market.KindOf(err) != market.KindNotFound {
		t.Errorf("a day never imported: %v, want not found", err)
	}
	for _, d := range []db.PublishedDay{{Day: d2}, {Day: d2, Pools: []db.PublishedPool{{Kind: "up"}, {Kind: "up"}}}} {
		if err := s.ReplacePublishedPools(ctx, d); market.KindOf(err) != market.KindInvalid {
			t.Errorf("ReplacePublishedPools(%+v) = %v, want invalid", d, err)
		}
	}
}
