package api

import (
	"net/http"

	"mdqs/internal/market"
)

type archiveDayItem struct {
	Date           string `json:"date"`
	Archived       int    `json:"archived"`
	Flagged        int    `json:"flagged"`
	Gaps           int    `json:"gaps"`
	Bars           int64  `json:"bars"`
	DerivedOpens   int    `json:"derived_opens"`
	FiveMinuteOnly int    `json:"five_minute_only"`
}

// handleArchiveStatus is GET /v1/api/archive/status: what the minute
// archive holds, day by day, what is still due, and what it weighs.
func (s *Server) handleArchiveStatus(w http.ResponseWriter, r *http.Request) error {
	if s.Archive == nil {
		return market.NotConfigured("the minute archive is not run by this server (archive.enabled = false)")
	}
	if err := newQuery(r).Err(); err != nil {
		return err
	}
	st, err := s.Archive.Status(r.Context())
	if err != nil {
		return err
	}
	days := make([]archiveDayItem, len(st.Days))
	for i, d := range st.Days {
		days[i] = archiveDayItem{Date: d.Day.String(), Archived: d.Archived, Flagged: d.Flagged, Gaps: d.Gaps, Bars: d.Bars,
			DerivedOpens: d.DerivedOpens, FiveMinuteOnly: d.FiveMinuteOnly}
	}
	dates := func(ds []market.Day) []string {
		out := make([]string, len(ds))
		for i, d := range ds {
			out[i] = d.String()
		}
		return out
	}
	var perBar *float64
	if st.BytesPerBar > 0 {
		v := float64(int(st.BytesPerBar*100+0.5)) / 100
		perBar = &v
	}
	return ok(w, map[string]any{
		"source": st.Source, "as_of": market.FormatTime(s.Clock.Now()),
		"days": days, "due": dates(st.Due), "pending": dates(st.Pending), "bars": st.Bars,
		"store_bars": st.StoreBars, "store_bytes": st.StoreBytes, "bytes_per_bar": perBar,
	})
}
