package ranking

import (
	"context"

	"mdqs/internal/board"
	"mdqs/internal/market"
)

// AuctionSectors is how many merged inflow entries the auction view carries
// (spec 4.3 rule 9: its consumer keeps the first 50).
const AuctionSectors = 50

// Auction is GET /v1/api/strategy/auction/today: what a trader checks
// around the opening call auction, built from the current ranking.
type Auction struct {
	Day        string                `json:"day"`
	Phase      string                `json:"phase"`
	AsOf       string                `json:"as_of"`
	Source     string                `json:"source"`
	UpdatedMS  int64                 `json:"updated_ms"`
	Breadth    *Breadth              `json:"breadth"`
	Signals    map[string]int        `json:"signals"`
	Sectors    []market.RankedSector `json:"sectors"`
	SectorsOut []market.RankedSector `json:"sectors_out"`
	Leaders    []Leader              `json:"leaders"`
}

// Breadth is the market's advance/decline count, summed over the industry
// sectors (each stock belongs to exactly one industry).
type Breadth struct {
	Up   int `json:"up"`
	Down int `json:"down"`
	Flat int `json:"flat"`
}

// Leader is the leading stock of one of the strongest inflow sectors.
type Leader struct {
	Sector    string     `json:"sector"`
	Code      string     `json:"code"`
	Name      string     `json:"name"`
	Pct       market.Num `json:"pct"`
	SectorPct market.Num `json:"sector_pct"`
}

// AuctionView builds the auction view of the current trading day.
func (s *Service) AuctionView(ctx context.Context) (*Auction, bool, error) {
	day := s.CurrentDay()
	e, stale, err := s.Get(ctx, day, false)
	if err != nil {
		return nil, false, err
	}
	r := e.Ranking
	a := &Auction{
		Day: r.Day, Phase: market.Phase(s.cal, s.clock.Now()), AsOf: market.FormatTime(unix(r.TS)),
		Source: r.Source, UpdatedMS: r.UpdatedMS, Signals: map[string]int{},
		Sectors: head(r.Sectors, AuctionSectors), SectorsOut: head(r.SectorsOut, 20), Leaders: []Leader{},
	}
	for _, x := range r.Sectors {
		a.Signals[x.Signal]++
	}
	if ind, err := s.col.Latest(ctx, market.Industry, board.Resolve(s.cfg.Mode, market.Industry), day); err == nil {
		a.Breadth = breadth(ind.Sectors)
	}
	a.Leaders = s.leaders(ctx, day, a.Sectors, 10)
	return a, stale, nil
}

func breadth(sectors []market.Sector) *Breadth {
	var b Breadth
	for _, x := range sectors {
		if x.Up < 0 || x.Down < 0 {
			return nil // a source without member counts: unknown, not zero
		}
		b.Up += x.Up
		b.Down += x.Down
		b.Flat += max(x.Flat, 0)
	}
	return &b
}

// leaders finds the leading stocks of the first n sectors in the latest
// collections of the day.
func (s *Service) leaders(ctx context.Context, day market.Day, top []market.RankedSector, n int) []Leader {
	byName := map[string]market.Sector{}
	for _, kind := range []market.SectorKind{market.Industry, market.Concept} {
		st, err := s.col.Latest(ctx, kind, board.Resolve(s.cfg.Mode, kind), day)
		if err != nil {
			continue
		}
		for _, x := range st.Sectors {
			if _, dup := byName[x.Name]; !dup || kind == market.Concept {
				byName[x.Name] = x
			}
		}
	}
	out := []Leader{}
	for _, e := range head(top, n) {
		x, ok := byName[e.SectorName]
		if !ok || x.LeaderName == "" {
			continue
		}
		out = append(out, Leader{Sector: x.Name, Code: x.LeaderCode, Name: x.LeaderName, Pct: market.Num(x.LeaderPct), SectorPct: market.Num(x.Pct)})
	}
	return out
}

func head(list []market.RankedSector, n int) []market.RankedSector {
	if n < len(list) {
		list = list[:n]
	}
	if list == nil {
		return []market.RankedSector{}
	}
	return list
}
