package archive

import (
	"context"

	"mdqs/db"
	"mdqs/internal/market"
)

// banStreak is how many codes in a row that traded the session before may
// come back empty before the run calls it a ban: one empty answer is a
// code with no minutes (a gap); three in a row, from codes that had them
// a day ago, is the source refusing us.
const banStreak = 3

// banReporter is a source that can be told it is refusing us
// (upstream.Push2His.SuspectBan: the host cools down, the next request
// goes to the next host).
type banReporter interface{ SuspectBan() }

// banWatch holds back the gaps of codes that had minutes the session
// before until a code answers again: they are gaps if one does, and
// dropped (asked again next run) if banStreak of them come in a row.
type banWatch struct {
	traded  map[market.Code]bool // codes kept the session before the first owed day
	held    []db.ArchiveEntry
	streak  int
	reports int
}

// tradedBefore are the codes the archive kept on the session before day.
func (s *Service) tradedBefore(ctx context.Context, day market.Day) (map[market.Code]bool, error) {
	recs, err := s.store.ArchiveDays(ctx, s.cal.Prev(day))
	if err != nil {
		return nil, err
	}
	out := make(map[market.Code]bool, len(recs))
	for _, a := range recs {
		if a.Status != db.ArchiveGap {
			out[a.Code] = true
		}
	}
	return out, nil
}

// suspicious says a code's entries are all gaps although it had minutes
// the session before.
func (w *banWatch) suspicious(code market.Code, entries []db.ArchiveEntry) bool {
	if !w.traded[code] || len(entries) == 0 {
		return false
	}
	for _, e := range entries {
		if e.Day.Status != db.ArchiveGap {
			return false
		}
	}
	return true
}

// see takes a code's entries and returns those to record now; banned is
// true when the streak is reached, dropped the held gaps it forgets.
func (w *banWatch) see(code market.Code, entries []db.ArchiveEntry) (record []db.ArchiveEntry, banned bool, dropped int) {
	if w.suspicious(code, entries) {
		w.held = append(w.held, entries...)
		w.streak++
		if w.streak >= banStreak {
			dropped = len(w.held)
			w.held, w.streak = nil, 0
			return nil, true, dropped
		}
		return nil, false, 0
	}
	record = append(w.held, entries...)
	w.held, w.streak = nil, 0
	return record, false, 0
}

// banned reports a ban to the source when it can hear it, and is the
// run's error: an outage, not gaps.
func (s *Service) banned(w *banWatch, code market.Code) error {
	if b, ok := s.src.(banReporter); ok {
		b.SuspectBan()
		w.reports++
	}
	return market.Errorf(market.KindUnavailable, "the source answered no minutes for %d codes in a row that traded the session before (the last %s): "+
		"taken as a ban, nothing recorded for them; the next run asks again", banStreak, code)
}
