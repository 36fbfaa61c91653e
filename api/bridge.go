package api

import (
	"net/http"
	"strconv"
	"strings"

	"mdqs/db"
	"mdqs/internal/bridge"
	"mdqs/internal/market"
)

// bridgeReady answers 503 for every bridge endpoint while no terminal
// folder is configured, without a retry time: only the configuration
// cures it. The demo terminal is written at start: its requests wait for
// it.
func (s *Server) bridgeReady(r *http.Request) error {
	if s.Bridge == nil {
		return bridge.ErrNotConfigured()
	}
	return s.Bridge.Wait(r.Context())
}

// handleMetaStocks is GET /v1/api/meta/stocks.
func (s *Server) handleMetaStocks(w http.ResponseWriter, r *http.Request) error {
	if err := s.bridgeReady(r); err != nil {
		return err
	}
	q := newQuery(r)
	var ex market.Exchange
	if m := q.str("market"); m != "" {
		e, err := market.ParseExchange(m)
		if err != nil {
			q.fail("", "market must be SH, SZ or BJ")
		}
		ex = e
	}
	types := market.SecurityTypes()
	names := make([]string, len(types))
	for i, t := range types {
		names[i] = string(t)
	}
	typ := q.oneOf("type", "", "", names...)
	keyword := q.str("keyword")
	page := q.intIn("page", 1, 1, 1_000_000)
	size := q.intIn("page_size", 100, 1, maxPageSize)
	if err := q.Err(); err != nil {
		return err
	}
	total, list, err := s.Store.Stocks(r.Context(), dbStockQuery(ex, typ, keyword, page, size))
	if err != nil {
		return err
	}
	type item struct {
		Code     string `json:"code"`
		Name     string `json:"name"`
		Market   string `json:"market"`
		Type     string `json:"type"`
		Industry string `json:"industry"`
		Listed   string `json:"listed"`
		Source   string `json:"source"`
	}
	items := make([]item, len(list))
	for i, st := range list {
		items[i] = item{Code: st.Code.String(), Name: st.Name, Market: string(st.Code.Exchange), Type: string(st.Type), Industry: st.Industry,
			Source: s.sourceLabel(st.Source)}
		if st.Listed != 0 {
			items[i].Listed = st.Listed.String()
		}
	}
	return ok(w, map[string]any{"items": items, "total": total, "page": page, "page_size": size})
}

// handleBlocks is GET /v1/api/blocks.
func (s *Server) handleBlocks(w http.ResponseWriter, r *http.Request) error {
	if err := s.bridgeReady(r); err != nil {
		return err
	}
	q := newQuery(r)
	kind := q.oneOf("kind", "", "", bridge.BlockKinds()...)
	keyword := q.str("keyword")
	if err := q.Err(); err != nil {
		return err
	}
	list, err := s.Store.Blocks(r.Context(), blockQuery(kind, keyword))
	if err != nil {
		return err
	}
	type item struct {
		Kind        string `json:"kind"`
		Name        string `json:"name"`
		FullName    string `json:"full_name"`
		Code        string `json:"code"`
		Parent      string `json:"parent"`
		MemberCount int    `json:"member_count"`
		Truncated   bool   `json:"truncated"`
	}
	items := make([]item, len(list))
	for i, b := range list {
		items[i] = item{b.Kind, b.Name, b.FullName, b.Code, b.Parent, b.Count, b.Truncated}
	}
	return ok(w, map[string]any{"items": items, "total": len(items)})
}

// handleBlockMembers is GET /v1/api/block/members.
func (s *Server) handleBlockMembers(w http.ResponseWriter, r *http.Request) error {
	if err := s.bridgeReady(r); err != nil {
		return err
	}
	q := newQuery(r)
	name := q.str("block", "name", "code")
	kind := q.oneOf("kind", "", "", bridge.BlockKinds()...)
	if name == "" && q.Err() == nil {
		q.fail("", "block is required: a block name (e.g. 煤炭) or code (e.g. 880301)")
	}
	if err := q.Err(); err != nil {
		return err
	}
	b, members, err := s.Store.BlockMembers(r.Context(), kind, name)
	if err != nil {
		return err
	}
	type member struct {
		Code string `json:"code"`
		Name string `json:"name"`
	}
	out := make([]member, len(members))
	for i, m := range members {
		out[i] = member{m.Code, m.Name}
	}
	return ok(w, map[string]any{"kind": b.Kind, "name": b.Name, "full_name": b.FullName, "code": b.Code,
		"truncated": b.Truncated, "members": out, "total": len(out)})
}

// handleMinutes is GET /v1/api/minutes: 1-minute or 5-minute bars of a code
// for a day (default the newest the terminal has) or a range, from the
// terminal's files.
func (s *Server) handleMinutes(w http.ResponseWriter, r *http.Request) error {
	if err := s.bridgeReady(r); err != nil {
		return err
	}
	q := newQuery(r)
	code, _ := q.code("code", true)
	freq := q.freq("freq", market.Min1)
	if q.Err() == nil && freq == market.Daily {
		q.fail("", "freq must be 1m or 5m")
	}
	day, hasDay := q.day("day", "")
	from, hasFrom := q.day("start", "")
	to, hasTo := q.day("end", "")
	if err := q.Err(); err != nil {
		return err
	}
	switch {
	case hasDay:
		from, to = day, day
	case hasFrom && !hasTo:
		to = market.DayOf(s.Clock.Now())
	case !hasFrom && hasTo:
		from = to
	case !hasFrom:
		from, to = 0, market.DayOf(s.Clock.Now())
	}
	if from > to {
		return market.Errorf(market.KindInvalid, "start %v is after end %v", from, to)
	}
	if !hasDay && to.Start().Sub(from.Start()).Hours() > 31*24 && from != 0 {
		return market.Errorf(market.KindInvalid, "a minutes range spans at most 31 days")
	}
	bars, err := s.Bridge.Bars(r.Context(), code, freq, from, to)
	if err != nil {
		return err
	}
	if from == 0 && len(bars) > 0 {
		// No day and no range: the newest day the terminal has.
		last := bars[len(bars)-1].Day
		i := len(bars)
		for i > 0 && bars[i-1].Day == last {
			i--
		}
		bars = bars[i:]
	}
	if len(bars) == 0 {
		return market.Errorf(market.KindNotFound, "the terminal has no %s bars of %v in that span", freq, code)
	}
	b := make([]byte, 0, 256+len(bars)*200)
	b = append(b, `{"code":1,"message":"OK","data":{"code":"`...)
	b = append(b, code.String()...)
	b = append(b, `","freq":"`...)
	b = append(b, freq...)
	b = append(b, `","source":"`...)
	b = append(b, s.sourceLabel(bridge.Source)...)
	b = append(b, `","count":`...)
	b = strconv.AppendInt(b, int64(len(bars)), 10)
	b = append(b, `,"rows":`...)
	b = appendRows(b, rowSet{bars: bars, prevClose: market.Unknown(), fields: barFields})
	b = append(b, "}}\n"...)
	writeBytes(w, http.StatusOK, jsonType, b)
	return nil
}

// handleRefresh is POST /v1/api/refresh: rescan the terminal folder and
// import what changed.
func (s *Server) handleRefresh(w http.ResponseWriter, r *http.Request) error {
	if err := s.bridgeReady(r); err != nil {
		return err
	}
	body, err := s.readBody(r)
	if err != nil {
		return err
	}
	if b := strings.TrimSpace(string(body)); b != "" && b != "{}" {
		return market.Errorf(market.KindInvalid, "refresh takes no parameters: send an empty body or {}")
	}
	rep, err := s.Bridge.Refresh(r.Context(), nil)
	if err != nil {
		return err
	}
	return ok(w, rep)
}

func dbStockQuery(ex market.Exchange, typ, keyword string, page, size int) db.StockQuery {
	return db.StockQuery{Exchange: ex, Type: market.SecurityType(typ), Keyword: keyword, Offset: (page - 1) * size, Limit: size}
}

func blockQuery(kind, keyword string) db.BlockQuery {
	return db.BlockQuery{Kind: kind, Keyword: keyword}
}
