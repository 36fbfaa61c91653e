package indicator

import (
	"mdqs/internal/market"
)

// Column is one named output series, aligned with the bars it came from.
type Column struct {
	Name   string
	Values []float64
}

// Lookback is the largest Spec.Lookback of specs: the bars to load before
// the first requested row.
func Lookback(specs []Spec) int {
	n := 0
	for _, s := range specs {
		n = max(n, s.Lookback())
	}
	return n
}

// Eval computes specs over bars in time order, returning their columns in
// spec order (macd expands to macd_dif, macd_dea, macd_hist). Undefined
// points are NaN. Specs must be valid and their columns distinct, as
// ParseList guarantees.
func Eval(bars []market.Bar, specs []Spec) ([]Column, error) {
	seen := make(map[string]bool, len(specs))
	width := 0
	for _, s := range specs {
		if err := s.Validate(); err != nil {
			return nil, err
		}
		for _, name := range s.Columns() {
			if seen[name] {
				return nil, market.Errorf(market.KindInvalid, "indicator: column %s requested twice", name)
			}
			seen[name] = true
			width++
		}
	}
	if len(specs) == 0 {
		return nil, nil
	}
	closes := make([]float64, len(bars))
	var vols []float64
	for t, b := range bars {
		closes[t] = b.Close
	}
	cols := make([]Column, 0, width)
	for _, s := range specs {
		switch s.Kind {
		case SpecMA:
			v, err := SMA(nil, closes, s.Period)
			if err != nil {
				return nil, err
			}
			cols = append(cols, Column{s.Name(), v})
		case SpecEMA:
			v, err := EMA(nil, closes, s.Period)
			if err != nil {
				return nil, err
			}
			cols = append(cols, Column{s.Name(), v})
		case SpecVMA:
			if vols == nil {
				vols = make([]float64, len(bars))
				for t, b := range bars {
					vols[t] = volumeOf(b)
				}
			}
			v, err := SMA(nil, vols, s.Period)
			if err != nil {
				return nil, err
			}
			cols = append(cols, Column{s.Name(), v})
		case SpecMACD:
			var m MACDSeries
			if err := MACD(&m, closes, DefaultMACDParams(), SeedFirst); err != nil {
				return nil, err
			}
			cols = append(cols, Column{"macd_dif", m.DIF}, Column{"macd_dea", m.DEA}, Column{"macd_hist", m.Hist})
		}
	}
	return cols, nil
}
