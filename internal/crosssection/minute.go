package crosssection

import (
	"context"
	"math"

	"mdqs/db"
	"mdqs/internal/market"
	"mdqs/internal/secmaster"
)

// A 1-minute bar is named by the minute it ends, as EastMoney and the
// terminal name it (market.Bar's TS): 09:31 is the first, and holds the
// 09:25 call auction and 09:30; 11:30 ends the morning, 13:01 opens the
// afternoon and 15:00 ends the day, 240 bars.
const (
	firstMorningBar   = 9*60 + 31
	lastMorningBar    = 11*60 + 30
	firstAfternoonBar = 13*60 + 1
	lastAfternoonBar  = 15 * 60
)

// BarMinutes says which minutes have a 1-minute bar, for a message.
const BarMinutes = "09:31 to 11:30 and 13:01 to 15:00, each bar named by the minute it ends; " +
	"the 09:25 call auction and 09:30 are folded into the 09:31 bar"

// IsBarMinute reports that a 1-minute bar ends at t.
func IsBarMinute(t market.TimeOfDay) bool {
	return t >= firstMorningBar && t <= lastMorningBar || t >= firstAfternoonBar && t <= lastAfternoonBar
}

// Minute is one security's 1-minute bar at one minute of a day: who it
// was that day and its bar ending at that minute.
type Minute struct {
	secmaster.Security
	Bar       market.Bar // zero TS: no bar stored at that minute
	PrevClose float64    // the close of the bar before it that day; NaN for the day's first bar or without a bar
}

// HasBar says the security has a bar at the minute.
func (m Minute) HasBar() bool { return m.Bar.TS != 0 }

// Minute is the page asked of the securities listed on day (those of
// codes only, when given), in code order, each with its stored 1-minute
// bar ending at at (a minute IsBarMinute accepts); how many there are in
// all; and the record the universe comes from. Only the page's bars are
// read, from the packed minute store (db.MinuteBarsAt): what it holds of
// the day, where a code without its day or without a bar at the minute has
// none. A minute that has not ended yet is invalid.
func (s *Service) Minute(ctx context.Context, day market.Day, at market.TimeOfDay, f secmaster.Filter, codes []market.Code, pg Page) ([]Minute, int, db.RecordedDays, error) {
	if !IsBarMinute(at) {
		return nil, 0, db.RecordedDays{}, market.Errorf(market.KindInvalid, "time %v has no 1-minute bar: bars end at %s", at, BarMinutes)
	}
	if now := s.clock.Now(); day == market.DayOf(now) && at.On(day).After(now) {
		return nil, 0, db.RecordedDays{}, market.Errorf(market.KindInvalid, "the %v bar of %v has not ended yet (it is %s)", at, day, market.FormatTime(now))
	}
	secs, total, rec, err := s.listed(ctx, day, f, codes, pg)
	if err != nil {
		return nil, 0, rec, err
	}
	asked := make([]market.Code, len(secs))
	for i, sec := range secs {
		asked[i] = sec.Code
	}
	bars, err := s.store.MinuteBarsAt(ctx, day, at.On(day).Unix(), asked)
	if err != nil {
		return nil, 0, rec, err
	}
	out := make([]Minute, len(secs))
	for i, sec := range secs {
		out[i] = Minute{Security: sec, Bar: bars[i].Bar, PrevClose: math.NaN()}
		if bars[i].Bar.TS != 0 && bars[i].Prev.TS != 0 {
			out[i].PrevClose = bars[i].Prev.Close
		}
	}
	return out, total, rec, nil
}
