package api

import (
	"net/http"
	"time"

	"mdqs/db"
	"mdqs/internal/indexmembers"
	"mdqs/internal/market"
)

// indexMemberItem is one member of an index on a day.
type indexMemberItem struct {
	Code  string `json:"code"`
	Name  string `json:"name"`
	Since string `json:"since"` // the first observation of its current span
}

// observationItem is the observation an answer rests on.
type observationItem struct {
	Date       string `json:"date"`
	Source     string `json:"source"`
	File       string `json:"file"`
	Block      string `json:"block"`
	Members    int    `json:"members"`
	Capped     bool   `json:"capped"`
	RecordedAt string `json:"recorded_at"`
}

func (s *Server) observationOf(o db.IndexObserved) observationItem {
	return observationItem{Date: o.Day.String(), Source: s.sourceLabel(o.Source), File: o.File, Block: o.Block, Members: o.Members,
		Capped: o.Capped, RecordedAt: o.RecordedAt.In(market.Shanghai()).Format(time.RFC3339)}
}

type historyRange struct {
	From         string `json:"from"`
	To           string `json:"to"`
	Observations int    `json:"observations"`
}

// indexCode reads code: a code (000300.SH, sh000300), a bare symbol of a
// known index (000300, which alone would read as a Shenzhen stock) or
// the name the terminal gives its block (沪深300).
func indexCode(q *query) market.Code {
	raw := q.str("code")
	if c, ok := indexmembers.CodeOf(raw); ok && raw != "" {
		return c
	}
	c, ok := q.code("code", true)
	if !ok {
		return c
	}
	if indexmembers.NameOf(c) == "" {
		for _, k := range indexmembers.KnownIndices() {
			if k.Code.Symbol == c.Symbol && len(raw) == 6 {
				return k.Code
			}
		}
	}
	return c
}

// indexReady waits, in demo mode, for the demo terminal's first import,
// which records the demo indices' history; a live store answers what it
// has at once, terminal or not.
func (s *Server) indexReady(r *http.Request) error {
	if s.Bridge == nil || !s.Bridge.Configured() {
		return nil
	}
	return s.Bridge.Wait(r.Context())
}

// handleIndexMembers is GET /v1/api/index/members: an index's members on
// a day, from the recorded observations of its member list.
func (s *Server) handleIndexMembers(w http.ResponseWriter, r *http.Request) error {
	if err := s.indexReady(r); err != nil {
		return err
	}
	q := newQuery(r)
	code := indexCode(q)
	var day market.Day
	if q.has("date") {
		day, _ = q.day("date", "")
	}
	if err := q.Err(); err != nil {
		return err
	}
	m, err := s.IndexMembers.Members(r.Context(), code, day)
	if err != nil {
		return err
	}
	items := make([]indexMemberItem, len(m.Members))
	for i, x := range m.Members {
		items[i] = indexMemberItem{Code: x.Code.String(), Name: x.Name, Since: x.Since.String()}
	}
	var next *string
	if m.Next != 0 {
		next = optional(m.Next.String())
	}
	return ok(w, map[string]any{"code": m.Index.String(), "name": m.Name, "date": m.Date.String(), "as_of": m.Observed.Day.String(),
		"observation": s.observationOf(m.Observed), "next_observation": next, "note": m.Note,
		"history": historyRange{From: m.First.String(), To: m.Last.String(), Observations: m.Count},
		"count":   len(items), "members": items, "weights": nil, "weights_note": indexmembers.WeightsNote,
		"source": s.sourceLabel(m.Observed.Source)})
}

type indexChangeItem struct {
	Date     string `json:"date"`
	Change   string `json:"change"`
	Code     string `json:"code"`
	Name     string `json:"name"`
	After    string `json:"after"`
	File     string `json:"file"`
	Observed string `json:"observed"`
}

// handleIndexChanges is GET /v1/api/index/changes: the ins and outs of an
// index between its observations.
func (s *Server) handleIndexChanges(w http.ResponseWriter, r *http.Request) error {
	if err := s.indexReady(r); err != nil {
		return err
	}
	q := newQuery(r)
	code := indexCode(q)
	from, to := q.span()
	if err := q.Err(); err != nil {
		return err
	}
	c, err := s.IndexMembers.Changes(r.Context(), code, from, to)
	if err != nil {
		return err
	}
	items := make([]indexChangeItem, len(c.Changes))
	ins, outs := 0, 0
	for i, x := range c.Changes {
		items[i] = indexChangeItem{Date: x.Day.String(), Change: x.Kind, Code: x.Code.String(), Name: x.Name, After: x.After.String(),
			File: x.File, Observed: x.Day.String()}
		if x.Kind == "in" {
			ins++
		} else {
			outs++
		}
	}
	return ok(w, map[string]any{"code": c.Index.String(), "name": c.Name, "as_of": c.Last.String(),
		"history":            historyRange{From: c.First.String(), To: c.Last.String(), Observations: c.Count},
		"latest_observation": s.observationOf(c.Latest),
		"note": "a change is dated by the first observation that shows it and happened after the observation before it (after); " +
			"the first observation's list is where the history starts, not a day its members came in",
		"ins": ins, "outs": outs, "count": len(items), "changes": items, "source": s.sourceLabel(c.Latest.Source)})
}
