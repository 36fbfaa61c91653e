package api

import (
	"net/http"
	"strconv"
	"strings"

	"mdqs/internal/market"
	"mdqs/internal/movement"
)

// sectorQuery reads the common parameters of spec 4.4. sort is read first
// so that a bad sort field is reported with its own message.
func (s *Server) sectorQuery(q *query) (mode string, day market.Day, f movement.Filter, err error) {
	f.Sort = q.oneOf("sort", "invalid sort field", "pct", movement.SortFields...)
	mode = s.sourceParam(q)
	f.Asc = q.oneOf("order", "", "desc", "asc", "desc") == "asc"
	f.Top = q.intIn("top", 0, 1, 10_000)
	f.MinAmount = bound(q, "min_amount")
	f.MinTurnover = bound(q, "min_turnover")
	f.MinMainNet = bound(q, "min_main_net")
	f.Exclude = map[string]bool{}
	for _, c := range strings.Split(q.str("excode"), ",") {
		if c = strings.TrimSpace(c); c != "" {
			f.Exclude[strings.ToUpper(c)] = true
		}
	}
	f.Code = q.str("code", "board_code")
	f.Name = q.str("name", "board_name")
	d, hasDay := q.day("day", "")
	if err := q.Err(); err != nil {
		return "", 0, f, err
	}
	day, err = s.Movements.Day(d, hasDay)
	return mode, day, f, err
}

// sourceParam reads ?source=. A server serves one market: a live one any of
// its upstreams, a demo one the demo market only, so a query can neither
// put demo rows into a live store nor make a demo server call the internet.
func (s *Server) sourceParam(q *query) string {
	mode := q.oneOf("source", "", s.SourceMode, "auto", "push2", "akshare", "demo")
	switch demoServer := s.SourceMode == "demo"; {
	case q.Err() != nil:
	case demoServer && mode != "demo":
		q.fail("", "source %s is a live upstream, and this server runs in demo mode (sources.default = demo): "+
			"it serves the demo market only, offline; run a live server for %s", mode, mode)
	case !demoServer && mode == "demo":
		q.fail("", "source demo is the demo market, which runs only in demo mode (sources.default = demo) "+
			"with a store of its own; this server serves live data: use auto, push2 or akshare")
	}
	return mode
}

func bound(q *query, name string) float64 {
	if v, ok := q.float(name); ok {
		return v
	}
	return movement.NoBound()
}

// sliceMeta describes the snapshot a slice of rows comes from.
type sliceMeta struct {
	Day    string `json:"day"`
	Type   string `json:"type"`
	Source string `json:"source"`
	AsOf   string `json:"as_of"`
	Total  int    `json:"total"` // sectors in the snapshot
	Count  int    `json:"count"` // rows returned
}

func metaOf(sl movement.Slice) sliceMeta {
	return sliceMeta{Day: sl.Day.Compact(), Type: string(sl.Kind), Source: sl.Source, AsOf: market.FormatTime(sl.AsOf),
		Total: sl.Total, Count: len(sl.Rows)}
}

// handleBoards serves /v1/api/boards/industry and /v1/api/boards/concept:
// data is the rows of spec 2.4; meta says which snapshot they are.
func (s *Server) handleBoards(kind market.SectorKind) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		mode, day, f, err := s.sectorQuery(newQuery(r))
		if err != nil {
			return err
		}
		sl, err := s.Movements.Sectors(r.Context(), kind, mode, day, f)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, struct {
			success
			Meta sliceMeta `json:"meta"`
		}{success{Code: 1, Message: "OK", Data: sl.Rows}, metaOf(sl)})
		return nil
	}
}

// handleMovements is GET /v1/api/market/movements: the rows of one family
// (type, default industry) and, beside data, the market-level analysis.
func (s *Server) handleMovements(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	kind := market.SectorKind(q.oneOf("type", "", "industry", "industry", "concept"))
	mode, day, f, err := s.sectorQuery(q)
	if err != nil {
		return err
	}
	sl, err := s.Movements.Sectors(r.Context(), kind, mode, day, f)
	if err != nil {
		return err
	}
	// The analysis is of the whole family, whatever the row filters.
	whole := sl
	if f.Top > 0 || f.Code != "" || f.Name != "" || len(f.Exclude) > 0 || market.IsKnown(f.MinAmount) ||
		market.IsKnown(f.MinTurnover) || market.IsKnown(f.MinMainNet) {
		if whole, err = s.Movements.Sectors(r.Context(), kind, mode, day, movement.Filter{
			MinAmount: movement.NoBound(), MinTurnover: movement.NoBound(), MinMainNet: movement.NoBound()}); err != nil {
			return err
		}
	}
	a, err := s.Movements.Analyse(r.Context(), kind, mode, day, whole)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, struct {
		success
		Meta     sliceMeta          `json:"meta"`
		Analysis *movement.Analysis `json:"analysis"`
	}{success{Code: 1, Message: "OK", Data: sl.Rows}, metaOf(sl), a})
	return nil
}

// handleMovementEvents is GET /v1/api/market/movements/events: the day's
// movement timeline in event time order, after since.
func (s *Server) handleMovementEvents(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	kind := market.SectorKind(q.oneOf("type", "", "", "industry", "concept"))
	if sort := q.str("sort"); sort != "" && sort != "event_ts" {
		q.fail("invalid sort field", "the timeline is ordered by event_ts; sort must be event_ts or absent")
	}
	since := parseSince(q, "since")
	mode, day, f, err := s.sectorQuery(withoutSort(q))
	if err != nil {
		return err
	}
	t, err := s.Movements.Events(r.Context(), kind, mode, day, since, f.Top, f)
	if err != nil {
		return err
	}
	return ok(w, t)
}

// withoutSort hides sort from sectorQuery (the timeline has its own rule).
func withoutSort(q *query) *query {
	c := &query{err: q.err}
	for _, p := range q.params {
		if p.name != "sort" {
			c.params = append(c.params, p)
		}
	}
	return c
}

// parseSince reads the timeline cursor: "YYYY-MM-DD HH:MM:SS" or epoch
// seconds mean "after that whole second"; 13-digit epoch milliseconds (the
// next_since of the previous answer) mean "after that instant", the form to
// use for pulling without gaps or duplicates.
func parseSince(q *query, name string) int64 {
	s := q.str(name)
	if s == "" {
		return 0
	}
	if t, err := market.ParseTime(s); err == nil {
		return t.UnixMilli() + 999
	}
	n, err := strconv.ParseInt(s, 10, 64)
	switch {
	case err != nil || n < 0:
		q.fail("", "%s must be YYYY-MM-DD HH:MM:SS, epoch seconds or epoch milliseconds, got %q", name, s)
		return 0
	case len(s) >= 13:
		return n
	}
	return n*1000 + 999
}
