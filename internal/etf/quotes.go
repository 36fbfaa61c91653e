package etf

import (
	"context"
	"errors"

	"mdqs/internal/market"
)

// Quotes is the list as quotes, for the security master and the end of
// day: each fund's code, name, prices and volume as of the list's fetch,
// so that the day's universe, and with it the minute archive, holds the
// ETFs the A-share quote list leaves out, and each has its daily bar. A stale list is an error: its funds are of
// another moment than the one being recorded.
func (s *Service) Quotes(ctx context.Context) ([]market.Quote, error) {
	l, err := s.List(ctx)
	if err != nil {
		return nil, err
	}
	if l.Stale {
		return nil, errors.New(l.Problem)
	}
	out := make([]market.Quote, 0, len(l.Rows))
	for _, r := range l.Rows {
		at := r.At
		if at.IsZero() {
			at = l.Fetched
		}
		// What the list does not give is unknown, never 0: the end of
		// day stores these as the fund's daily bar (its main-force net
		// unknown).
		nan := market.Unknown()
		out = append(out, market.Quote{Code: r.Code, Name: r.Name, Price: r.Price, PrevClose: r.PrevClose, Open: r.Open,
			High: r.High, Low: r.Low, Volume: r.Volume, Amount: r.Amount, Pct: r.Pct, Change: r.Change, Turnover: r.Turnover,
			MarketCap: r.MarketValue, FloatCap: r.FloatValue, Amplitude: nan, VolumeRatio: nan, PE: nan, PB: nan,
			MainNet: nan, MainNetRatio: nan, Speed: nan, At: at})
	}
	return out, nil
}
