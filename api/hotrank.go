package api

import (
	"net/http"

	"mdqs/db"
	"mdqs/internal/hotrank"
	"mdqs/internal/market"
)

// hotRankItem is spec 2.5, plus where the row came from: emappdata
// (EastMoney) or demo, so a synthetic list is never taken for a real one.
type hotRankItem struct {
	StockCode string `json:"stock_code"`
	StockName string `json:"stock_name"`
	Rank      int    `json:"rank"`
	Heat      int    `json:"heat"`
	Date      string `json:"date"`
	Source    string `json:"source"`
}

func hotRankItems(es []db.HotRankEntry) []hotRankItem {
	out := make([]hotRankItem, len(es))
	for i, e := range es {
		out[i] = hotRankItem{StockCode: e.Code.String(), StockName: e.Name, Rank: e.Rank, Heat: e.Heat, Date: e.Day.String(), Source: e.Source}
	}
	return out
}

// hotRankList is the list wrapper of spec 2.5, plus the day shown (null
// for a range).
type hotRankList struct {
	Items []hotRankItem `json:"items"`
	Total int           `json:"total"`
	Page  int           `json:"page"`
	Size  int           `json:"size"`
	Date  *string       `json:"date"`
}

func dayOrNull(d market.Day) *string {
	if d == 0 {
		return nil
	}
	s := d.String()
	return &s
}

// handleHotRank is GET /v1/api/hot_rank (spec 4.6). Modes: a day's list
// (date, default the latest day stored; page, size), codes (stock_code,
// one or several, on that day or over a range) and a range (start_date and
// end_date together, of the codes or of all stocks). A malformed or
// inconsistent date is 400 "invalid date"; nothing matching is 404 "hot
// rank not found".
func (s *Server) handleHotRank(w http.ResponseWriter, r *http.Request) error {
	if s.Info.HotRank == nil {
		return notConfigured("the hot rank")
	}
	maxSize := s.Info.HotRank.Config().MaxSize
	q := newQuery(r)
	day, _ := q.day("date", "invalid date")
	from, _ := q.day("start_date", "invalid date")
	to, _ := q.day("end_date", "invalid date")
	page := q.intIn("page", 1, 1, 1_000_000)
	size := q.intIn("size", min(20, maxSize), 1, maxSize)
	codes := q.codes("stock_code", "code")
	if err := q.Err(); err != nil {
		return err
	}
	p, err := s.Info.HotRank.Query(r.Context(), hotrank.Query{Day: day, From: from, To: to, Codes: codes, Page: page, Size: size})
	if err != nil {
		return err
	}
	return ok(w, hotRankList{Items: hotRankItems(p.Items), Total: p.Total, Page: p.Page, Size: p.Size, Date: dayOrNull(p.Day)})
}

// hotRankListTop is GET /hot_rank_list's data.
type hotRankListTop struct {
	Date  string        `json:"date"`
	Items []hotRankItem `json:"items"`
	Total int           `json:"total"` // stocks the day ranks
	Size  int           `json:"size"`  // the top asked
}

// handleHotRankList is GET /v1/api/hot_rank_list: the first top (default
// 20) of the latest list, or of date's.
func (s *Server) handleHotRankList(w http.ResponseWriter, r *http.Request) error {
	if s.Info.HotRank == nil {
		return notConfigured("the hot rank")
	}
	q := newQuery(r)
	day, _ := q.day("date", "invalid date")
	maxSize := s.Info.HotRank.Config().MaxSize
	top := q.intIn("top", min(20, maxSize), 1, maxSize)
	if err := q.Err(); err != nil {
		return err
	}
	p, err := s.Info.HotRank.Top(r.Context(), day, top)
	if err != nil {
		return err
	}
	return ok(w, hotRankListTop{Date: p.Day.String(), Items: hotRankItems(p.Items), Total: p.Total, Size: top})
}

type rankPoint struct {
	Date string `json:"date"`
	Rank int    `json:"rank"`
	Heat int    `json:"heat"`
}

func pointOf(e db.HotRankEntry) *rankPoint {
	if e.Rank == 0 {
		return nil
	}
	return &rankPoint{Date: e.Day.String(), Rank: e.Rank, Heat: e.Heat}
}

type hotRankDetail struct {
	StockCode      string      `json:"stock_code"`
	StockName      string      `json:"stock_name"`
	Latest         *rankPoint  `json:"latest"`           // the stock's newest row
	LatestListDate string      `json:"latest_list_date"` // the newest list of any stock
	Current        bool        `json:"current"`          // latest is on the newest list
	Best           *rankPoint  `json:"best"`             // best rank in the range; null when it has no row there
	StartDate      string      `json:"start_date"`
	EndDate        string      `json:"end_date"`
	Days           int         `json:"days"` // days ranked in the range
	History        []rankPoint `json:"history"`
}

// handleHotRankDetail is GET /v1/api/hot_rank/detail: one stock's rank
// history (stock_code required, one code; start_date and end_date
// together, default the last hot_rank.detail_days days) and its latest
// heat.
func (s *Server) handleHotRankDetail(w http.ResponseWriter, r *http.Request) error {
	if s.Info.HotRank == nil {
		return notConfigured("the hot rank")
	}
	q := newQuery(r)
	codes := q.codes("stock_code", "code")
	from, _ := q.day("start_date", "invalid date")
	to, _ := q.day("end_date", "invalid date")
	if err := q.Err(); err != nil {
		return err
	}
	if len(codes) != 1 {
		return market.Errorf(market.KindInvalid, "stock_code must name exactly one stock")
	}
	d, err := s.Info.HotRank.Detail(r.Context(), codes[0], from, to)
	if err != nil {
		return err
	}
	out := hotRankDetail{StockCode: d.Code.String(), StockName: d.Name, Latest: pointOf(d.Latest), LatestListDate: d.LatestDay.String(),
		Current: d.Latest.Day == d.LatestDay, Best: pointOf(d.Best), StartDate: d.From.String(), EndDate: d.To.String(),
		Days: len(d.History), History: make([]rankPoint, len(d.History))}
	for i, e := range d.History {
		out.History[i] = *pointOf(e)
	}
	return ok(w, out)
}

// hotRankImportBody is POST /hot_rank/import's body; every field is
// optional.
type hotRankImportBody struct {
	Date     string `json:"date"`
	Size     int    `json:"size"`
	MaxPages int    `json:"max_pages"`
}

type hotRankImportData struct {
	Date       string                `json:"date"`
	Source     string                `json:"source"`
	Size       int                   `json:"size"`
	Pages      int                   `json:"pages"`
	Fetched    int                   `json:"fetched"`
	Inserted   int                   `json:"inserted"`
	Updated    int                   `json:"updated"`
	Unchanged  int                   `json:"unchanged"`
	Removed    int                   `json:"removed"`
	Complete   bool                  `json:"complete"`
	Failures   []hotrank.PageFailure `json:"failures"`
	StartedAt  string                `json:"started_at"`
	FinishedAt string                `json:"finished_at"`
}

// handleHotRankImport is POST /v1/api/hot_rank/import {date, size,
// max_pages}: collects the list from the source and upserts it by (date,
// stock_code). A page that fails stores nothing of itself and is listed in
// failures (complete false); the first page failing is 503.
func (s *Server) handleHotRankImport(w http.ResponseWriter, r *http.Request) error {
	if s.Info.HotRank == nil {
		return notConfigured("the hot rank")
	}
	var body hotRankImportBody
	if err := s.decodeBody(r, &body); err != nil {
		return err
	}
	var day market.Day
	if body.Date != "" {
		d, err := market.ParseDay(body.Date)
		if err != nil {
			return &market.Error{Kind: market.KindInvalid, Message: "invalid date", Detail: err.Error()}
		}
		day = d
	}
	res, err := s.Info.HotRank.Import(r.Context(), hotrank.ImportRequest{Day: day, Size: body.Size, MaxPages: body.MaxPages})
	if err != nil {
		return err
	}
	failures := res.Failures
	if failures == nil {
		failures = []hotrank.PageFailure{}
	}
	return ok(w, hotRankImportData{Date: res.Date.String(), Source: res.Source, Size: res.Size, Pages: res.Pages, Fetched: res.Fetched,
		Inserted: res.Counts.Inserted, Updated: res.Counts.Updated, Unchanged: res.Counts.Unchanged, Removed: res.Counts.Removed,
		Complete: res.Complete, Failures: failures, StartedAt: market.FormatTime(res.Started), FinishedAt: market.FormatTime(res.Finished)})
}
