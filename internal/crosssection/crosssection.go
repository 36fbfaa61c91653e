// Package crosssection answers the market as a cross-section: every
// security listed on a day with its bar of that day, or its 1-minute bar
// at one minute of it (issue 29), the way Tushare's daily(trade_date=) is
// read, instead of one K-line request per code. The universe is the security master's of that day, so a code
// delisted since is there and one listed later is not.
package crosssection

import (
	"context"
	"math"

	"mdqs/db"
	"mdqs/internal/market"
	"mdqs/internal/secmaster"
)

// Universe is the security master (secmaster.Service).
type Universe interface {
	Universe(ctx context.Context, day market.Day, f secmaster.Filter) ([]secmaster.Security, db.RecordedDays, error)
}

// Service reads cross-sections from the store.
type Service struct {
	store *db.Store
	sec   Universe
	cal   *market.Calendar
	clock market.Clock
}

func New(store *db.Store, sec Universe, cal *market.Calendar, clock market.Clock) *Service {
	return &Service{store: store, sec: sec, cal: cal, clock: clock}
}

// Daily is one security's day: who it was and its daily bar.
type Daily struct {
	secmaster.Security
	Bar       market.Bar // zero TS: no bar of the day (suspended, or not stored)
	PrevClose float64    // the close of the bar before it; NaN when none is stored
}

// HasBar says the security has a bar of the day.
func (d Daily) HasBar() bool { return d.Bar.TS != 0 }

// Page is a slice of a cross-section: from Offset, at most Limit items
// (0: to the end).
type Page struct{ Offset, Limit int }

// Daily is the page asked of the securities listed on day (those of codes
// only, when given), in code order, each with its daily bar; how many
// there are in all; and the record the universe comes from. Only the
// page's bars are read. The bars are the store's: the end-of-day job
// stores every quoted stock's bar each trading day (the demo seeds its
// history), the terminal's import and K-line requests store more. A day
// before the security master's record is not known (its error); today's
// bar is complete only after the close.
func (s *Service) Daily(ctx context.Context, day market.Day, f secmaster.Filter, codes []market.Code, pg Page) ([]Daily, int, db.RecordedDays, error) {
	secs, total, rec, err := s.listed(ctx, day, f, codes, pg)
	if err != nil {
		return nil, 0, rec, err
	}
	// One forward range read a code on the primary key, from the session
	// before to the day's end: the day's bar and the one before it. Only a
	// code that did not trade the session before (suspended) needs a
	// second read for its last close.
	start, dayStart := s.cal.Prev(day).Start().Unix(), day.Start().Unix()
	end := s.cal.Next(day).Start().Unix() - 1
	out := make([]Daily, len(secs))
	for i, sec := range secs {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, 0, rec, err
			}
		}
		out[i] = Daily{Security: sec, PrevClose: math.NaN()}
		bars, err := s.store.Bars(ctx, db.BarQuery{Code: sec.Code, Freq: market.Daily, FromTS: start, ToTS: end})
		if err != nil {
			return nil, 0, rec, err
		}
		if n := len(bars); n > 0 && bars[n-1].Day == day {
			out[i].Bar, bars = bars[n-1], bars[:n-1]
		}
		if len(bars) == 0 {
			bars, err = s.store.Bars(ctx, db.BarQuery{Code: sec.Code, Freq: market.Daily, ToTS: dayStart - 1, Limit: 1, Newest: true})
			if err != nil {
				return nil, 0, rec, err
			}
		}
		if n := len(bars); n > 0 {
			out[i].PrevClose = bars[n-1].Close
		}
	}
	return out, total, rec, nil
}

// listed is the page asked of the securities listed on day (those of
// codes only, when given), in code order, how many there are in all, and
// the record the universe comes from.
func (s *Service) listed(ctx context.Context, day market.Day, f secmaster.Filter, codes []market.Code, pg Page) ([]secmaster.Security, int, db.RecordedDays, error) {
	today := market.DayOf(s.clock.Now())
	if day > today {
		return nil, 0, db.RecordedDays{}, market.Errorf(market.KindInvalid, "date %v is after today %v", day, today)
	}
	secs, rec, err := s.sec.Universe(ctx, day, f)
	if err != nil {
		return nil, 0, rec, err
	}
	if len(codes) > 0 {
		want := make(map[market.Code]bool, len(codes))
		for _, c := range codes {
			want[c] = true
		}
		kept := secs[:0]
		for _, sec := range secs {
			if want[sec.Code] {
				kept = append(kept, sec)
			}
		}
		secs = kept
	}
	total := len(secs)
	secs = secs[min(pg.Offset, total):]
	if pg.Limit > 0 {
		secs = secs[:min(pg.Limit, len(secs))]
	}
	return secs, total, rec, nil
}
