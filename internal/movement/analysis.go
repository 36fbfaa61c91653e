package movement

import (
	"context"
	"time"

	"mdqs/internal/board"
	"mdqs/internal/market"
)

// Analysis is the market-level turnover analysis of the movements endpoint.
// Market totals come from the industry family of the same source (every
// stock belongs to exactly one industry, so its sums are the market's;
// concepts overlap and would count stocks twice); the sector counts are
// those of the family asked for.
type Analysis struct {
	Day            string     `json:"day"`
	AsOf           string     `json:"as_of"`
	Source         string     `json:"source"`
	SessionMinutes int        `json:"session_minutes"` // minutes of continuous trading by as_of (0-240)
	Amount         market.Num `json:"amount"`          // turnover so far, yuan
	PrevDay        string     `json:"prev_day"`        // the previous trading day
	PrevAmount     market.Num `json:"prev_amount"`     // its turnover at the same minute
	AmountRatio    market.Num `json:"amount_ratio"`    // amount / prev_amount: above 1, a busier session
	PrevDayAmount  market.Num `json:"prev_day_amount"` // its whole-day turnover
	MainNet        market.Num `json:"main_net"`        // the market's main-force net inflow
	MainNetRatio   market.Num `json:"main_net_ratio"`  // main_net / amount, percent
	SectorsUp      int        `json:"sectors_up"`      // sectors of the family rising
	SectorsDown    int        `json:"sectors_down"`
	SectorsFlat    int        `json:"sectors_flat"`
	StocksUp       *int       `json:"stocks_up"` // rising stocks; null when the source does not count members
	StocksDown     *int       `json:"stocks_down"`
	Movers         int        `json:"movers"` // sectors of the family that moved today
}

// Analyse builds the analysis of a day for the family of a query.
func (s *Service) Analyse(ctx context.Context, kind market.SectorKind, mode string, day market.Day, family Slice) (*Analysis, error) {
	source := board.Resolve(mode, market.Industry)
	ind, err := s.snapshot(ctx, market.Industry, source, day)
	if err != nil {
		return nil, err
	}
	if amount, _ := total(ind.Sectors); !market.IsKnown(amount) && mode == board.SourceAuto {
		// akshare's industry list carries no amounts; push2's does.
		if alt, aerr := s.snapshot(ctx, market.Industry, board.SourcePush2, day); aerr == nil {
			ind, source = alt, board.SourcePush2
		}
	}
	a := &Analysis{Day: day.Compact(), AsOf: market.FormatTime(ind.At), Source: source, SessionMinutes: market.SessionMinute(ind.At)}
	amount, mainNet := total(ind.Sectors)
	a.Amount, a.MainNet = market.Num(amount), market.Num(mainNet)
	a.MainNetRatio = market.Num(ratio(mainNet, amount) * 100)
	up, down, known := 0, 0, true
	for _, x := range ind.Sectors {
		if x.Up < 0 || x.Down < 0 {
			known = false
		}
		up, down = up+x.Up, down+x.Down
	}
	if known {
		a.StocksUp, a.StocksDown = &up, &down
	}
	for _, r := range family.Rows {
		switch p := float64(r.Pct); {
		case p > 0:
			a.SectorsUp++
		case p < 0:
			a.SectorsDown++
		case p == 0:
			a.SectorsFlat++
		}
		if r.EventTS != nil {
			a.Movers++
		}
	}
	prev := s.cal.Prev(day)
	a.PrevDay = prev.String()
	a.PrevAmount, a.AmountRatio, a.PrevDayAmount = market.Num(market.Unknown()), market.Num(market.Unknown()), market.Num(market.Unknown())
	sameMinute := prev.At(ind.At.In(market.Shanghai()).Clock())
	if snap, err := s.prevAt(ctx, source, prev, sameMinute); err == nil {
		pa, _ := total(snap.Sectors)
		a.PrevAmount, a.AmountRatio = market.Num(pa), market.Num(ratio(amount, pa))
	}
	if whole, err := s.snapshot(ctx, market.Industry, source, prev); err == nil {
		pa, _ := total(whole.Sectors)
		a.PrevDayAmount = market.Num(pa)
	}
	return a, nil
}

// prevAt is the industry family as it stood at t on an earlier day: the
// last collection at or before t, or the demo's replay of that moment.
func (s *Service) prevAt(ctx context.Context, source string, day market.Day, t time.Time) (market.SectorSnapshot, error) {
	snap, err := s.store.SnapshotAsOf(ctx, market.Industry, source, day, t)
	if board.IsNotFound(err) {
		st, herr := s.col.History(ctx, market.Industry, source, t)
		return st.SectorSnapshot, herr
	}
	return snap, err
}

// total sums amounts and main nets over the sectors that have them; a sum
// with nothing to add is unknown (NaN), never a silent zero.
func total(sectors []market.Sector) (amount, mainNet float64) {
	amount, mainNet = market.Unknown(), market.Unknown()
	add := func(sum *float64, v float64) {
		if market.IsKnown(v) {
			if !market.IsKnown(*sum) {
				*sum = 0
			}
			*sum += v
		}
	}
	for _, x := range sectors {
		add(&amount, x.Amount)
		add(&mainNet, x.MainNet)
	}
	return amount, mainNet
}

func ratio(a, b float64) float64 {
	if b == 0 || !market.IsKnown(a) || !market.IsKnown(b) {
		return market.Unknown()
	}
	return a / b
}
