package demo

import (
	"time"

	"mdqs/internal/market"
)

// instant is an instant mapped onto the session it shows.
type instant struct {
	idx int       // timeline index of the session day
	k   int       // -1 before 09:25, 0 after the auction, else completed minute bars (1..240)
	at  time.Time // what the data is as of
}

// resolve maps an instant to its session. On a trading day: before 09:25
// the previous close (as of the instant itself), from 09:25 the auction,
// from 09:31 the completed minute bars (the forming minute is never
// included; 11:30-13:01 shows the 11:30 bar), from 15:00 the close. On a
// non-trading day, the last trading day's close. All in Asia/Shanghai.
func (m *Market) resolve(t time.Time) (instant, error) {
	if y := t.In(market.Shanghai()).Year(); y < 1990 || y > 2200 {
		// Far outside the calendar; also keeps Day's YYYYMMDD from overflowing.
		return instant{}, market.Errorf(market.KindInvalid, "demo: %s is outside the demo market's years", t.UTC().Format(time.RFC3339))
	}
	d := market.DayOf(t)
	if d < m.days[0] {
		return instant{}, market.Errorf(market.KindInvalid, "demo: %s is before the demo history, which starts %v",
			market.FormatTime(t), m.days[0])
	}
	if d > m.days[len(m.days)-1] {
		return instant{}, market.Errorf(market.KindInvalid, "demo: %s is after the demo horizon %v",
			market.FormatTime(t), m.days[len(m.days)-1])
	}
	i, ok := m.index(d)
	if !ok {
		i = m.onOrBefore(d)
		return instant{idx: i, k: 240, at: m.days[i].At(15, 0, 0)}, nil
	}
	sec := t.Unix() - d.Start().Unix()
	const (
		auction = 9*3600 + 25*60
		open    = 9*3600 + 30*60
		noon    = 11*3600 + 30*60
		resume  = 13 * 3600
		closing = 15 * 3600
	)
	k := 240
	switch {
	case sec < auction:
		return instant{idx: i, k: -1, at: time.Unix(t.Unix(), 0).In(market.Shanghai())}, nil
	case sec < open+60:
		return instant{idx: i, k: 0, at: d.At(9, 25, 0)}, nil
	case sec < noon:
		k = int(sec-open) / 60
	case sec < resume+60:
		k = 120
	case sec < closing:
		k = 120 + int(sec-resume)/60
	}
	return instant{idx: i, k: k, at: time.Unix(barEnd(d, k), 0).In(market.Shanghai())}, nil
}
