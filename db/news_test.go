package db_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/market"
)

func newsItem(uid, title, body string, typ int, published string, codes ...string) db.NewsRecord {
	t, err := market.ParseTime(published)
	if err != nil {
		panic(err)
	}
	cs := []market.Code{}
	for _, c := range codes {
		cs = append(cs, market.MustCode(c))
	}
	return db.NewsRecord{Feed: "eastmoney", UID: uid, Type: typ, Title: title, Summary: body, Body: body,
		URL: "https://finance.eastmoney.com/a/" + uid + ".html", Tags: []string{"BK1173"}, Codes: cs, Published: t}
}

func newsFixture() []db.NewsRecord {
	return []db.NewsRecord{
		newsItem("1", "宁德时代：固态电池中试线投产", "宁德时代公告称，公司固态电池中试线已于近日投产。", 1, "2026-11-23 09:31:00", "300750.SZ"),
		newsItem("2", "光伏板块午后拉升", "光伏板块午后拉升，隆基绿能涨超5%。", 1, "2026-11-23 13:05:10", "601012.SH"),
		newsItem("3", "贵州茅台:关于召开业绩说明会的公告", "", 2, "2026-11-22 20:41:29", "600519.SH"),
		newsItem("4", "Fed holds rates; ＡＩ chip demand", "The FOMC kept rates unchanged. NVIDIA rose.", 1, "2026-11-20 02:00:00"),
	}
}

func ids(rs []db.NewsRecord) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.UID
	}
	return out
}

func TestNewsUpsertIsIdempotent(t *testing.T) {
	s := dbtest.Open(t)
	ctx := context.Background()
	c, err := s.UpsertNews(ctx, newsFixture(), infoNow)
	if err != nil || c != (db.InfoCounts{Inserted: 4}) {
		t.Fatalf("first: %+v, %v", c, err)
	}
	c, err = s.UpsertNews(ctx, newsFixture(), infoNow.Add(time.Minute))
	if err != nil || c != (db.InfoCounts{Unchanged: 4}) {
		t.Fatalf("again: %+v, %v", c, err)
	}
	all, total, err := s.News(ctx, db.NewsQuery{})
	if err != nil || total != 4 || !sameStrings(ids(all), []string{"2", "1", "3", "4"}) {
		t.Fatalf("list %v (%d), %v", ids(all), total, err)
	}
	// The same upstream id from another feed is another item.
	other := newsFixture()[0]
	other.Feed = "cls"
	if c, err := s.UpsertNews(ctx, []db.NewsRecord{other}, infoNow); err != nil || c.Inserted != 1 {
		t.Fatalf("other feed: %+v, %v", c, err)
	}
	// An edited item is updated in place, its id kept.
	edited := newsFixture()[1]
	edited.Title = "光伏板块午后大涨"
	edited.Codes = []market.Code{market.MustCode("601012.SH"), market.MustCode("600438.SH")}
	if c, err := s.UpsertNews(ctx, []db.NewsRecord{edited}, infoNow.Add(time.Hour)); err != nil || c != (db.InfoCounts{Updated: 1}) {
		t.Fatalf("edit: %+v, %v", c, err)
	}
	got, err := s.NewsByID(ctx, all[0].ID)
	if err != nil || got.Title != "光伏板块午后大涨" || len(got.Codes) != 2 || got.Codes[1] != market.MustCode("600438.SH") ||
		!got.Updated.Equal(infoNow.Add(time.Hour)) || !got.Fetched.Equal(infoNow) || got.Tags[0] != "BK1173" || got.URL == "" {
		t.Errorf("edited item %+v, %v", got, err)
	}
	if _, err := s.NewsByID(ctx, 999); market.KindOf(err) != market.KindNotFound {
		t.Errorf("unknown id: %v", err)
	}
}

func TestNewsFilters(t *testing.T) {
	s := dbtest.Open(t)
	ctx := context.Background()
	if _, err := s.UpsertNews(ctx, newsFixture(), infoNow); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		q     db.NewsQuery
		total int
		want  []string
	}{
		{"flash only", db.NewsQuery{Type: 1}, 3, []string{"2", "1", "4"}},
		{"announcements", db.NewsQuery{Type: 2}, 1, []string{"3"}},
		{"one day (Shanghai)", db.NewsQuery{Day: 20261123}, 2, []string{"2", "1"}},
		{"day and type", db.NewsQuery{Day: 20261122, Type: 2}, 1, []string{"3"}},
		{"a stock", db.NewsQuery{Code: market.MustCode("600519.SH")}, 1, []string{"3"}},
		{"paged", db.NewsQuery{Offset: 1, Limit: 2}, 4, []string{"1", "3"}},
		{"empty day", db.NewsQuery{Day: 20261121}, 0, []string{}},
		// Full text: a two-character Chinese word inside a longer run.
		{"search 光伏", db.NewsQuery{Search: "光伏"}, 1, []string{"2"}},
		{"search in the body", db.NewsQuery{Search: "隆基"}, 1, []string{"2"}},
		{"search a single character", db.NewsQuery{Search: "涨"}, 1, []string{"2"}},
		{"search two terms (AND)", db.NewsQuery{Search: "宁德 固态电池"}, 1, []string{"1"}},
		{"search terms that never meet", db.NewsQuery{Search: "宁德 光伏"}, 0, []string{}},
		{"search is a substring, not loose characters", db.NewsQuery{Search: "伏光"}, 0, []string{}},
		{"search ASCII, any case", db.NewsQuery{Search: "fomc"}, 1, []string{"4"}},
		{"search full width folds", db.NewsQuery{Search: "ai"}, 1, []string{"4"}},
		{"search with filters", db.NewsQuery{Search: "公告", Type: 2}, 1, []string{"3"}},
		{"search with punctuation", db.NewsQuery{Search: `"固态电池"`}, 1, []string{"1"}},
		{"FTS syntax is text", db.NewsQuery{Search: "rates OR NEAR(x) *"}, 0, []string{}},
	}
	for _, tt := range tests {
		got, total, err := s.News(ctx, tt.q)
		if err != nil || total != tt.total || !sameStrings(ids(got), tt.want) {
			t.Errorf("%s: %v (%d), %v; want %v (%d)", tt.name, ids(got), total, err, tt.want, tt.total)
		}
	}
	for _, q := range []string{"", " ", "，。！", "*"} {
		if _, _, err := s.News(ctx, db.NewsQuery{Search: q + "!"}); market.KindOf(err) != market.KindInvalid {
			t.Errorf("search %q: %v, want invalid", q+"!", err)
		}
	}
}

func TestNewsSearchFollowsEditsAndPrunes(t *testing.T) {
	s := dbtest.Open(t)
	ctx := context.Background()
	items := newsFixture()
	if _, err := s.UpsertNews(ctx, items, infoNow); err != nil {
		t.Fatal(err)
	}
	edited := items[1]
	edited.Title, edited.Body, edited.Summary = "风电板块走强", "风电板块走强。", "风电板块走强。"
	if _, err := s.UpsertNews(ctx, []db.NewsRecord{edited}, infoNow); err != nil {
		t.Fatal(err)
	}
	if _, n, _ := s.News(ctx, db.NewsQuery{Search: "光伏"}); n != 0 {
		t.Errorf("the old text is still indexed: %d hits", n)
	}
	if got, n, _ := s.News(ctx, db.NewsQuery{Search: "风电"}); n != 1 || got[0].UID != "2" {
		t.Errorf("the new text is not indexed: %d hits", n)
	}
	n, err := s.PruneNews(ctx, time.Date(2026, 11, 23, 0, 0, 0, 0, market.Shanghai()))
	if err != nil || n != 2 {
		t.Fatalf("prune: %d, %v", n, err)
	}
	if _, n, _ := s.News(ctx, db.NewsQuery{Search: "FOMC"}); n != 0 {
		t.Errorf("a pruned item is still found by search")
	}
	if _, n, _ := s.News(ctx, db.NewsQuery{Code: market.MustCode("600519.SH")}); n != 0 {
		t.Errorf("a pruned item's code index survived")
	}
	if _, n, _ := s.News(ctx, db.NewsQuery{}); n != 2 {
		t.Errorf("left %d items, want 2", n)
	}
}

func TestFTSQuery(t *testing.T) {
	for in, want := range map[string]string{
		"光伏":           `"光 伏"`,
		"宁德 固态电池":      `"宁 德" AND "固 态 电 池"`,
		"ＡＩ芯片":         `"ai 芯 片"`,
		`600519.SH`:    `"600519 sh"`,
		`a"b`:          `"a b"`,
		"  NVIDIA  ":   `"nvidia"`,
		"半导体, 设备":      `"半 导 体" AND "设 备"`,
		"ﾊﾟｿｺﾝ":        `"パ ソ コ ン"`,
		"Crème brûlée": `"crème" AND "brûlée"`,
	} {
		got, err := db.FTSQuery(in)
		if err != nil || got != want {
			t.Errorf("FTSQuery(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := db.FTSQuery(strings.Repeat("a ", 17)); market.KindOf(err) != market.KindInvalid {
		t.Errorf("17 terms: %v", err)
	}
}
