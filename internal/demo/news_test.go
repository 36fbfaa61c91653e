package demo

import (
	"context"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

func newsPage(t *testing.T, m *Market, cursor string, size int) ([]upstream.NewsItem, string) {
	t.Helper()
	items, next, err := m.NewsPage(context.Background(), cursor, size)
	if err != nil {
		t.Fatalf("NewsPage(%q, %d): %v", cursor, size, err)
	}
	return items, next
}

func TestNewsFeedPages(t *testing.T) {
	now := at(infoDay, 21, 0, 0)
	m, _ := newMarket(t, smallConfig(3), now)
	one, _ := newsPage(t, m, "", 90)
	var paged []upstream.NewsItem
	cursor := ""
	for range 3 {
		items, next := newsPage(t, m, cursor, 30)
		if next == "" {
			t.Fatal("a full page without a next cursor")
		}
		paged, cursor = append(paged, items...), next
	}
	if !reflect.DeepEqual(one, paged) {
		t.Fatal("three pages of 30 differ from one page of 90: a cursor skips or repeats items")
	}
	seen := map[string]bool{}
	for i, it := range one {
		if it.Feed != FeedDemo || it.UID == "" || seen[it.UID] || it.Title == "" || it.Published.After(now) ||
			(it.Type != upstream.NewsFlash && it.Type != upstream.NewsAnnouncement) || it.Tags == nil || it.Codes == nil {
			t.Fatalf("item %d: %+v", i, it)
		}
		if i > 0 && it.Published.After(one[i-1].Published) {
			t.Fatalf("item %d is newer than item %d", i, i-1)
		}
		seen[it.UID] = true
	}
	m2, _ := newMarket(t, smallConfig(3), now)
	if again, _ := newsPage(t, m2, "", 90); !reflect.DeepEqual(again, one) {
		t.Error("two markets of one config publish different news")
	}
	// Nothing from the future: at 09:00 the 20:00 items of the day are not out.
	m3, _ := newMarket(t, smallConfig(3), at(infoDay, 9, 0, 0))
	early, _ := newsPage(t, m3, "", 200)
	for _, it := range early {
		if it.Published.After(at(infoDay, 9, 0, 0)) {
			t.Fatalf("item from the future: %+v", it)
		}
	}
	if _, _, err := m.NewsPage(context.Background(), "yesterday", 10); market.KindOf(err) != market.KindInvalid {
		t.Errorf("bad cursor: %v", err)
	}
}

// The close summary counts the stocks the demo's prices closed at their
// limit, and names them.
func TestNewsCloseSummaryMatchesPrices(t *testing.T) {
	m, _ := newMarket(t, smallConfig(5), at(infoDay, 21, 0, 0))
	items, _ := newsPage(t, m, "", 200)
	var summary *upstream.NewsItem
	for i := range items {
		if strings.HasPrefix(items[i].Title, "收评：") && market.DayOf(items[i].Published) == infoDay {
			summary = &items[i]
		}
	}
	if summary == nil {
		t.Fatal("no close summary on a trading day")
	}
	limitUp := 0
	for _, q := range quotesAt(t, m, at(infoDay, 15, 0, 0)) {
		s := &m.u.stocks[m.u.byCode[q.Code]]
		if _, hi := limits(int32(q.PrevClose*100+0.5), s.limit); int32(q.Price*100+0.5) >= hi {
			limitUp++
		}
	}
	if !strings.Contains(summary.Title, "，"+strconv.Itoa(limitUp)+"只个股涨停") {
		t.Errorf("summary %q, but %d stocks closed limit-up", summary.Title, limitUp)
	}
}

// A report announcement comes out on the day the report's notice date says.
func TestNewsAnnouncesReports(t *testing.T) {
	day := market.Day(20261028) // inside the Q3 window
	m, _ := newMarket(t, smallConfig(9), at(day, 23, 30, 0))
	items, _ := newsPage(t, m, "", 200)
	found := 0
	for _, it := range items {
		if !strings.HasSuffix(it.Title, "2026年第三季度报告") || market.DayOf(it.Published) != day {
			continue
		}
		found++
		rows, _, err := m.Reports(context.Background(), upstream.FinanceQuery{Code: it.Codes[0], Period: 20260930}, 1)
		if err != nil || len(rows) != 1 || rows[0].NoticeDate != day || !strings.HasPrefix(it.Title, rows[0].Name+":") {
			t.Errorf("announcement %q: report %+v, %v", it.Title, rows, err)
		}
	}
	if found == 0 {
		t.Error("no Q3 report announcement on 2026-10-28")
	}
}
