package news_test

import (
	"context"
	"encoding/json"
	"errors"
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
	"mdqs/internal/market"
	"mdqs/internal/news"
	"mdqs/internal/upstream"
)

var t0 = time.Date(2026, 11, 23, 10, 0, 0, 0, market.Shanghai())

// fakeEastMoney serves getFastNewsList (paged by sortEnd, newest first)
// and the announcement list in EastMoney's shapes.
type fakeEastMoney struct {
	*httptest.Server
	mu          sync.Mutex
	flash       []string // ids, newest first
	noticesDown bool
}

func newFake(t *testing.T, n int) *fakeEastMoney {
	f := &fakeEastMoney{}
	for i := 0; i < n; i++ {
		f.flash = append(f.flash, fmt.Sprintf("2026112300%04d", 1000-i))
	}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeEastMoney) publish(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.flash = append([]string{id}, f.flash...)
}

func (f *fakeEastMoney) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	q := r.URL.Query()
	switch r.URL.Path {
	case "/comm/web/getFastNewsList":
		size, _ := strconv.Atoi(q.Get("pageSize"))
		start := 0
		if end := q.Get("sortEnd"); end != "" {
			for i, id := range f.flash {
				if id == end {
					start = i + 1
				}
			}
		}
		var rows []string
		last := ""
		for i := start; i < min(start+size, len(f.flash)); i++ {
			n, _ := strconv.Atoi(f.flash[i][len(f.flash[i])-4:]) // item 1000 at t0, one minute apart
			shown := t0.Add(time.Duration(n-1000) * time.Minute)
			title, _ := json.Marshal("快讯" + f.flash[i] + "：光伏板块走强")
			rows = append(rows, fmt.Sprintf(`{"code":"%s","titleColor":0,"realSort":"%s","showTime":"%s","title":%s,"summary":"正文%s","stockList":["1.601012"],"image":[]}`,
				f.flash[i], f.flash[i], market.FormatTime(shown), title, f.flash[i]))
			last = f.flash[i]
		}
		if len(rows) == 0 {
			fmt.Fprint(w, `{"code":"1","message":"success","data":null}`)
			return
		}
		fmt.Fprintf(w, `{"code":"1","message":"success","data":{"sortEnd":"%s","fastNewsList":[%s]}}`, last, strings.Join(rows, ","))
	case "/api/security/ann":
		if f.noticesDown {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		fmt.Fprint(w, `{"data":{"list":[{"art_code":"AN202611231800000001","codes":[{"market_code":"1","short_name":"贵州茅台","stock_code":"600519"}],"columns":[{"column_name":"其他"}],"display_time":"2026-11-22 20:41:29:276","notice_date":"2026-11-23 00:00:00","title":"贵州茅台:关于召开业绩说明会的公告"}],"page_index":1,"page_size":50,"total_hits":1},"error":"","success":1}`)
	default:
		http.NotFound(w, r)
	}
}

func eastMoney(t *testing.T, f *fakeEastMoney, clock market.Clock, cfg news.Config) (*news.Service, *db.Store) {
	t.Helper()
	src := upstream.NewsConfig{}
	for _, c := range []*upstream.SourceConfig{&src.EastMoney, &src.Notices, &src.CLS} {
		c.BaseURL, c.Retries, c.Rate, c.Burst = f.URL, -1, 1000, 1000
	}
	c, err := upstream.NewEastMoneyNews(src, upstream.NewLimiters(), clock)
	if err != nil {
		t.Fatal(err)
	}
	store := dbtest.Open(t)
	return news.New(cfg, store, []news.Feed{news.EastMoneyFlash(c), news.EastMoneyNotices(c)}, clock, nil), store
}

func TestUpdateIsIdempotent(t *testing.T) {
	fake := newFake(t, 5)
	svc, store := eastMoney(t, fake, market.NewFixedClock(t0), news.Config{PageSize: 2, Pages: 5})
	ctx := context.Background()
	res, err := svc.Update(ctx, news.UpdateRequest{})
	if err != nil {
		t.Fatal(err)
	}
	flash, notices := res.Feeds[0], res.Feeds[1]
	// Five items at two a page: 2, 2, 1, then the short page ends it.
	if flash.Feed != "eastmoney" || flash.Pages != 3 || flash.Counts.Inserted != 5 || notices.Counts.Inserted != 1 || res.Counts.Inserted != 6 {
		t.Fatalf("first update %+v", res)
	}
	res, err = svc.Update(ctx, news.UpdateRequest{})
	if err != nil || res.Counts.Inserted != 0 || res.Feeds[0].Pages != 1 || res.Feeds[0].Counts.Unchanged != 2 {
		t.Fatalf("again: %+v, %v (want one page with nothing new)", res, err)
	}
	fake.publish("20261123001001")
	res, err = svc.Update(ctx, news.UpdateRequest{})
	// Page 1 has the new item and a known one, page 2 only known ones: stop.
	if err != nil || res.Feeds[0].Counts.Inserted != 1 || res.Feeds[0].Counts.Unchanged != 3 || res.Feeds[0].Pages != 2 {
		t.Fatalf("one new item: %+v, %v", res, err)
	}
	_, total, _ := store.News(ctx, db.NewsQuery{})
	if total != 7 {
		t.Errorf("stored %d items, want 7 (no duplicates)", total)
	}
	if run, err := store.LastImport(ctx, news.ImportKind, "eastmoney", true); err != nil || run.Inserted != 1 {
		t.Errorf("run %+v, %v", run, err)
	}
}

func TestUpdatePartialFailure(t *testing.T) {
	fake := newFake(t, 3)
	fake.noticesDown = true
	svc, store := eastMoney(t, fake, market.NewFixedClock(t0), news.Config{})
	ctx := context.Background()
	res, err := svc.Update(ctx, news.UpdateRequest{})
	if err != nil {
		t.Fatalf("one feed down is not the update's failure: %v", err)
	}
	if res.Feeds[0].Counts.Inserted != 3 || res.Feeds[1].Error == "" || res.Feeds[1].Kind != "http_status" {
		t.Errorf("result %+v", res)
	}
	if err := svc.Job(ctx); err == nil || !strings.Contains(err.Error(), "eastmoney_notice") {
		t.Errorf("the job hides the failing feed: %v", err)
	}
	if run, err := store.LastImport(ctx, news.ImportKind, "eastmoney_notice", false); err != nil || run.Failed != 1 || run.Complete {
		t.Errorf("notice run %+v, %v", run, err)
	}
	fake.Close()
	if _, err := svc.Update(ctx, news.UpdateRequest{}); market.KindOf(err) != market.KindUnavailable {
		t.Errorf("every feed down: %v", err)
	}
	if _, err := svc.Update(ctx, news.UpdateRequest{Pages: 11}); market.KindOf(err) != market.KindInvalid {
		t.Errorf("11 pages: %v", err)
	}
}

func demoNews(t *testing.T, clock market.Clock) (*news.Service, *db.Store) {
	t.Helper()
	m, err := demo.New(demo.Config{Seed: 2, Stocks: 400, Industries: 20, Concepts: 40}, clock)
	if err != nil {
		t.Fatal(err)
	}
	store := dbtest.Open(t)
	return news.New(news.Config{PageSize: 100, Pages: 2}, store, []news.Feed{{Name: demo.FeedDemo, Fetch: m.NewsPage}}, clock, nil), store
}

func TestDemoNewsQueries(t *testing.T) {
	clock := market.NewFixedClock(time.Date(2026, 11, 23, 21, 0, 0, 0, market.Shanghai()))
	svc, _ := demoNews(t, clock)
	ctx := context.Background()
	if _, err := svc.List(ctx, news.ListQuery{Page: 1, PageSize: 20}); market.KindOf(err) != market.KindNotFound {
		t.Fatalf("empty store: %v", err)
	}
	res, err := svc.Update(ctx, news.UpdateRequest{})
	if err != nil || res.Counts.Inserted != 200 {
		t.Fatalf("update %+v, %v", res, err)
	}
	all, err := svc.List(ctx, news.ListQuery{Page: 1, PageSize: 20})
	if err != nil || all.Total != 200 || len(all.Items) != 20 || all.Items[0].Published.Before(all.Items[19].Published) {
		t.Fatalf("list %d of %d, %v", len(all.Items), all.Total, err)
	}
	ann, err := svc.List(ctx, news.ListQuery{Type: news.TypeAnnouncement, Page: 1, PageSize: 100})
	if err != nil || ann.Total == 0 {
		t.Fatalf("announcements: %v", err)
	}
	for _, it := range ann.Items {
		if it.Type != news.TypeAnnouncement {
			t.Fatalf("type filter let through %+v", it)
		}
	}
	day, err := svc.List(ctx, news.ListQuery{Day: 20261123, Type: news.TypeFlash, Page: 1, PageSize: 100})
	if err != nil || day.Total == 0 {
		t.Fatalf("flash of the day: %v", err)
	}
	for _, it := range day.Items {
		if market.DayOf(it.Published) != 20261123 || it.Type != news.TypeFlash {
			t.Fatalf("day filter let through %+v", it)
		}
	}
	// Full-text search finds the close summary by a word inside it.
	hit, err := svc.List(ctx, news.ListQuery{Search: "收评", Page: 1, PageSize: 10})
	if err != nil || hit.Total < 1 || !strings.Contains(hit.Items[0].Title, "收评") {
		t.Fatalf("search: %+v, %v", hit, err)
	}
	code := all.Items[0].Codes
	if len(code) > 0 {
		byCode, err := svc.List(ctx, news.ListQuery{Code: code[0], Page: 1, PageSize: 100})
		if err != nil || byCode.Total < 1 {
			t.Errorf("by code %v: %v", code[0], err)
		}
	}
	it, err := svc.View(ctx, all.Items[3].ID)
	if err != nil || it.UID != all.Items[3].UID || it.Feed != "demo" {
		t.Errorf("view: %+v, %v", it, err)
	}
	if _, err := svc.View(ctx, 1e9); market.KindOf(err) != market.KindNotFound {
		t.Errorf("unknown id: %v", err)
	}
	if _, err := svc.List(ctx, news.ListQuery{Type: 7, Page: 1, PageSize: 10}); market.KindOf(err) != market.KindInvalid {
		t.Errorf("type 7: %v", err)
	}
	if _, err := svc.List(ctx, news.ListQuery{Day: 20200101, Page: 1, PageSize: 10}); market.KindOf(err) != market.KindNotFound {
		t.Errorf("an empty day: %v", err)
	}
	if _, err := svc.List(ctx, news.ListQuery{Page: 1, PageSize: 101}); market.KindOf(err) != market.KindInvalid {
		t.Errorf("page_size over the cap: %v", err)
	}
}

func TestParseType(t *testing.T) {
	for in, want := range map[string]int{"1": 1, "2": 2, "flash": 1, "Announcement": 2} {
		if got, err := news.ParseType(in); got != want || err != nil {
			t.Errorf("ParseType(%q) = %d, %v", in, got, err)
		}
	}
	for _, in := range []string{"0", "3", "-1", "x", "1.0", ""} {
		var me *market.Error
		if _, err := news.ParseType(in); !errors.As(err, &me) || me.Message != "invalid news type" {
			t.Errorf("ParseType(%q) = %v", in, err)
		}
	}
}

func TestPrune(t *testing.T) {
	clock := market.NewFixedClock(time.Date(2026, 11, 23, 21, 0, 0, 0, market.Shanghai()))
	m, err := demo.New(demo.Config{Seed: 2, Stocks: 400, Industries: 20, Concepts: 40}, clock)
	if err != nil {
		t.Fatal(err)
	}
	store := dbtest.Open(t)
	svc := news.New(news.Config{PageSize: 200, Pages: 3, Retention: 24 * time.Hour}, store, []news.Feed{{Name: "demo", Fetch: m.NewsPage}}, clock, nil)
	ctx := context.Background()
	if _, err := svc.Update(ctx, news.UpdateRequest{}); err != nil {
		t.Fatal(err)
	}
	if err := svc.Prune(ctx); err != nil {
		t.Fatal(err)
	}
	items, total, _ := store.News(ctx, db.NewsQuery{})
	if total == 0 || items[total-1].Published.Before(clock.Now().Add(-24*time.Hour)) {
		t.Errorf("after pruning to a day: %d items, oldest %v", total, items[total-1].Published)
	}
}
