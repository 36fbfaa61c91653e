package screener

import (
	"context"

	"mdqs/db"
	"mdqs/internal/market"
)

// StoreHotRanks reads the newest stored hot-rank list.
type StoreHotRanks struct {
	Store *db.Store
	Clock market.Clock
}

func (h StoreHotRanks) LatestHotRanks(ctx context.Context) (map[string]HotRank, error) {
	day, err := h.Store.LatestHotRankDay(ctx, market.DayOf(h.Clock.Now()))
	if err != nil {
		return nil, err
	}
	rows, _, err := h.Store.HotRank(ctx, db.HotRankQuery{Day: day})
	if err != nil {
		return nil, err
	}
	out := make(map[string]HotRank, len(rows))
	for _, r := range rows {
		out[r.Code.String()] = HotRank{Rank: r.Rank, Heat: float64(r.Heat)}
	}
	return out, nil
}

// StoreMembership reads industries and concepts from the stored blocks
// (the terminal bridge's), the most specific industry of each stock.
type StoreMembership struct{ Store *db.Store }

func (m StoreMembership) Membership(ctx context.Context) (map[string]string, map[string][]string, error) {
	ind, err := m.Store.Membership(ctx, "industry")
	if err != nil {
		return nil, nil, err
	}
	con, err := m.Store.Membership(ctx, "concept")
	if err != nil {
		return nil, nil, err
	}
	industry := make(map[string]string, len(ind))
	for code, names := range ind {
		industry[code] = names[0]
	}
	return industry, con, nil
}
