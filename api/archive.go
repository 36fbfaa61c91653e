package api

import (
	"math"
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
	Merged         int    `json:"merged"`
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
			DerivedOpens: d.DerivedOpens, FiveMinuteOnly: d.FiveMinuteOnly, Merged: d.Merged}
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

type qualityWorst struct {
	Code         string   `json:"code"`
	Minutes      float64  `json:"minutes"`
	Day          float64  `json:"day"`
	OffPct       *float64 `json:"off_pct"`
	MinuteSource string   `json:"minute_source"`
	DaySource    string   `json:"day_source"`
}

type qualityField struct {
	Field     string         `json:"field"`
	Compared  int            `json:"compared"`
	Disagree  int            `json:"disagree"`
	Rate      *float64       `json:"rate"`
	Tolerance string         `json:"tolerance"`
	Worst     []qualityWorst `json:"worst"`
}

// handleQuality is GET /v1/api/quality: one day's measured quality, what
// the archive did with the day's universe and how often two sources of
// the same day disagree, field by field.
func (s *Server) handleQuality(w http.ResponseWriter, r *http.Request) error {
	if s.Archive == nil {
		return market.NotConfigured("the minute archive is not run by this server (archive.enabled = false)")
	}
	q := newQuery(r)
	day, given := q.day("date", "")
	if err := q.Err(); err != nil {
		return err
	}
	if !given {
		due := s.Archive.Due()
		day = due[len(due)-1]
	}
	qa, err := s.Archive.Quality(r.Context(), day)
	if err != nil {
		return err
	}
	fields := make([]qualityField, len(qa.Fields))
	for i, f := range qa.Fields {
		out := qualityField{Field: f.Field, Compared: f.Compared, Disagree: f.Disagree, Tolerance: f.Tolerance, Worst: []qualityWorst{}}
		if f.Compared > 0 {
			rate := float64(int(float64(f.Disagree)/float64(f.Compared)*1e6+0.5)) / 1e6
			out.Rate = &rate
		}
		for _, d := range f.Worst {
			x := qualityWorst{Code: d.Code.String(), Minutes: d.Minutes, Day: d.Day, MinuteSource: d.MinuteSrc, DaySource: d.DaySrc}
			if !math.IsInf(d.Off, 0) && !math.IsNaN(d.Off) { // a day's value of 0 has no relative difference
				pct := math.Round(d.Off*1e6) / 1e4
				x.OffPct = &pct
			}
			out.Worst = append(out.Worst, x)
		}
		fields[i] = out
	}
	return ok(w, map[string]any{
		"date": day.String(), "as_of": market.FormatTime(s.Clock.Now()),
		"universe": qa.Universe, "archived": qa.Archived, "flagged": qa.Flagged, "gaps": qa.Gaps, "missing": qa.Missing,
		"derived_opens": qa.DerivedOpens, "compared": qa.Compared,
		"sources": map[string]any{"minutes": qa.MinuteSources, "day": qa.DaySources},
		"fields":  fields,
	})
}
