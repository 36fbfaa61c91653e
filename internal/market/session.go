package market

import (
	"fmt"
	"time"
)

// TimeOfDay is a wall-clock time in Shanghai, as minutes after midnight.
type TimeOfDay int

// ParseTimeOfDay reads "HH:MM".
func ParseTimeOfDay(s string) (TimeOfDay, error) {
	t, err := time.Parse("15:04", s)
	if err != nil || len(s) != 5 {
		return 0, fmt.Errorf("time %q: want HH:MM", s)
	}
	return TimeOfDay(t.Hour()*60 + t.Minute()), nil
}

func (t TimeOfDay) String() string { return fmt.Sprintf("%02d:%02d", int(t)/60, int(t)%60) }

// On is the instant of this time of day on day d.
func (t TimeOfDay) On(d Day) time.Time { return d.At(int(t)/60, int(t)%60, 0) }

// ClockOf is the Shanghai time of day of an instant, in whole minutes.
func ClockOf(t time.Time) TimeOfDay {
	s := t.In(Shanghai())
	return TimeOfDay(s.Hour()*60 + s.Minute())
}

// Window is a daily span [Start, End] of Shanghai time on trading days, such
// as the ranking's scheduling window 09:25-15:00.
type Window struct {
	Start, End TimeOfDay
}

// Contains reports whether t falls inside the window on a trading day.
func (w Window) Contains(cal *Calendar, t time.Time) bool {
	if !cal.IsTradingDay(DayOf(t)) {
		return false
	}
	c := ClockOf(t)
	return c >= w.Start && c <= w.End
}

// CurrentTradingDay is the day a query without a day means at instant t:
// today once today's window has opened, otherwise the last trading day
// before (so at 08:00, or on a Sunday, it is the previous session, whose
// data is final).
func (w Window) CurrentTradingDay(cal *Calendar, t time.Time) Day {
	d := DayOf(t)
	if cal.IsTradingDay(d) && ClockOf(t) >= w.Start {
		return d
	}
	return cal.Prev(d)
}

// Session phases of an A-share trading day.
const (
	PhaseClosed     = "closed"        // not a trading day, or before 09:15 / after 15:00
	PhasePreAuction = "pre_auction"   // 09:15-09:25 call auction, orders cancellable until 09:20
	PhasePreOpen    = "pre_open"      // 09:25-09:30 auction matched, continuous trading not yet open
	PhaseMorning    = "morning"       // 09:30-11:30
	PhaseLunch      = "lunch"         // 11:30-13:00
	PhaseAfternoon  = "afternoon"     // 13:00-14:57
	PhaseCloseCall  = "close_auction" // 14:57-15:00 closing call auction
)

// Phase names the session phase at instant t.
func Phase(cal *Calendar, t time.Time) string {
	if !cal.IsTradingDay(DayOf(t)) {
		return PhaseClosed
	}
	c := ClockOf(t)
	switch {
	case c < 9*60+15 || c >= 15*60:
		return PhaseClosed
	case c < 9*60+25:
		return PhasePreAuction
	case c < 9*60+30:
		return PhasePreOpen
	case c < 11*60+30:
		return PhaseMorning
	case c < 13*60:
		return PhaseLunch
	case c < 14*60+57:
		return PhaseAfternoon
	default:
		return PhaseCloseCall
	}
}

// SessionMinute is how many minutes of continuous trading have passed at t
// on its day: 0 before 09:30, 120 through lunch, 240 from 15:00.
func SessionMinute(t time.Time) int {
	c := int(ClockOf(t))
	switch {
	case c <= 9*60+30:
		return 0
	case c <= 11*60+30:
		return c - (9*60 + 30)
	case c <= 13*60:
		return 120
	case c <= 15*60:
		return 120 + c - 13*60
	}
	return 240
}

// QueryDay resolves the day parameter of a market query at instant now:
// none is the current trading day; a non-trading day is the trading day
// before it; a day after today is invalid; a trading day whose window has
// not opened yet is not found (there is no data for it).
func (w Window) QueryDay(cal *Calendar, now time.Time, day Day, given bool) (Day, error) {
	current := w.CurrentTradingDay(cal, now)
	if !given {
		return current, nil
	}
	if day > DayOf(now) {
		return 0, Errorf(KindInvalid, "day %v is in the future", day)
	}
	day = cal.OnOrBefore(day)
	if day > current {
		return 0, Errorf(KindNotFound, "no data for %v yet: its session has not opened", day)
	}
	return day, nil
}
