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

// listedItem is who a security was on the day of a cross-section.
type listedItem struct {
	Code      string  `json:"code"`
	Name      string  `json:"name"`
	Type      string  `json:"type"`
	ST        *string `json:"st"`
	Suspended bool    `json:"suspended"`
}

func whoOf(sec secmaster.Security) listedItem {
	return listedItem{Code: sec.Code.String(), Name: sec.Name, Type: string(sec.Type), ST: optional(sec.ST), Suspended: sec.Suspended}
}

// barItem is a cross-section's bar, nulls where the security has none,
// with the move from the close before it (prev, NaN when none).
type barItem struct {
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

func barOf(b market.Bar, has bool, prev float64) barItem {
	it := barItem{PrevClose: orNull(prev)}
	if has {
		vol := b.Volume
		it.Open, it.High, it.Low, it.Close = orNull(b.Open), orNull(b.High), orNull(b.Low), orNull(b.Close)
		it.Volume, it.Amount, it.TurnoverRate = &vol, orNull(b.Amount), orNull(b.TurnoverRate)
		if prev > 0 {
			it.Pct = orNull(round4((b.Close/prev - 1) * 100))
		}
	}
	return it
}

type dailyItem struct {
	listedItem
	barItem
}

// crossSectionPage is what both cross-sections take after their day (and
// minute): codes, type, page and page size.
func crossSectionPage(q *query) (codes []market.Code, f secmaster.Filter, page, size int) {
	codes = q.codesUpTo(maxCrossSectionPage, "codes")
	f.Type = market.SecurityType(q.oneOf("type", "", "", "stock", "index", "fund", "bond", "b_share", "repo", "preferred", "abs", "other"))
	page = q.intIn("page", 1, 1, 1_000_000)
	size = q.intIn("page_size", 1000, 1, maxCrossSectionPage)
	return codes, f, page, size
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
	codes, f, page, size := crossSectionPage(q)
	if err := q.Err(); err != nil {
		return err
	}
	shown, total, rec, err := s.CrossSection.Daily(r.Context(), day, f, codes, crosssection.Page{Offset: (page - 1) * size, Limit: size})
	if err != nil {
		return err
	}
	items := make([]dailyItem, len(shown))
	for i, d := range shown {
		items[i] = dailyItem{whoOf(d.Security), barOf(d.Bar, d.HasBar(), d.PrevClose)}
	}
	return ok(w, map[string]any{"date": day.String(), "total": total, "page": page, "page_size": size, "items": items,
		"recorded": recordedOf(rec), "source": s.sourceLabel("store"), "universe_source": s.sourceLabel(rec.Source)})
}

type minuteItem struct {
	listedItem
	Time *string `json:"time"`
	barItem
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
	codes, f, page, size := crossSectionPage(q)
	if err := q.Err(); err != nil {
		return err
	}
	shown, total, rec, err := s.CrossSection.Minute(r.Context(), day, at, f, codes, crosssection.Page{Offset: (page - 1) * size, Limit: size})
	if err != nil {
		return err
	}
	items := make([]minuteItem, len(shown))
	for i, m := range shown {
		it := minuteItem{listedItem: whoOf(m.Security), barItem: barOf(m.Bar, m.HasBar(), m.PrevClose)}
		if m.HasBar() {
			ts := market.FormatTime(time.Unix(m.Bar.TS, 0))
			it.Time = &ts
		}
		items[i] = it
	}
	return ok(w, map[string]any{"date": day.String(), "time": at.String(), "total": total, "page": page, "page_size": size, "items": items,
		"recorded": recordedOf(rec), "source": s.sourceLabel("store"), "universe_source": s.sourceLabel(rec.Source)})
}
