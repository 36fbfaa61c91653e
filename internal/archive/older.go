package archive

import (
	"context"

	"mdqs/db"
	"mdqs/internal/market"
)

// olderDays are the trading days the archive owes from before the
// 1-minute window that starts at windowStart: every one since the
// archive's first day (a PC off for longer than the window lost their
// minutes, and the archive says so rather than forget them), oldest
// first. A store that never archived owes none: its archive begins with
// the window.
func (s *Service) olderDays(ctx context.Context, windowStart market.Day) ([]market.Day, error) {
	first, ok, err := s.store.ArchiveFirstDay(ctx)
	if err != nil || !ok || first >= windowStart {
		return nil, err
	}
	return s.cal.Between(first, s.cal.Prev(windowStart)), nil
}

// fetchFive keeps code's owed days from before the 1-minute window: as
// 5-minute bars where the 5-minute source still has them (one request for
// them all), the rest as gaps saying no source has the day any more.
func (s *Service) fetchFive(ctx context.Context, code market.Code, days []market.Day, rep *Report) ([]db.ArchiveEntry, error) {
	reach := market.Day(0)
	if s.cfg.Five != nil && s.cfg.FiveMinuteDays > 0 {
		reach = s.Due()[0]
		for range s.cfg.FiveMinuteDays {
			reach = s.cal.Prev(reach)
		}
	}
	byDay := map[market.Day][]market.Bar{}
	var askErr error
	if reach != 0 && days[len(days)-1] >= reach {
		if err := s.pace.wait(ctx); err != nil {
			return nil, err
		}
		rep.Requests++
		bars, err := s.cfg.Five.Klines(ctx, code, market.Min5, max(days[0], reach), days[len(days)-1])
		if err != nil && !isEmpty(err) {
			return nil, err
		}
		askErr = err
		for _, b := range bars {
			byDay[b.Day] = append(byDay[b.Day], b)
		}
	}
	rep.Codes++
	cov, err := s.coverageOf(ctx, code)
	if err != nil {
		return nil, err
	}
	now := s.clock.Now()
	var out []db.ArchiveEntry
	for _, d := range days {
		rec := db.ArchiveDay{Day: d, Code: code, Source: s.cfg.SourceName, At: now}
		five := byDay[d]
		if len(five) == 0 {
			rec.Status, rec.Reason = db.ArchiveGap, "past the source's 1-minute window"
			switch {
			case reach == 0 || d < reach:
				rec.Reason += ", and past its 5-minute reach: no source has the day any more"
			case askErr != nil:
				rec.Reason += "; the 5-minute source has none: " + askErr.Error()
			default:
				rec.Reason += "; the 5-minute source has none of the day"
			}
			rep.Gaps++
			out = append(out, db.ArchiveEntry{Day: rec})
			continue
		}
		rec.Freq, rec.Bars, rec.OpensGiven = 5, len(five), true
		if err := s.judge(ctx, &rec, five, 48, rep); err != nil {
			return nil, err
		}
		rec.Reason = fiveReason(rec.Reason)
		out = append(out, db.ArchiveEntry{Day: rec, Batches: s.batches(code, d, five, cov, s.cfg.SourceName, market.Min5)})
	}
	return out, nil
}

// fiveReason is the reason of a day kept as 5-minute bars, with the
// check's problem ("" when none).
func fiveReason(problem string) string {
	if problem == "" {
		return "5-minute bars only: the day was past the source's 1-minute window"
	}
	return "5-minute bars only; " + problem
}
