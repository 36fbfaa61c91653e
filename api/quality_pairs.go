package api

import (
	"time"

	"mdqs/internal/archive"
	"mdqs/internal/market"
)

// The comparisons of GET /v1/api/quality with the terminal's files: each
// pair names its two sides (a: the terminal's file, b: the store's or the
// archive's bars), counts the codes by each side's source, and has the
// per-field shape of the top-level "fields" with a and b in place of
// minutes and day.

type pairWorst struct {
	Code    string   `json:"code"`
	A       float64  `json:"a"`
	B       float64  `json:"b"`
	OffPct  *float64 `json:"off_pct"`
	ASource string   `json:"a_source"`
	BSource string   `json:"b_source"`
	Time    *string  `json:"time"`        // the worst minute's end; null for a daily bar
	Minutes *int     `json:"minutes_off"` // the code's minutes that disagree on the field; null for a daily bar
}

type pairField struct {
	Field     string      `json:"field"`
	Compared  int         `json:"compared"`
	Disagree  int         `json:"disagree"`
	Rate      *float64    `json:"rate"`
	Tolerance string      `json:"tolerance"`
	Worst     []pairWorst `json:"worst"`
}

type pairSources struct {
	A map[string]int `json:"a"`
	B map[string]int `json:"b"`
}

type comparisonItem struct {
	Name       string      `json:"name"`
	A          string      `json:"a"`
	B          string      `json:"b"`
	Compared   int         `json:"compared"`
	SameSource int         `json:"same_source"`
	Partial    int         `json:"partial"`
	Unreadable int         `json:"unreadable"`
	Sources    pairSources `json:"sources"`
	Fields     []pairField `json:"fields"`
}

// comparisonsOf encodes the pairs; never nil, so the answer always holds
// a list (empty without a terminal folder).
func comparisonsOf(cs []archive.Comparison) []comparisonItem {
	out := make([]comparisonItem, 0, len(cs))
	for _, c := range cs {
		item := comparisonItem{Name: c.Name, A: c.A, B: c.B, Compared: c.Compared, SameSource: c.SameSource,
			Partial: c.Partial, Unreadable: c.Unreadable, Sources: pairSources{A: c.ASources, B: c.BSources}}
		for _, f := range c.Fields {
			pf := pairField{Field: f.Field, Compared: f.Compared, Disagree: f.Disagree, Rate: rateOf(f.Disagree, f.Compared),
				Tolerance: f.Tolerance, Worst: []pairWorst{}}
			for _, d := range f.Worst {
				w := pairWorst{Code: d.Code.String(), A: d.A, B: d.B, OffPct: offPct(d.Off), ASource: d.ASrc, BSource: d.BSrc}
				if d.TS != 0 {
					at, n := market.FormatTime(time.Unix(d.TS, 0)), d.Minutes
					w.Time, w.Minutes = &at, &n
				}
				pf.Worst = append(pf.Worst, w)
			}
			item.Fields = append(item.Fields, pf)
		}
		out = append(out, item)
	}
	return out
}
