// Package limitpool derives the limit-up and limit-down pools of a
// trading day and the 连板 ladder (issue 31) from mdqs's own data: the
// day's universe from the security master (ST and STAR included, each
// with that day's name), the daily bars for the previous close, the
// touch and the close, and the archived 1-minute bars for the seal times.
// The derivation itself is pure (this file); service.go reads the store.
package limitpool

import (
	"math"
	"time"

	"mdqs/internal/adjust"
	"mdqs/internal/market"
	"mdqs/internal/quote"
)

// Rule is the daily limit of a code on a day under the name it had that
// day, in percent; false when it has none or the rule is not known
// (quote.LimitPct: a new listing's first days, main-board ST from
// 2025-06-27, what is not a stock).
type Rule func(code market.Code, name string, day market.Day) (int64, bool)

// DefaultRule is the exchanges' rule as mdqs knows it.
var DefaultRule Rule = quote.LimitPct

// cents is a price in whole cents, the exchanges' tick.
func cents(p float64) int64 { return int64(math.Round(p * 100)) }

// DayBar is a code's daily bar with what decides its limits.
type DayBar struct {
	Day       market.Day
	Name      string  // the name it traded under that day ("" when not recorded)
	PrevClose float64 // the close the limits are computed from (ex-rights reference on an ex-date); 0: none
	Open      float64
	High      float64
	Low       float64
	Close     float64
	Volume    int64
	// LimitUp and LimitDown are the source's own limit prices (today's
	// quote, where it publishes them); 0: from the rule.
	LimitUp, LimitDown float64
}

// Traded says the bar is a day the code traded: a suspended day has no
// bar, or one without volume.
func (b DayBar) Traded() bool { return b.Volume > 0 && b.Close > 0 }

// Status is where a day left a code against its limits.
type Status struct {
	HasLimit    bool    // a rule and a previous close gave limit prices
	Pct         int64   // the limit in percent
	Up, Down    float64 // the limit prices
	TouchedUp   bool    // high reached the limit-up price
	SealedUp    bool    // closed at the limit-up price
	TouchedDown bool    // low reached the limit-down price
	SealedDown  bool    // closed at the limit-down price
	BrokenUp    bool    // touched the limit-up but did not close at it (炸板)
	BrokenDown  bool    // touched the limit-down but did not close at it
}

// StatusOf is b's status under rule for code: the limits from the
// previous close and the day's rule, then touched (high >= up), sealed
// (close == up) and broken (touched, not sealed), the same below. A day
// without a rule or without a previous close has no limit and no status.
func StatusOf(code market.Code, b DayBar, rule Rule) Status {
	pct, ok := rule(code, b.Name, b.Day)
	if b.LimitUp > 0 && b.LimitDown > 0 {
		if !ok && b.PrevClose > 0 {
			pct = int64(math.Round((b.LimitUp/b.PrevClose - 1) * 100)) // the source's limit, where the rule is not known
		}
		return StatusAt(b, pct, b.LimitUp, b.LimitDown)
	}
	if !ok || !b.Traded() {
		return Status{}
	}
	up, down, ok := quote.Limits(b.PrevClose, pct)
	if !ok {
		return Status{}
	}
	return StatusAt(b, pct, up, down)
}

// StatusAt is b's status against given limit prices: the source's own,
// where it publishes them (a quote of today).
func StatusAt(b DayBar, pct int64, up, down float64) Status {
	if !b.Traded() || !(up > 0) {
		return Status{}
	}
	s := Status{HasLimit: true, Pct: pct, Up: up, Down: down}
	hi, lo, cl := cents(b.High), cents(b.Low), cents(b.Close)
	u, d := cents(up), cents(down)
	s.TouchedUp, s.SealedUp = hi >= u, cl >= u
	s.TouchedDown, s.SealedDown = lo <= d, cl <= d
	s.TouchedUp = s.TouchedUp || s.SealedUp
	s.TouchedDown = s.TouchedDown || s.SealedDown
	s.BrokenUp = s.TouchedUp && !s.SealedUp
	s.BrokenDown = s.TouchedDown && !s.SealedDown
	return s
}

// ExPrevClose is the previous close the limits of day start from: the
// close before, moved by the ex-rights events in force from day (those
// after the previous bar's day and on or before day, which need not be
// trading days), as the exchanges publish the reference price
// (除权除息参考价), rounded to the cent.
//
// The rounding is exact (adjust's schedule): a reference price on a half
// cent of the written decimals goes up, as the exchanges round it, and
// never down by float noise.
func ExPrevClose(prev float64, prevDay, day market.Day, events []adjust.Event) float64 {
	var in []adjust.Event
	for _, e := range events {
		if e.Day > prevDay && e.Day <= day {
			in = append(in, e)
		}
	}
	if len(in) == 0 {
		return prev
	}
	s, err := adjust.Factors(in, adjust.QFQ, day)
	if err != nil { // an event no map can use: the float map, as before
		for _, e := range in {
			prev = e.Ex().Price(prev)
		}
		return adjust.Round(prev)
	}
	return s.Price(prevDay, prev)
}

// Boards is the number of consecutive limit-up closes (连板) ending at
// the last bar of bars (oldest first, the code's own bars), each day
// under its own rule and name: 0 when the last bar did not close at its
// limit-up. Days the code did not trade (suspended: no bar, or a bar
// without volume) neither break the streak nor count in it, as the
// exchanges count a stock's boards over its own trading days; a traded
// day without a limit (a new listing's first days) ends it. complete is
// false when the streak reaches the first bar given: more history may
// lengthen it.
func Boards(code market.Code, bars []DayBar, rule Rule) (n int, complete bool) {
	return streak(code, bars, rule, func(s Status) bool { return s.SealedUp })
}

// DownDays is Boards below: consecutive limit-down closes (连续跌停).
func DownDays(code market.Code, bars []DayBar, rule Rule) (n int, complete bool) {
	return streak(code, bars, rule, func(s Status) bool { return s.SealedDown })
}

func streak(code market.Code, bars []DayBar, rule Rule, sealed func(Status) bool) (n int, complete bool) {
	for i := len(bars) - 1; i >= 0; i-- {
		b := bars[i]
		if !b.Traded() {
			continue
		}
		if !sealed(StatusOf(code, b, rule)) {
			return n, true
		}
		n++
	}
	return n, false
}

// CountUp is the 涨停统计 of the last bar: of the last n trading days
// (the calendar's, the last bar's day included; days is their list,
// oldest first), on how many the code closed at its limit-up.
func CountUp(code market.Code, bars []DayBar, days []market.Day, rule Rule) int {
	if len(days) == 0 {
		return 0
	}
	first := days[0]
	ct := 0
	for _, b := range bars {
		if b.Day >= first && StatusOf(code, b, rule).SealedUp {
			ct++
		}
	}
	return ct
}

// Seals are what a day's 1-minute bars say of a limit: the first and
// the last time it was sealed, and how often it opened after sealing.
// Minute resolution: a bar is named by the minute it ends (market.Bar's
// TS), so a time here is the end of the minute in which the price was
// at the limit at that minute's close; EastMoney's fbt/lbt are seconds.
type Seals struct {
	Sealed  bool             // some minute closed at the limit
	First   market.TimeOfDay // the first minute that closed at the limit; 09:25 when the call auction opened there and the first minute closed there
	Last    market.TimeOfDay // the first minute of the last run of minutes closing at the limit
	Opened  int              // times a minute traded off the limit after the minute before closed at it
	AtClose bool             // the last minute closed at the limit
}

// SealsOf reads bars (one day's 1-minute bars, in time order) against
// limit, the limit-up price when up, the limit-down price otherwise.
// Opened counts each minute that traded off the limit (its low below the
// limit-up, its high above the limit-down) right after a minute that
// closed at it: an opening and a reseal inside one minute count once, two
// inside one minute once too (minute resolution).
func SealsOf(bars []market.Bar, limit float64, up bool) Seals {
	var s Seals
	lim := cents(limit)
	at := func(p float64) bool {
		if up {
			return cents(p) >= lim
		}
		return cents(p) <= lim
	}
	off := func(b market.Bar) bool {
		if up {
			return cents(b.Low) < lim
		}
		return cents(b.High) > lim
	}
	prevAt := false
	if len(bars) > 0 && at(bars[0].Open) {
		// The first bar holds the 09:25 call auction: matched at the limit,
		// the code was sealed from 09:25, as EastMoney's 92500.
		s.Sealed, s.First, s.Last, prevAt = true, 9*60+25, 9*60+25, true
	}
	for _, b := range bars {
		now := at(b.Close)
		left := prevAt && off(b)
		if left {
			s.Opened++
		}
		if now && (!prevAt || left) {
			t := market.ClockOf(time.Unix(b.TS, 0))
			if !s.Sealed {
				s.First = t
			}
			s.Sealed, s.Last = true, t
		}
		prevAt = now
	}
	s.AtClose = prevAt
	return s
}

// Chain turns a code's stored daily bars (oldest first) into DayBars:
// each with the name it had that day (name; "" when not known) and the
// close its limits start from, the close of the last bar before it that
// traded, moved by the ex-rights events between them. The first bar
// given has no previous close: give one bar more than is judged.
func Chain(raw []market.Bar, name func(market.Day) string, events []adjust.Event) []DayBar {
	out := make([]DayBar, len(raw))
	var prev float64
	var prevDay market.Day
	for i, b := range raw {
		d := DayBar{Day: b.Day, Name: name(b.Day), Open: b.Open, High: b.High, Low: b.Low, Close: b.Close, Volume: b.Volume}
		if prev > 0 {
			d.PrevClose = ExPrevClose(prev, prevDay, b.Day, events)
		}
		out[i] = d
		if d.Traded() {
			prev, prevDay = b.Close, b.Day
		}
	}
	return out
}
