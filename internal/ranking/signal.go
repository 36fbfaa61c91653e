package ranking

import (
	"math"

	"mdqs/internal/market"
)

// The derived fields of a ranked sector (spec 2.3 shows them without
// defining them; these are our definitions, also in the README and the
// OpenAPI document).
//
// r is the main-force net inflow as a percent of the sector's turnover
// amount: the source's own ratio when it gives one, else main_net / amount.
//
//	flow        "in" (main_net > 0), "out" (< 0), "flat" (= 0)
//	flow_tag    by r: >= 5 strong_inflow, >= 1 inflow, > 0 slight_inflow,
//	            = 0 flat, > -1 slight_outflow, > -5 outflow, else
//	            strong_outflow; by the sign of main_net alone when r is
//	            unknown
//	signal      from price change (pct) and r, first match wins:
//	            strong_buy   pct >= 2 and r >= 5       signal_rank  3
//	            buy          pct > 0  and r >= 1                    2
//	            accumulate   pct <= 0 and r >= 1 (inflow into a     1
//	                         flat or falling sector)
//	            strong_sell  pct <= -2 and r <= -5                 -3
//	            sell         pct < 0  and r <= -1                  -2
//	            distribute   pct >= 0 and r <= -1 (outflow from a  -1
//	                         flat or rising sector)
//	            neutral      otherwise                              0
//	count       rising member stocks; -1 when the source does not count
//	            members

const (
	SignalStrongBuy  = "strong_buy"
	SignalBuy        = "buy"
	SignalAccumulate = "accumulate"
	SignalNeutral    = "neutral"
	SignalDistribute = "distribute"
	SignalSell       = "sell"
	SignalStrongSell = "strong_sell"
)

// netRatio is r: the main net inflow as a percent of the amount.
func netRatio(s market.Sector) float64 {
	if market.IsKnown(s.MainNetRatio) {
		return s.MainNetRatio
	}
	if market.IsKnown(s.Amount) && s.Amount > 0 && market.IsKnown(s.MainNet) {
		return s.MainNet / s.Amount * 100
	}
	return math.NaN()
}

func flowOf(mainNet float64) string {
	switch {
	case mainNet > 0:
		return "in"
	case mainNet < 0:
		return "out"
	}
	return "flat"
}

func flowTag(mainNet, r float64) string {
	if !market.IsKnown(r) {
		switch {
		case mainNet > 0:
			return "inflow"
		case mainNet < 0:
			return "outflow"
		}
		return "flat"
	}
	switch {
	case r >= 5:
		return "strong_inflow"
	case r >= 1:
		return "inflow"
	case r > 0:
		return "slight_inflow"
	case r == 0:
		return "flat"
	case r > -1:
		return "slight_outflow"
	case r > -5:
		return "outflow"
	}
	return "strong_outflow"
}

func signalOf(pct, r float64) (string, int) {
	if !market.IsKnown(pct) || !market.IsKnown(r) {
		return SignalNeutral, 0
	}
	switch {
	case pct >= 2 && r >= 5:
		return SignalStrongBuy, 3
	case pct > 0 && r >= 1:
		return SignalBuy, 2
	case pct <= 0 && r >= 1:
		return SignalAccumulate, 1
	case pct <= -2 && r <= -5:
		return SignalStrongSell, -3
	case pct < 0 && r <= -1:
		return SignalSell, -2
	case pct >= 0 && r <= -1:
		return SignalDistribute, -1
	}
	return SignalNeutral, 0
}

// entry derives a ranked entry (without its rank) from a snapshot row.
func entry(s market.Sector) market.RankedSector {
	r := netRatio(s)
	sig, sigRank := signalOf(s.Pct, r)
	return market.RankedSector{
		SectorName: s.Name,
		Count:      s.Up,
		Pct:        s.Pct,
		Turnover:   s.Turnover,
		MainNet:    s.MainNet,
		Flow:       flowOf(s.MainNet),
		Signal:     sig,
		SignalRank: sigRank,
		FlowTag:    flowTag(s.MainNet, r),
	}
}
