package api

import (
	"net/http"
	"time"

	"mdqs/internal/crosssection"
	"mdqs/internal/market"
	"mdqs/internal/secmaster"
)

// maxCrossSectionPage lets the whole market (about 5,300 stocks) fit one
// page of a cross-section.
const maxCrossSectionPage = 10_000

type dailyItem struct {
	Code         string   `json:"code"`
	Name         string   `json:"name"`
	Type         string   `json:"type"`
	ST           *string  `json:"st"`
	Suspended    bool     `json:"suspended"`
	Open         *float64 `json:"open"`
	High         *float64 `json:"high"`
	Low          *float64 `json:"low"`
	Close        *float64 `json:"close"`
	PrevClose    *float64 `json:"prev_close"`
	Pct          *float64 `json:"pct"`
	Volume       *int64   `json:"volume"`
	Amount       *float64 `json:"amount"`
	TurnoverRate *float64 `json:"turnover_rate"`
}

// handleBarsDaily is GET /v1/api/bars/daily: every security listed on a
// day with its daily bar of that day.
func (s *Server) handleBarsDaily(w http.ResponseWriter, r *http.Request) error {
	if s.CrossSection == nil {
		return market.NotConfigured("cross-sections are not served by this server")
	}
	q := newQuery(r)
	day, given := q.day("date", "")
	if !given && q.Err() == nil {
		q.fail("", "date is required: the trading day of the cross-section, YYYY-MM-DD")
	}
	codes := q.codesUpTo(maxCrossSectionPage, "codes")
	var f secmaster.Filter
	f.Type = market.SecurityType(q.oneOf("type", "", "", "stock", "index", "fund", "bond", "b_share", "repo", "preferred", "abs", "other"))
	page := q.intIn("page", 1, 1, 1_000_000)
	size := q.intIn("page_size", 1000, 1, maxCrossSectionPage)
	if err := q.Err(); err != nil {
		return err
	}
	shown, total, rec, err := s.CrossSection.Daily(r.Context(), day, f, codes, crosssection.Page{Offset: (page - 1) * size, Limit: size})
	if err != nil {
		return err
	}
	items := make([]dailyItem, len(shown))
	for i, d := range shown {
		it := dailyItem{Code: d.Code.String(), Name: d.Name, Type: string(d.Type), ST: optional(d.ST), Suspended: d.Suspended,
			PrevClose: orNull(d.PrevClose)}
		if b := d.Bar; d.HasBar() {
			vol := b.Volume
			it.Open, it.High, it.Low, it.Close = orNull(b.Open), orNull(b.High), orNull(b.Low), orNull(b.Close)
			it.Volume, it.Amount, it.TurnoverRate = &vol, orNull(b.Amount), orNull(b.TurnoverRate)
			if d.PrevClose > 0 {
				it.Pct = orNull(round4((b.Close/d.PrevClose - 1) * 100))
			}
		}
		items[i] = it
	}
	return ok(w, map[string]any{"date": day.String(), "total": total, "page": page, "page_size": size, "items": items,
		"recorded": recordedOf(rec), "source": s.sourceLabel("store"), "universe_source": s.sourceLabel(rec.Source)})
}

type minuteItem struct {
	Code         string   `json:"code"`
	Name         string   `json:"name"`
	Type         string   `json:"type"`
	ST           *string  `json:"st"`
	Suspended    bool     `json:"suspended"`
	Time         *string  `json:"time"`
	Open         *float64 `json:"open"`
	High         *float64 `json:"high"`
	Low          *float64 `json:"low"`
	Close        *float64 `json:"close"`
	PrevClose    *float64 `json:"prev_close"`
	Pct          *float64 `json:"pct"`
	Volume       *int64   `json:"volume"`
	Amount       *float64 `json:"amount"`
	TurnoverRate *float64 `json:"turnover_rate"`
}

// handleBarsMinute is GET /v1/api/bars/minute: every security listed on a
// day with its 1-minute bar ending at one minute of it.
func (s *Server) handleBarsMinute(w http.ResponseWriter, r *http.Request) error {
	if s.CrossSection == nil {
		return market.NotConfigured("cross-sections are not served by this server")
	}
	q := newQuery(r)
	day, given := q.day("date", "")
	if !given && q.Err() == nil {
		q.fail("", "date is required: the trading day of the cross-section, YYYY-MM-DD")
	}
	at, given := q.clock("time", "the minute a 1-minute bar ends at: "+crosssection.BarMinutes)
	switch {
	case !given && q.Err() == nil:
		q.fail("", "time is required: the minute a 1-minute bar ends at, HH:MM: %s", crosssection.BarMinutes)
	case given && !crosssection.IsBarMinute(at):
		q.fail("", "time %v has no 1-minute bar: bars end at %s", at, crosssection.BarMinutes)
	}
	codes := q.codesUpTo(maxCrossSectionPage, "codes")
	var f secmaster.Filter
	f.Type = market.SecurityType(q.oneOf("type", "", "", "stock", "index", "fund", "bond", "b_share", "repo", "preferred", "abs", "other"))
	page := q.intIn("page", 1, 1, 1_000_000)
	size := q.intIn("page_size", 1000, 1, maxCrossSectionPage)
	if err := q.Err(); err != nil {
		return err
	}
	shown, total, rec, err := s.CrossSection.Minute(r.Context(), day, at, f, codes, crosssection.Page{Offset: (page - 1) * size, Limit: size})
	if err != nil {
		return err
	}
	items := make([]minuteItem, len(shown))
	for i, m := range shown {
		it := minuteItem{Code: m.Code.String(), Name: m.Name, Type: string(m.Type), ST: optional(m.ST), Suspended: m.Suspended,
			PrevClose: orNull(m.PrevClose)}
		if b := m.Bar; m.HasBar() {
			vol, ts := b.Volume, market.FormatTime(time.Unix(b.TS, 0))
			it.Time = &ts
			it.Open, it.High, it.Low, it.Close = orNull(b.Open), orNull(b.High), orNull(b.Low), orNull(b.Close)
			it.Volume, it.Amount, it.TurnoverRate = &vol, orNull(b.Amount), orNull(b.TurnoverRate)
			if m.PrevClose > 0 {
				it.Pct = orNull(round4((b.Close/m.PrevClose - 1) * 100))
			}
		}
		items[i] = it
	}
	return ok(w, map[string]any{"date": day.String(), "time": at.String(), "total": total, "page": page, "page_size": size, "items": items,
		"recorded": recordedOf(rec), "source": s.sourceLabel("store"), "universe_source": s.sourceLabel(rec.Source)})
}
