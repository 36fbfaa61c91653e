package api

import (
	"math"
	"net/http"

	"mdqs/db"
	"mdqs/internal/market"
	"mdqs/internal/news"
)

// newsItem is spec 2.6 (id, title, source, published_at) with the type,
// summary, link, tags and related stocks. source is the feed the item came
// from: eastmoney, eastmoney_notice, cls or demo.
type newsItem struct {
	ID          int64    `json:"id"`
	Type        int      `json:"type"`
	Title       string   `json:"title"`
	Summary     string   `json:"summary"`
	Source      string   `json:"source"`
	PublishedAt string   `json:"published_at"`
	URL         string   `json:"url"`
	Tags        []string `json:"tags"`
	Codes       []string `json:"codes"`
}

func newsItemOf(r db.NewsRecord) newsItem {
	codes := make([]string, len(r.Codes))
	for i, c := range r.Codes {
		codes[i] = c.String()
	}
	return newsItem{ID: r.ID, Type: r.Type, Title: r.Title, Summary: r.Summary, Source: r.Feed,
		PublishedAt: market.FormatTime(r.Published), URL: r.URL, Tags: r.Tags, Codes: codes}
}

type newsList struct {
	Items    []newsItem `json:"items"`
	Total    int        `json:"total"`
	Page     int        `json:"page"`
	PageSize int        `json:"page_size"`
}

// handleNewsList is GET /v1/api/news/list (spec 4.7): page, page_size
// (default 20, capped by news.max_page_size), type (1 flash news, 2
// company announcements; anything else 400 "invalid news type"), date
// (YYYY-MM-DD, published that Shanghai day), q (full-text search over
// titles and bodies: every term must occur, Chinese matched as substrings)
// and stock_code (items about that stock). Newest first; nothing matching
// is 404 "not found".
func (s *Server) handleNewsList(w http.ResponseWriter, r *http.Request) error {
	if s.Info.News == nil {
		return notConfigured("news")
	}
	maxSize := s.Info.News.Config().MaxPageSize
	q := newQuery(r)
	typ := 0
	if q.has("type") {
		t, err := news.ParseType(q.str("type"))
		if err != nil {
			return err
		}
		typ = t
	}
	page := q.intIn("page", 1, 1, 1_000_000)
	size := q.intIn("page_size", min(20, maxSize), 1, maxSize)
	day, _ := q.day("date", "")
	search := q.str("q")
	if q.has("q") && search == "" {
		q.fail("", "q must be the text to search for")
	}
	codes := q.codes("stock_code", "code")
	if err := q.Err(); err != nil {
		return err
	}
	if len(codes) > 1 {
		return market.Errorf(market.KindInvalid, "stock_code takes one code here")
	}
	lq := news.ListQuery{Type: typ, Day: day, Search: search, Page: page, PageSize: size}
	if len(codes) == 1 {
		lq.Code = codes[0]
	}
	l, err := s.Info.News.List(r.Context(), lq)
	if err != nil {
		return err
	}
	out := newsList{Items: make([]newsItem, len(l.Items)), Total: l.Total, Page: l.Page, PageSize: l.PageSize}
	for i, it := range l.Items {
		out.Items[i] = newsItemOf(it)
	}
	return ok(w, out)
}

// newsView is the full item.
type newsView struct {
	newsItem
	Body       string `json:"body"`
	UpstreamID string `json:"upstream_id"`
	FetchedAt  string `json:"fetched_at"`
	UpdatedAt  string `json:"updated_at"`
}

// handleNewsView is GET /v1/api/news/view?id=: the full item (body, url,
// tags, related codes). An unknown id is 404 "not found".
func (s *Server) handleNewsView(w http.ResponseWriter, r *http.Request) error {
	if s.Info.News == nil {
		return notConfigured("news")
	}
	q := newQuery(r)
	id := q.intIn("id", 0, 1, math.MaxInt32)
	if err := q.Err(); err != nil {
		return err
	}
	if id == 0 {
		return market.Errorf(market.KindInvalid, "id is required")
	}
	it, err := s.Info.News.View(r.Context(), int64(id))
	if err != nil {
		return err
	}
	return ok(w, newsView{newsItem: newsItemOf(it), Body: it.Body, UpstreamID: it.UID,
		FetchedAt: market.FormatTime(it.Fetched), UpdatedAt: market.FormatTime(it.Updated)})
}

// updateNewsBody is POST /update-news's optional body.
type updateNewsBody struct {
	Pages    int `json:"pages"`
	PageSize int `json:"page_size"`
}

type updateNewsData struct {
	Feeds     []news.FeedResult `json:"feeds"`
	Fetched   int               `json:"fetched"`
	Inserted  int               `json:"inserted"`
	Updated   int               `json:"updated"`
	Unchanged int               `json:"unchanged"`
}

// handleUpdateNews is POST /v1/api/update-news {pages, page_size}: fetches
// the newest items of every configured feed and upserts them by upstream
// id. A feed that fails is reported in its entry; all failing is 503.
func (s *Server) handleUpdateNews(w http.ResponseWriter, r *http.Request) error {
	if s.Info.News == nil {
		return notConfigured("news")
	}
	var body updateNewsBody
	if err := s.decodeBody(r, &body); err != nil {
		return err
	}
	res, err := s.Info.News.Update(r.Context(), news.UpdateRequest{Pages: body.Pages, PageSize: body.PageSize})
	if err != nil {
		return err
	}
	return ok(w, updateNewsData{Feeds: res.Feeds, Fetched: res.Fetched, Inserted: res.Counts.Inserted, Updated: res.Counts.Updated,
		Unchanged: res.Counts.Unchanged})
}
