package api

import (
	"fmt"
	"net/http"
	"strings"

	"mdqs/internal/market"
)

// calendarMaxDays bounds a calendar request's span: two years of days, a
// few KB of answer.
const calendarMaxDays = 731

type closedDay struct {
	Date string `json:"date"`
	Name string `json:"name"`
}

type calendarAnswer struct {
	Start          string      `json:"start"`
	End            string      `json:"end"`
	Today          string      `json:"today"`
	Phase          string      `json:"phase"`
	LastTradingDay string      `json:"last_trading_day"`
	NextTradingDay string      `json:"next_trading_day"`
	Count          int         `json:"count"`
	TradingDays    []string    `json:"trading_days"`
	Closed         []closedDay `json:"closed"`
	FirstYear      int         `json:"first_year"`
	LastYear       int         `json:"last_year"`
	CoversRange    bool        `json:"covers_range"`
	Note           *string     `json:"note"`
	Source         string      `json:"source"`
}

// handleCalendar is GET /v1/api/calendar: the trading days and exchange
// closures of a span as this server counts them (the built-in holidays,
// market.holidays_file and the imported years), with today's phase and
// the sessions on either side, so a client (an agent among them) writes
// dates the other endpoints take without guessing holidays.
func (s *Server) handleCalendar(w http.ResponseWriter, r *http.Request) error {
	now := s.Clock.Now()
	today := market.DayOf(now)
	q := newQuery(r)
	from, to := q.span()
	if err := q.Err(); err != nil {
		return err
	}
	if from == 0 && to == 0 {
		from, to = today.AddDays(-30), today.AddDays(30)
	} else if from == 0 {
		from = to.AddDays(-30)
	} else if to == 0 {
		to = from.AddDays(30)
	}
	if from > to {
		return market.Errorf(market.KindInvalid, "start %s is after end %s", from, to)
	}
	if n := to.EpochDays() - from.EpochDays() + 1; n > calendarMaxDays {
		return market.Errorf(market.KindInvalid, "start..end spans %d days; at most %d at a time", n, calendarMaxDays)
	}
	cal := s.Calendar
	a := calendarAnswer{Start: from.String(), End: to.String(), Today: today.String(), Phase: market.Phase(cal, now),
		LastTradingDay: cal.OnOrBefore(today).String(), NextTradingDay: cal.Next(today).String(),
		TradingDays: []string{}, Closed: []closedDay{}, CoversRange: true, Source: "calendar"}
	a.FirstYear, a.LastYear = cal.Years()
	holidays := cal.Holidays()
	var unknown []string
	for d := from; d <= to; d = d.AddDays(1) {
		if !cal.Covers(d) && (len(unknown) == 0 || unknown[len(unknown)-1] != fmt.Sprint(d.Year())) {
			unknown = append(unknown, fmt.Sprint(d.Year()))
		}
		if cal.IsTradingDay(d) {
			a.TradingDays = append(a.TradingDays, d.String())
		} else if name, ok := holidays[d]; ok {
			a.Closed = append(a.Closed, closedDay{Date: d.String(), Name: name})
		}
	}
	a.Count = len(a.TradingDays)
	if len(unknown) > 0 {
		a.CoversRange = false
		note := "the exchange holidays of " + strings.Join(unknown, ", ") + " are not known to this server: every weekday of those years counts as a trading day " +
			"until they are imported (mdqs calendar import)"
		a.Note = &note
	}
	return ok(w, a)
}
