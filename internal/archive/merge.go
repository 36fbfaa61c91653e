package archive

import (
	"context"

	"mdqs/db"
	"mdqs/internal/market"
)

// MergeReport says what a merge did, in code-days.
type MergeReport struct {
	Days      int // days the other archive has records of
	Offered   int // code-days it kept bars of (its gaps offer nothing)
	Filled    int // filled here: this store had no record of them, or a gap
	Upgraded  int // held here at 5 minutes only, now with the other's 1-minute bars too
	Held      int // this store already holds the day: left as it is
	Flagged   int // filled, and failing this store's checks (kept, flagged)
	Missing   int // records of the other archive whose bars it does not hold
	Bars      int // bars written
	Processed int // days done, for progress
}

// Merge fills this store's gaps from another install's archive (a
// colleague's PC, an older backup): every code-day the other kept whose
// bars this store lacks, checked as the archive job checks a day it
// fetched and recorded under the upstream that first gave it, with origin
// naming the other archive. A day this store holds (a record that is not a
// gap, or bars of the day without one) is never touched, with one
// exception that adds and replaces nothing: a day held at 5 minutes only
// also gets the other's 1-minute bars. Each day commits on its own, so a
// merge stopped anywhere is resumed by running it again.
func (s *Service) Merge(ctx context.Context, from *db.Store, origin string, progress func(done, total int)) (MergeReport, error) {
	var rep MergeReport
	sums, err := from.ArchiveSummaries(ctx)
	if err != nil {
		return rep, err
	}
	rep.Days = len(sums)
	for i, sum := range sums {
		entries, err := s.mergeDay(ctx, from, sum.Day, origin, &rep)
		if err != nil {
			return rep, err
		}
		if err := s.store.PutArchive(ctx, entries); err != nil {
			return rep, err
		}
		rep.Processed = i + 1
		if progress != nil {
			progress(i+1, len(sums))
		}
	}
	return rep, nil
}

// mergeDay is the entries a merge writes for one day.
func (s *Service) mergeDay(ctx context.Context, from *db.Store, day market.Day, origin string, rep *MergeReport) ([]db.ArchiveEntry, error) {
	theirs, err := from.ArchiveDays(ctx, day)
	if err != nil {
		return nil, err
	}
	ours, err := s.store.ArchiveDays(ctx, day)
	if err != nil {
		return nil, err
	}
	recorded := make(map[market.Code]db.ArchiveDay, len(ours))
	for _, a := range ours {
		recorded[a.Code] = a
	}
	held := map[market.Freq]map[market.Code]bool{}
	for _, f := range []market.Freq{market.Min1, market.Min5} {
		if held[f], err = s.store.MinuteCodesOn(ctx, day, f); err != nil {
			return nil, err
		}
	}
	// The other's records are read only at a frequency something is to be
	// filled at: a merge done before reads no bars.
	bars := map[market.Freq]map[market.Code]db.MinuteDay{}
	theirBars := func(f market.Freq) (map[market.Code]db.MinuteDay, error) {
		if bars[f] == nil {
			days, err := from.MinuteDaysOn(ctx, day, f)
			if err != nil {
				return nil, err
			}
			bars[f] = make(map[market.Code]db.MinuteDay, len(days))
			for _, d := range days {
				bars[f][d.Code] = d
			}
		}
		return bars[f], nil
	}
	now := s.clock.Now()
	var out []db.ArchiveEntry
	for _, t := range theirs {
		if t.Status == db.ArchiveGap {
			continue
		}
		rep.Offered++
		freq, want := keptAt(t.Freq)
		mine, have := recorded[t.Code]
		upgrade := have && mine.Status != db.ArchiveGap && mine.Freq == 5 && t.Freq == 1
		if have && mine.Status != db.ArchiveGap && !upgrade || held[freq][t.Code] {
			rep.Held++
			continue
		}
		offered, err := theirBars(freq)
		if err != nil {
			return nil, err
		}
		day, ok := offered[t.Code]
		if !ok {
			rep.Missing++
			continue
		}
		rec := db.ArchiveDay{Day: t.Day, Code: t.Code, Freq: t.Freq, Bars: len(day.Bars), OpensGiven: t.OpensGiven,
			Source: t.Source, At: now, Origin: origin}
		var counts Report
		if err := s.judge(ctx, &rec, day.Bars, want, &counts); err != nil {
			return nil, err
		}
		if t.Freq == 5 {
			rec.Reason = fiveReason(rec.Reason)
		}
		cov, err := s.coverageOf(ctx, t.Code)
		if err != nil {
			return nil, err
		}
		freqs := []market.Freq{freq}
		if freq == market.Min1 && !held[market.Min5][t.Code] {
			freqs = append(freqs, market.Min5) // their aggregate, as the job keeps it
		}
		rep.Flagged += counts.Flagged
		rep.Bars += len(day.Bars)
		if upgrade {
			rep.Upgraded++
		} else {
			rep.Filled++
		}
		out = append(out, db.ArchiveEntry{Day: rec, Batches: s.batches(t.Code, t.Day, day.Bars, cov, day.Source, freqs...)})
	}
	return out, nil
}
