package archive

import (
	"context"

	"mdqs/db"
)

// VerifyReport says what a verification found.
type VerifyReport struct {
	Days, Checked     int // days read, code-days checked
	Archived, Flagged int // code-days passing and failing now
	Changed           int // code-days whose outcome changed
	Unchecked         int // code-days still without a daily bar to check against
	Missing           int // records whose bars are not in the store
}

// Verify checks every kept day of the archive again, with what the store
// holds now: a day archived before its daily bar was stored (the quote
// list's end of day, the terminal's .day) is checked against it, and a
// record whose bars are gone is flagged. Records whose outcome changes are
// rewritten; the bars are never touched.
func (s *Service) Verify(ctx context.Context, progress func(done, total int)) (VerifyReport, error) {
	var rep VerifyReport
	sums, err := s.store.ArchiveSummaries(ctx)
	if err != nil {
		return rep, err
	}
	rep.Days = len(sums)
	now := s.clock.Now()
	for i, sum := range sums {
		recs, err := s.store.ArchiveDays(ctx, sum.Day)
		if err != nil {
			return rep, err
		}
		var changed []db.ArchiveDay
		for _, a := range recs {
			if a.Status == db.ArchiveGap {
				continue
			}
			rep.Checked++
			freq, want := keptAt(a.Freq)
			bars, err := s.store.Bars(ctx, db.BarQuery{Code: a.Code, Freq: freq, FromTS: a.Day.Start().Unix(), ToTS: a.Day.At(23, 59, 59).Unix()})
			if err != nil {
				return rep, err
			}
			problem := "the day's bars are not in the store"
			if len(bars) == 0 {
				rep.Missing++
			} else if problem, err = s.check(ctx, a.Code, a.Day, bars, want); err != nil {
				return rep, err
			}
			status := db.ArchiveArchived
			switch {
			case problem == notChecked:
				rep.Unchecked++
			case problem != "":
				status = db.ArchiveFlagged
			}
			if a.Freq == 5 {
				problem = fiveReason(problem)
			}
			if status == db.ArchiveFlagged {
				rep.Flagged++
			} else {
				rep.Archived++
			}
			if status != a.Status || problem != a.Reason {
				a.Status, a.Reason, a.At = status, problem, now
				changed = append(changed, a)
			}
		}
		if len(changed) > 0 {
			if err := s.store.SetArchiveChecks(ctx, changed); err != nil {
				return rep, err
			}
			rep.Changed += len(changed)
		}
		if progress != nil {
			progress(i+1, len(sums))
		}
	}
	return rep, nil
}
