package bridge

import (
	"context"
	"time"

	"mdqs/db"
	"mdqs/internal/market"
	"mdqs/internal/secmaster"
	"mdqs/internal/tdx"
)

// recordNames records the name files in the security master as what the
// terminal listed on the day their headers state: a second daily record
// beside the quote list's, which fills a day the server did not record
// (it was off at the close, the terminal was not). Files of no single
// trading day, or of a day older than the last one recorded from them
// (an older install's), say nothing of a day.
func (s *Service) recordNames(ctx context.Context, secs []tdx.Security, day market.Day, now time.Time) error {
	if day == 0 || len(secs) == 0 || !s.cal.IsTradingDay(day) {
		return nil
	}
	rec, err := s.store.SecurityDays(ctx, secmaster.TerminalSource)
	switch {
	case err != nil && market.KindOf(err) != market.KindNotFound:
		return err
	case err == nil && day <= rec.Last:
		return nil
	}
	obs := make([]db.SecurityObservation, len(secs))
	for i, sec := range secs {
		obs[i] = db.SecurityObservation{Code: sec.Code, Name: sec.Name, ST: secmaster.STOf(sec.Name)}
	}
	_, err = s.store.RecordSecurityDay(ctx, secmaster.TerminalSource, day, obs, now)
	return err
}
