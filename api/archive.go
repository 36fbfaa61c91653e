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
	// A day the security master did not record has no archive measure, but
	// its published limit pools still compare with the ones derived from
	// the stored bars: the archive part says why it is empty.
	status, detail := "measured", (*string)(nil)
	qa, err := s.Archive.Quality(r.Context(), day)
	switch {
	case market.KindOf(err) == market.KindNotFound && s.LimitPools != nil:
		msg := err.Error()
		status, detail = "not_recorded", &msg
	case err != nil:
		return err
	}
	fields := make([]qualityField, len(qa.Fields))
	for i, f := range qa.Fields {
		out := qualityField{Field: f.Field, Compared: f.Compared, Disagree: f.Disagree, Tolerance: f.Tolerance, Worst: []qualityWorst{}}
		out.Rate = rateOf(f.Disagree, f.Compared)
		for _, d := range f.Worst {
			out.Worst = append(out.Worst, qualityWorst{Code: d.Code.String(), Minutes: d.Minutes, Day: d.Day,
				MinuteSource: d.MinuteSrc, DaySource: d.DaySrc, OffPct: offPct(d.Off)})
		}
		fields[i] = out
	}
	pools, err := s.limitPoolQuality(r.Context(), day)
	if err != nil {
		return err
	}
	return ok(w, map[string]any{
		"date": day.String(), "as_of": market.FormatTime(s.Clock.Now()),
		// EastMoney's published limit pools against the derived ones
		// (limitpool_quality.go).
		"limit_pools":    pools,
		"archive_status": status, "archive_detail": detail,
		"universe": qa.Universe, "archived": qa.Archived, "flagged": qa.Flagged, "gaps": qa.Gaps, "missing": qa.Missing,
		"derived_opens": qa.DerivedOpens, "compared": qa.Compared,
		"sources": map[string]any{"minutes": qa.MinuteSources, "day": qa.DaySources},
		"fields":  fields,
		// The pairs read from the terminal's files, when a terminal
		// folder is configured (quality_pairs.go).
		"comparisons": comparisonsOf(qa.Comparisons), "terminal_error": optional(qa.TerminalError),
	})
}

// rateOf is disagree / compared to six decimals; nil when nothing was
// compared, which is no rate rather than a rate of 0.
func rateOf(disagree, compared int) *float64 {
	if compared == 0 {
		return nil
	}
	rate := float64(int(float64(disagree)/float64(compared)*1e6+0.5)) / 1e6
	return &rate
}

// offPct is a relative difference in percent to four decimals; nil where
// the reference value is 0 and there is no relative difference.
func offPct(off float64) *float64 {
	if math.IsInf(off, 0) || math.IsNaN(off) {
		return nil
	}
	pct := math.Round(off*1e6) / 1e4
	return &pct
}
