package archive

import (
	"context"

	"mdqs/db"
	"mdqs/internal/market"
)

// Status is what the archive holds: each day it dealt with, what is due
// and not done, and what the minutes weigh on disk.
type Status struct {
	Source      string
	Days        []db.ArchiveSummary
	Due         []market.Day // the window's complete days, oldest first
	Pending     []market.Day // due days with codes still owed
	Bars        int64        // archived 1-minute bars, every day
	StoreBars   int64        // bars the packed minute store holds (1m and 5m, every source)
	StoreBytes  int64        // its size on disk, indexes included
	BytesPerBar float64      // StoreBytes / StoreBars; 0 when empty or unknown
}

// Status reads the archive's record and the minute store's size.
func (s *Service) Status(ctx context.Context) (Status, error) {
	st := Status{Source: s.cfg.SourceName, Due: s.Due()}
	var err error
	if st.Days, err = s.store.ArchiveSummaries(ctx); err != nil {
		return st, err
	}
	for _, d := range st.Days {
		st.Bars += d.Bars
	}
	// A day a whole run finished owes nothing (Job remembers them); the
	// others are read: a due day without a record, or with a code of its
	// universe still owed, is pending.
	recorded := map[market.Day]bool{}
	for _, d := range st.Days {
		recorded[d.Day] = true
	}
	var open []market.Day
	s.mu.Lock()
	for _, d := range st.Due {
		if !s.done[d] {
			open = append(open, d)
		}
	}
	s.mu.Unlock()
	owed, err := s.owed(ctx, open, nil)
	if err != nil {
		return st, err
	}
	pending := map[market.Day]bool{}
	for _, d := range open {
		if !recorded[d] {
			pending[d] = true
		}
	}
	for _, days := range owed {
		for _, d := range days {
			pending[d] = true
		}
	}
	for _, d := range st.Due {
		if pending[d] {
			st.Pending = append(st.Pending, d)
		}
	}
	if st.StoreBars, err = s.store.MinuteBars(ctx); err != nil {
		return st, err
	}
	size, ok, err := s.store.MinuteBytes(ctx)
	if err != nil {
		return st, err
	}
	if ok && st.StoreBars > 0 {
		st.StoreBytes, st.BytesPerBar = size, float64(size)/float64(st.StoreBars)
	}
	return st, nil
}
