// Package ranking builds the day's sector ranking by main-force net inflow
// (spec 4.3), serves it from the cache with a soft and a hard expiry, and
// keeps each day's final ranking in the daily table.
package ranking

import (
	"cmp"
	"slices"
	"time"

	"mdqs/internal/market"
)

// Build ranks two snapshots (spec 4.3 rules 1 and 2):
//   - inflow lists sort by main_net descending, outflow lists ascending;
//     rank is the position in its own list from 0; equal inflows order by
//     name so a ranking is reproducible;
//   - sectors takes the concept entries first, adds the industry entries,
//     drops any whose name is already in (so a concept wins a name clash),
//     and ranks the merged list by main_net like the others;
//   - a sector whose main_net is unknown cannot be ranked by inflow and is
//     left out.
func Build(industry, concept market.SectorSnapshot, source string, day market.Day, built time.Time) *market.Ranking {
	ind := entries(industry)
	con := entries(concept)
	merged := make([]market.RankedSector, 0, len(ind)+len(con))
	seen := make(map[string]bool, len(ind)+len(con))
	for _, list := range [][]market.RankedSector{con, ind} {
		for _, e := range list {
			if !seen[e.SectorName] {
				seen[e.SectorName] = true
				merged = append(merged, e)
			}
		}
	}
	asOf := industry.At
	if concept.At.After(asOf) {
		asOf = concept.At
	}
	return &market.Ranking{
		TS:          asOf.Unix(),
		Day:         day.Compact(),
		Source:      source,
		UpdatedMS:   built.UnixMilli(),
		Industry:    ranked(ind, inflowFirst),
		Concept:     ranked(con, inflowFirst),
		IndustryOut: ranked(ind, outflowFirst),
		ConceptOut:  ranked(con, outflowFirst),
		Sectors:     ranked(merged, inflowFirst),
		SectorsOut:  ranked(merged, outflowFirst),
	}
}

func entries(s market.SectorSnapshot) []market.RankedSector {
	out := make([]market.RankedSector, 0, len(s.Sectors))
	for _, x := range s.Sectors {
		if market.IsKnown(x.MainNet) && x.Name != "" {
			out = append(out, entry(x))
		}
	}
	return out
}

func inflowFirst(a, b market.RankedSector) int {
	return cmp.Or(cmp.Compare(b.MainNet, a.MainNet), cmp.Compare(a.SectorName, b.SectorName))
}

func outflowFirst(a, b market.RankedSector) int {
	return cmp.Or(cmp.Compare(a.MainNet, b.MainNet), cmp.Compare(a.SectorName, b.SectorName))
}

// ranked returns a sorted copy with ranks set.
func ranked(in []market.RankedSector, order func(a, b market.RankedSector) int) []market.RankedSector {
	out := slices.Clone(in)
	slices.SortStableFunc(out, order)
	for i := range out {
		out[i].Rank = i
	}
	if out == nil {
		out = []market.RankedSector{}
	}
	return out
}

func unix(sec int64) time.Time { return time.Unix(sec, 0) }
