package bridge

import (
	"context"

	"mdqs/internal/market"
	"mdqs/internal/tdx"
)

// Bars reads a code's bars of a frequency between two days straight from
// the terminal's files (no store): .day for D, .lc1 (or .1) for 1m, .lc5
// (or .5) for 5m. A code without such a file is a not-found error.
func (s *Service) Bars(ctx context.Context, code market.Code, freq market.Freq, from, to market.Day) ([]market.Bar, error) {
	t, err := s.terminal(false)
	if err != nil {
		return nil, err
	}
	var kinds []tdx.Kind
	switch freq {
	case market.Daily:
		kinds = []tdx.Kind{tdx.KindDay}
	case market.Min1:
		kinds = []tdx.Kind{tdx.KindLC1, tdx.KindMin1}
	default:
		kinds = []tdx.Kind{tdx.KindLC5, tdx.KindMin5}
	}
	for _, k := range kinds {
		for _, f := range t.Find(k) {
			if f.Code != code {
				continue
			}
			bf, err := t.Bars(f)
			if bf == nil {
				return nil, market.Wrap(market.KindUnavailable, err, "reading %s: %v", s.rel(f.Path), err)
			}
			var out []market.Bar
			for _, b := range bf.Bars {
				if b.Day >= from && b.Day <= to {
					out = append(out, b)
				}
			}
			if freq == market.Daily {
				if err := s.withTurnover(ctx, code, out); err != nil {
					return nil, err
				}
			}
			return out, nil
		}
	}
	return nil, market.Errorf(market.KindNotFound, "the terminal has no %s bars of %v", freq, code)
}
