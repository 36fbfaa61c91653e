package api

import (
	"net/http"

	"mdqs/db"
	"mdqs/internal/market"
	"mdqs/internal/quote"
	"mdqs/internal/secmaster"
)

type securityItem struct {
	Code            string  `json:"code"`
	Name            string  `json:"name"`
	Type            string  `json:"type"`
	Board           *string `json:"board"`
	ST              *string `json:"st"`
	Suspended       bool    `json:"suspended"`
	ListedDay       *string `json:"listed_day"`
	ListedDaySource *string `json:"listed_day_source"`
	LimitPct        *int64  `json:"limit_pct"`
	TotalShares     *int64  `json:"total_shares"`
	FloatShares     *int64  `json:"float_shares"`
	SharesDay       *string `json:"shares_day"`
	SharesSource    *string `json:"shares_source"`
}

// shareItem is one share-count record of a code's history.
type shareItem struct {
	Day         string `json:"day"`
	Category    int    `json:"category"`
	FloatShares int64  `json:"float_shares"`
	TotalShares int64  `json:"total_shares"`
	Source      string `json:"source"`
}

// withShares fills the shares a security had that day; all four stay
// null without a record by then.
func (it *securityItem) withShares(sh db.Shares) {
	if sh.Day == 0 {
		return
	}
	it.TotalShares, it.FloatShares = &sh.Total, &sh.Float
	it.SharesDay, it.SharesSource = optional(sh.Day.String()), optional(sh.Source)
}

type recordedRange struct {
	From string `json:"from"`
	To   string `json:"to"`
	Days int    `json:"days"`
}

func recordedOf(r db.RecordedDays) recordedRange {
	return recordedRange{From: r.First.String(), To: r.Last.String(), Days: r.Count}
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func listedOf(l db.ListedOn) (day, source *string) {
	if l.Day == 0 {
		return nil, nil
	}
	return optional(l.Day.String()), optional(l.Source)
}

// handleSecurities is GET /v1/api/securities: the universe as it was on a
// day, from the daily record of the quote list.
func (s *Server) handleSecurities(w http.ResponseWriter, r *http.Request) error {
	if s.Securities == nil {
		return market.NotConfigured("the security master is not served by this server")
	}
	q := newQuery(r)
	var day market.Day
	if q.has("date") {
		day, _ = q.day("date", "")
	}
	var f secmaster.Filter
	f.Type = market.SecurityType(q.oneOf("type", "", "", "stock", "index", "fund", "bond", "b_share", "repo", "preferred", "abs", "other"))
	f.Board = q.oneOf("board", "", "", "main", "chinext", "star", "bse")
	if q.has("st") {
		st := q.flag("st")
		f.ST = &st
	}
	if err := q.Err(); err != nil {
		return err
	}
	if day == 0 {
		last, err := s.Securities.LatestDay(r.Context())
		if err != nil {
			return err
		}
		day = last
	}
	list, rec, err := s.Securities.Universe(r.Context(), day, f)
	if err != nil {
		return err
	}
	items := make([]securityItem, len(list))
	for i, sec := range list {
		items[i] = securityItem{Code: sec.Code.String(), Name: sec.Name, Type: string(sec.Type), Board: optional(sec.Board),
			ST: optional(sec.ST), Suspended: sec.Suspended}
		items[i].ListedDay, items[i].ListedDaySource = listedOf(sec.Listed)
		items[i].withShares(sec.Shares)
		// The rule of that day: its board's, its name's warning and new
		// listing mark, the rule changes up to it (quote.LimitPct).
		if pct, ok := quote.LimitPct(sec.Code, sec.Name, day); ok {
			items[i].LimitPct = &pct
		}
	}
	return ok(w, map[string]any{"date": day.String(), "count": len(items), "items": items, "recorded": recordedOf(rec),
		"source": s.sourceLabel(rec.Source)})
}

type spanItem struct {
	Field  string  `json:"field"`
	Value  *string `json:"value"`
	From   string  `json:"from"`
	To     string  `json:"to"`
	Source string  `json:"source"`
}

// nameItem is a name a code had: from null when no source says since
// when, to null while it is the name.
type nameItem struct {
	Name   string  `json:"name"`
	From   *string `json:"from"`
	To     *string `json:"to"`
	Source string  `json:"source"`
}

func (s *Server) namesOf(ns []secmaster.NameSpan) []nameItem {
	day := func(d market.Day) *string {
		if d == 0 {
			return nil
		}
		return optional(d.String())
	}
	out := make([]nameItem, len(ns))
	for i, n := range ns {
		src := n.Source
		// The record is labelled as its spans are; a list is named as is.
		if src == secmaster.Source {
			src = s.sourceLabel(src)
		}
		out[i] = nameItem{Name: n.Name, From: day(n.From), To: day(n.To), Source: src}
	}
	return out
}

// handleSecurityHistory is GET /v1/api/securities/history: one code's
// timeline.
func (s *Server) handleSecurityHistory(w http.ResponseWriter, r *http.Request) error {
	if s.Securities == nil {
		return market.NotConfigured("the security master is not served by this server")
	}
	q := newQuery(r)
	code, _ := q.code("code", true)
	if err := q.Err(); err != nil {
		return err
	}
	t, err := s.Securities.History(r.Context(), code)
	if err != nil {
		return err
	}
	spans := make([]spanItem, len(t.Spans))
	for i, sp := range t.Spans {
		spans[i] = spanItem{Field: sp.Field, Value: optional(sp.Value), From: sp.First.String(), To: sp.Last.String(), Source: s.sourceLabel(sp.Source)}
	}
	shares := make([]shareItem, len(t.Shares))
	for i, sh := range t.Shares {
		shares[i] = shareItem{Day: sh.Day.String(), Category: sh.Category, FloatShares: sh.Float, TotalShares: sh.Total, Source: sh.Source}
	}
	listed, listedFrom := listedOf(t.Listed)
	var lastSeen *string
	if t.LastSeen != 0 {
		lastSeen = optional(t.LastSeen.String())
	}
	delisted, delistedFrom := listedOf(t.Delisted)
	return ok(w, map[string]any{"code": t.Code.String(), "type": string(t.Type), "board": optional(t.Board),
		"listed_day": listed, "listed_day_source": listedFrom, "last_seen": lastSeen,
		"delisted_day": delisted, "delisted_day_source": delistedFrom,
		"recorded": recordedOf(t.Recorded), "spans": spans, "shares": shares, "names": s.namesOf(t.Names), "source": s.sourceLabel(secmaster.Source)})
}
