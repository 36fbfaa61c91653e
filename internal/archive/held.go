package archive

import (
	"context"

	"mdqs/db"
	"mdqs/internal/market"
)

// held records the owed days whose whole 1-minute day the store already
// holds (the terminal's .lc1 files, the end-of-day job's watched codes, a
// K-line request): checked like a fetched day and recorded under the
// source that stored it, with no request. It returns those entries and
// the days still to fetch.
func (s *Service) held(ctx context.Context, code market.Code, days []market.Day, rep *Report) ([]db.ArchiveEntry, []market.Day, error) {
	stored, err := s.store.MinuteDays(ctx, code, market.Min1, days[0], days[len(days)-1])
	if err != nil {
		return nil, nil, err
	}
	whole := map[market.Day]db.MinuteDay{}
	for _, d := range stored {
		if len(d.Bars) == 240 {
			whole[d.Day] = d
		}
	}
	now := s.clock.Now()
	var out []db.ArchiveEntry
	var rest []market.Day
	for _, d := range days {
		day, ok := whole[d]
		if !ok {
			rest = append(rest, d)
			continue
		}
		rec := db.ArchiveDay{Day: d, Code: code, Freq: 1, Bars: 240, OpensGiven: true, Source: day.Source, At: now}
		if err := s.judge(ctx, &rec, day.Bars, 240, rep); err != nil {
			return nil, nil, err
		}
		rep.Held++
		out = append(out, db.ArchiveEntry{Day: rec})
	}
	return out, rest, nil
}
