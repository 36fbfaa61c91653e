package api

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

type newsAnswer struct {
	Items    []newsItem `json:"items"`
	Total    int        `json:"total"`
	Page     int        `json:"page"`
	PageSize int        `json:"page_size"`
}

func (h *infoHarness) updateNews(t *testing.T) updateNewsData {
	t.Helper()
	r := h.signed(http.MethodPost, "/v1/api/update-news", h.admin, nil)
	r.expect(t, 200, "OK")
	return decode[updateNewsData](t, r)
}

func TestUpdateNewsEndpoint(t *testing.T) {
	h := newInfoHarnessAt(t, t0.Add(11*time.Hour)) // 21:00: the day's flash news and announcements are out
	first := h.updateNews(t)
	if first.Inserted != 200 || first.Fetched != 200 || len(first.Feeds) != 1 || first.Feeds[0].Feed != "demo" || first.Feeds[0].Error != "" {
		t.Fatalf("first update %+v", first)
	}
	// No duplicates: the same items again change nothing.
	if again := h.updateNews(t); again.Inserted != 0 || again.Updated != 0 || again.Unchanged != 100 {
		t.Fatalf("second update %+v", again)
	}
	r := h.signed(http.MethodPost, "/v1/api/update-news", h.admin, []byte(`{"pages":1,"page_size":10}`))
	r.expect(t, 200, "OK")
	if d := decode[updateNewsData](t, r); d.Fetched != 10 || d.Feeds[0].Pages != 1 {
		t.Errorf("pages 1 of 10: %+v", d)
	}
	for _, body := range []string{`{"pages":11}`, `{"page_size":0.5}`, `{"feed":"cls"}`} {
		h.signed(http.MethodPost, "/v1/api/update-news", h.admin, []byte(body)).expect(t, 400, "missing or invalid params")
	}
	h.signed(http.MethodPost, "/v1/api/update-news", h.reader, nil).expect(t, 403, "forbidden")
}

func TestNewsListAndView(t *testing.T) {
	h := newInfoHarnessAt(t, t0.Add(11*time.Hour))
	h.updateNews(t)
	r := h.get("/v1/api/news/list")
	r.expect(t, 200, "OK")
	all := decode[newsAnswer](t, r)
	if all.Total != 200 || all.Page != 1 || all.PageSize != 20 || len(all.Items) != 20 || all.Items[0].PublishedAt < all.Items[19].PublishedAt {
		t.Fatalf("default list: total %d page %d size %d items %d", all.Total, all.Page, all.PageSize, len(all.Items))
	}
	it := all.Items[0]
	if it.ID < 1 || it.Title == "" || it.Source != "demo" || len(it.PublishedAt) != 19 || (it.Type != 1 && it.Type != 2) {
		t.Errorf("item %+v", it)
	}
	for _, f := range []string{`"id":`, `"title":`, `"source":"demo"`, `"published_at":"2026-11-23 `} {
		if !strings.Contains(string(r.data), f) {
			t.Errorf("spec 2.6 field %s missing", f)
		}
	}
	for _, typ := range []string{"1", "2"} {
		l := decode[newsAnswer](t, h.get("/v1/api/news/list?page_size=100&type="+typ))
		for _, x := range l.Items {
			if strconv.Itoa(x.Type) != typ {
				t.Fatalf("type=%s let through %+v", typ, x)
			}
		}
		if l.Total == 0 {
			t.Errorf("type %s: nothing", typ)
		}
	}
	day := decode[newsAnswer](t, h.get("/v1/api/news/list?date=2026-11-22&page_size=100"))
	for _, x := range day.Items {
		if !strings.HasPrefix(x.PublishedAt, "2026-11-22 ") {
			t.Fatalf("date filter let through %+v", x)
		}
	}
	// Full-text search: a Chinese word inside titles, and two terms.
	s := decode[newsAnswer](t, h.get("/v1/api/news/list?q="+url.QueryEscape("收评")))
	if s.Total < 1 || !strings.Contains(s.Items[0].Title, "收评") {
		t.Errorf("q=收评: %+v", s)
	}
	both := decode[newsAnswer](t, h.get("/v1/api/news/list?q="+url.QueryEscape("收评 涨停")+"&date=2026-11-23"))
	if both.Total != 1 {
		t.Errorf("q=收评 涨停 on one day: %d hits", both.Total)
	}
	if len(it.Codes) > 0 {
		byCode := decode[newsAnswer](t, h.get("/v1/api/news/list?stock_code="+it.Codes[0]))
		if byCode.Total < 1 {
			t.Errorf("stock_code=%s: nothing", it.Codes[0])
		}
	}
	if p := decode[newsAnswer](t, h.get("/v1/api/news/list?page=20&page_size=20")); len(p.Items) != 0 || p.Total != 200 {
		t.Errorf("past the end: %+v", p)
	}
	for _, tc := range []struct {
		query   string
		status  int
		message string
	}{
		{"type=3", 400, "invalid news type"},
		{"type=0", 400, "invalid news type"},
		{"type=flashy", 400, "invalid news type"},
		{"type=", 400, "invalid news type"},
		{"date=2026-11-31", 400, "missing or invalid params"},
		{"page_size=101", 400, "missing or invalid params"},
		{"page=-1", 400, "missing or invalid params"},
		{"q=", 400, "missing or invalid params"},
		{"q=" + url.QueryEscape("，。"), 400, "missing or invalid params"},
		{"stock_code=600519,000001", 400, "missing or invalid params"},
		{"q=zzzqqq", 404, "not found"},
		{"date=2026-12-25", 404, "not found"},
		{"type=1&date=2020-01-01", 404, "not found"},
	} {
		r := h.get("/v1/api/news/list?" + tc.query)
		r.expect(t, tc.status, tc.message)
		if r.detail == "" {
			t.Errorf("%s: no detail", tc.query)
		}
	}
	// The full item.
	v := h.get("/v1/api/news/view?id=" + strconv.FormatInt(it.ID, 10))
	v.expect(t, 200, "OK")
	view := decode[newsView](t, v)
	if view.ID != it.ID || view.Title != it.Title || view.UpstreamID == "" || view.URL == "" || view.Tags == nil || view.Codes == nil ||
		view.FetchedAt == "" || !strings.Contains(string(v.data), `"body":`) {
		t.Errorf("view %s", v.data)
	}
	for _, tc := range []struct {
		query   string
		status  int
		message string
	}{
		{"", 400, "missing or invalid params"},
		{"?id=abc", 400, "missing or invalid params"},
		{"?id=0", 400, "missing or invalid params"},
		{"?id=99999999", 404, "not found"},
	} {
		h.get("/v1/api/news/view"+tc.query).expect(t, tc.status, tc.message)
	}
	h.addClient("hot-only", "secret-h", clientOpts{scopes: "hot_rank"})
	h.signed(http.MethodGet, "/v1/api/news/list", h.token("hot-only", "secret-h"), nil).expect(t, 403, "forbidden")
}
