package quote

import (
	"math"
	"strings"
	"time"

	"mdqs/internal/market"
)

// Status is what a security's session is doing at the instant asked.
type Status string

const (
	Trading   Status = "trading"   // 09:30-11:30 and 13:00-15:00, the 14:57 closing call included
	Auction   Status = "auction"   // 09:15-09:30: the opening call auction and its 09:25 match
	Break     Status = "break"     // 11:30-13:00, the lunch break
	Closed    Status = "closed"    // not a trading day, before 09:15, from 15:00
	Suspended Status = "suspended" // a trading day's session has run without a trade of the stock
)

// StatusAt derives the status of a quote at now from the calendar and the
// clock. The exchanges publish no suspension flag in the snapshot; a
// suspended stock shows there as no price and no volume, so a security
// (indices aside) with no trade once continuous trading has begun
// (09:30) is suspended for the rest of that day. A stock that simply has
// not traded yet in the first seconds looks the same; nothing in the
// snapshot tells the two apart.
func StatusAt(cal *market.Calendar, now time.Time, q market.Quote) (Status, string) {
	phase := market.Phase(cal, now)
	clock := market.ClockOf(now)
	traded := q.Volume > 0 && q.Price > 0
	if cal.IsTradingDay(market.DayOf(now)) && clock >= 9*60+30 && !traded && market.Classify(q.Code) != market.TypeIndex {
		return Suspended, phase
	}
	switch phase {
	case market.PhasePreAuction, market.PhasePreOpen:
		return Auction, phase
	case market.PhaseLunch:
		return Break, phase
	case market.PhaseMorning, market.PhaseAfternoon, market.PhaseCloseCall:
		return Trading, phase
	}
	return Closed, phase
}

// stProposed is when the SSE and SZSE put out for comment moving the main
// boards' risk-warning (ST, *ST) stocks from ±5 % to the main board's
// ±10 % (2025-06-27). Before it ±5 % is certain. The day the change took
// effect is not confirmed here, and a limit price off by half is the
// worst kind of wrong number, so from then on the rule gives none for
// them: the answer says null, and the source's own limit (push2's single
// quote) is used where there is one.
const stProposed market.Day = 20250627

// chinextReform is the first day of ChiNext's registration-based rules
// (2020-08-24): ±20 % for every stock, ST included. Before it ChiNext
// followed the main boards: ±10 %, ±5 % under a risk warning.
const chinextReform market.Day = 20200824

// LimitPct is the daily limit of a stock on day d, in percent, and false
// when it has none or the rule is not known: indices and other non-stock
// codes (as far as this rule goes), main-board ST stocks from stProposed,
// and a new listing's first five days, which the exchanges
// mark in the name (N on the first day, C on the four after it, on the
// registration-based boards, which since 2023 include the main boards).
func LimitPct(code market.Code, name string, d market.Day) (int64, bool) {
	if market.Classify(code) != market.TypeStock {
		return 0, false
	}
	if newListing(name) {
		return 0, false
	}
	sym := code.Symbol
	chinext := strings.HasPrefix(sym, "300") || strings.HasPrefix(sym, "301")
	switch {
	case code.Exchange == market.BJ:
		return 30, true
	case strings.HasPrefix(sym, "688"), strings.HasPrefix(sym, "689"):
		return 20, true
	case chinext && d >= chinextReform:
		return 20, true
	case strings.Contains(strings.ToUpper(name), "ST"):
		if chinext {
			return 5, true // before the reform ChiNext's risk warnings were ±5 %, as the main boards'
		}
		if d < stProposed {
			return 5, true
		}
		return 0, false
	}
	return 10, true
}

// newListing reads the N/C prefix of a new listing's name; an ASCII
// letter follows neither in a real name (ST names start with S or *).
func newListing(name string) bool {
	if len(name) < 2 || (name[0] != 'N' && name[0] != 'C') {
		return false
	}
	c := name[1]
	return c >= 0x80 // a Chinese character follows: NXXXX, CXXXX
}

// Limits are the limit-up and limit-down prices from the previous close:
// prev·(1 ± pct/100) rounded half up to the cent, as the exchanges compute
// them, and never below a cent.
func Limits(prev float64, pct int64) (up, down float64, ok bool) {
	if !(prev > 0) || math.IsInf(prev, 0) || prev > 1e7 {
		return 0, 0, false
	}
	p := int64(math.Round(prev * 100))
	hi := (p*(100+pct) + 50) / 100
	lo := max((p*(100-pct)+50)/100, 1)
	return float64(hi) / 100, float64(lo) / 100, true
}
