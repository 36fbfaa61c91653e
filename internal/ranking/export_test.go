package ranking

import (
	"context"

	"mdqs/internal/board"
	"mdqs/internal/market"
)

// StatsRangeFromRankings is StatsRange as it was before the stats were
// kept (issue 32): every day's whole stored ranking read and cut to top,
// a past day without one rebuilt through the ranking cache and stored.
// The tests hold the kept stats to its answers, and BenchmarkStatsRange
// measures it beside them.
func (s *Service) StatsRangeFromRankings(ctx context.Context, from, to market.Day, top int) (stats []DailyStats, missing []string, err error) {
	current := s.CurrentDay()
	stored, err := s.store.DailyRankingDays(ctx, from, to)
	if err != nil {
		return nil, nil, err
	}
	stats, missing = []DailyStats{}, []string{}
	for _, d := range s.cal.Between(from, to) {
		var r *market.Ranking
		provisional := false
		switch {
		case stored[d]:
			if r, err = s.store.DailyRanking(ctx, d); err != nil {
				return nil, nil, err
			}
		case d == current:
			e, _, err := s.Get(ctx, d, false)
			if err != nil {
				return nil, nil, err
			}
			r, provisional = e.Ranking, true
		case d > current:
			missing = append(missing, d.Compact())
			continue
		default:
			e, err := s.Rebuild(ctx, d)
			if board.IsNotFound(err) {
				missing = append(missing, d.Compact())
				continue
			}
			if err != nil {
				return nil, nil, err
			}
			if err := s.store.SaveDailyRanking(ctx, d, e.Ranking); err != nil {
				return nil, nil, err
			}
			r = e.Ranking
		}
		stats = append(stats, DailyStats{
			TradeDay:            d.Compact(),
			IndustryTopInNames:  topNames(r.Industry, top),
			ConceptTopInNames:   topNames(r.Concept, top),
			IndustryTopOutNames: topNames(r.IndustryOut, top),
			ConceptTopOutNames:  topNames(r.ConceptOut, top),
			SectorsTopInNames:   topNames(r.Sectors, top),
			Source:              r.Source,
			UpdatedMS:           r.UpdatedMS,
			Provisional:         provisional,
		})
	}
	return stats, missing, nil
}

func topNames(list []market.RankedSector, n int) []string {
	out := []string{}
	for _, e := range head(list, n) {
		out = append(out, e.SectorName)
	}
	return out
}
