package api

import (
	"net/http"
	"strconv"
	"strings"

	"mdqs/internal/market"
	"mdqs/internal/ranking"
)

// handleTop50 is GET /v1/api/boards/top50 (spec 4.3): the ranking object
// itself, not in the envelope, written from bytes encoded once per rebuild.
func (s *Server) handleTop50(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	day, hasDay := q.day("day", "")
	refresh := q.flag("refresh")
	top := q.intIn("top", 0, 1, 10_000)
	if err := q.Err(); err != nil {
		return err
	}
	d, err := s.Rankings.QueryDay(day, hasDay)
	if err != nil {
		return err
	}
	e, stale, err := s.Rankings.Get(r.Context(), d, refresh)
	if err != nil {
		return err
	}
	writeEncoded(w, r, e.Top(top), stale)
	return nil
}

// writeEncoded writes a pre-encoded body, gzipped when the client accepts
// it, with an ETag so pollers can ask "has it changed?" for free.
func writeEncoded(w http.ResponseWriter, r *http.Request, enc *ranking.Encoded, stale bool) {
	h := w.Header()
	h["Vary"] = varyEncoding
	h["Etag"] = []string{enc.ETag}
	if stale {
		// The rebuild failed and this is the previous ranking (spec 4.3
		// rule 3); say so for scripts that care.
		h.Set("X-Ranking-Stale", "true")
	}
	if inm := field(r, "If-None-Match"); inm != "" && inm == enc.ETag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	body := enc.JSON
	if acceptsGzip(r) {
		h["Content-Encoding"] = gzipEncoding
		body = enc.Gzip
	}
	writeBytes(w, http.StatusOK, jsonType, body)
}

// acceptsGzip reads Accept-Encoding, honouring an explicit q=0.
func acceptsGzip(r *http.Request) bool {
	for rest := field(r, "Accept-Encoding"); rest != ""; {
		var part string
		part, rest, _ = strings.Cut(rest, ",")
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(name), "gzip") {
			continue
		}
		if qv, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
			if f, err := strconv.ParseFloat(qv, 64); err == nil && f == 0 {
				return false
			}
		}
		return true
	}
	return false
}

// handleAuction is GET /v1/api/strategy/auction/today.
func (s *Server) handleAuction(w http.ResponseWriter, r *http.Request) error {
	a, stale, err := s.Rankings.AuctionView(r.Context())
	if err != nil {
		return err
	}
	if stale {
		w.Header().Set("X-Ranking-Stale", "true")
	}
	return ok(w, a)
}

// maxStatsDays bounds one stats/range request.
const maxStatsDays = 366

// handleStatsRange is GET /v1/api/market/stats/range.
func (s *Server) handleStatsRange(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	current := s.Rankings.CurrentDay()
	from, hasFrom := q.day("start", "")
	to, hasTo := q.day("end", "")
	top := q.intIn("top", 10, 1, ranking.StatsTop) // the names a day keeps
	if err := q.Err(); err != nil {
		return err
	}
	if !hasTo {
		to = current
	}
	if !hasFrom {
		from = to.AddDays(-30)
	}
	switch {
	case from > to:
		return market.Errorf(market.KindInvalid, "start %v is after end %v", from, to)
	case to.Start().Sub(from.Start()).Hours()/24 >= maxStatsDays:
		return market.Errorf(market.KindInvalid, "a range spans at most %d days", maxStatsDays)
	}
	if to > current {
		to = current
	}
	stats, missing, err := s.Rankings.StatsRange(r.Context(), from, to, top)
	if err != nil {
		return err
	}
	return ok(w, map[string]any{
		"start": from.Compact(), "end": to.Compact(), "top": top,
		"daily_stats": stats, "missing_days": missing,
	})
}
