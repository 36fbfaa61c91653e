package api

import (
	"context"
	"net/http"
	"slices"

	"mdqs/internal/limitpool"
	"mdqs/internal/market"
)

// limitRow is one stock of a limit pool.
type limitRow struct {
	Code            string   `json:"code"`
	Name            string   `json:"name"`
	Board           string   `json:"board"`
	ST              *string  `json:"st"`
	PrevClose       *float64 `json:"prev_close"`
	Close           *float64 `json:"close"`
	High            *float64 `json:"high"`
	Low             *float64 `json:"low"`
	Pct             *float64 `json:"pct"`
	LimitPct        *int64   `json:"limit_pct"`
	LimitPrice      *float64 `json:"limit_price"`
	Sealed          bool     `json:"sealed"`
	FirstSeal       *string  `json:"first_seal"`
	LastSeal        *string  `json:"last_seal"`
	OpenedTimes     *int     `json:"opened_times"`
	SealFund        *float64 `json:"seal_fund"`
	Boards          int      `json:"boards"`
	YesterdayBoards int      `json:"yesterday_boards"`
	CountUp         int      `json:"count_up"`
	CountDays       int      `json:"count_days"`
	// The strong pool's rows only.
	NewHigh  *bool    `json:"new_high,omitempty"`
	PrevHigh *float64 `json:"prev_high_60,omitempty"`
	Reason   *int     `json:"reason,omitempty"`
}

func limitRowOf(r limitpool.Row, kind string) limitRow {
	out := limitRow{Code: r.Code.String(), Name: r.Name, Board: r.Board, ST: optional(r.ST), Boards: r.Boards,
		YesterdayBoards: r.YesterdayBoards, CountUp: r.CountUp, CountDays: limitpool.CountDays}
	if r.Bar.Traded() {
		out.Close, out.High, out.Low = orNull(r.Bar.Close), orNull(r.Bar.High), orNull(r.Bar.Low)
		if r.Bar.PrevClose > 0 {
			out.PrevClose = orNull(r.Bar.PrevClose)
			out.Pct = orNull(round4((r.Bar.Close/r.Bar.PrevClose - 1) * 100))
		}
	}
	if r.HasLimit {
		pct := r.Pct
		out.LimitPct = &pct
	}
	seals, price := r.UpSeals, r.Up
	out.Sealed, out.SealFund = r.SealedUp, r.UpSealFund
	if kind == "down" {
		seals, price, out.Sealed, out.SealFund = r.DownSeals, r.Down, r.SealedDown, r.DownSealFund
		out.Boards = r.DownDays
	}
	if r.HasLimit {
		out.LimitPrice = orNull(price)
	}
	if m := r.Strong; m != nil {
		nh, reason := m.NewHigh, m.Reason
		out.NewHigh, out.Reason = &nh, &reason
		if m.PrevHigh > 0 {
			out.PrevHigh = orNull(round4(m.PrevHigh))
		}
	}
	if seals != nil {
		n := seals.Opened
		out.OpenedTimes = &n
		if seals.Sealed {
			f, l := seals.First.String(), seals.Last.String()
			out.FirstSeal, out.LastSeal = &f, &l
		}
	}
	return out
}

// limitDay reads the date parameter (default: the latest trading day)
// and derives the day.
func (s *Server) limitDay(r *http.Request, q *query) (limitpool.Day, error) {
	return s.limitDayOf(r, q, s.LimitPools.Derive)
}

func (s *Server) limitDayOf(r *http.Request, q *query, derive func(context.Context, market.Day) (limitpool.Day, error)) (limitpool.Day, error) {
	day, given := q.day("date", "")
	if !given {
		day = market.DayOf(s.Clock.Now())
		if !s.Calendar.IsTradingDay(day) {
			day = s.Calendar.Prev(day)
		}
	}
	if err := q.Err(); err != nil {
		return limitpool.Day{}, err
	}
	return derive(r.Context(), day)
}

// limitMeta is what every limit answer says of its day.
func (s *Server) limitMeta(d limitpool.Day) map[string]any {
	m := map[string]any{"date": d.Day.String(), "prev_date": d.Prev.String(), "source": s.sourceLabel(d.Source),
		"universe_source": s.sourceLabel(d.UniverseSource), "universe_recorded": d.UniverseRecorded, "final": d.Final, "universe": d.Universe, "no_limit_rule": d.NoRule,
		"minutes_held": d.Minutes, "seal_resolution": "minute", "seal_fund_source": optional(d.SealFundSource)}
	if d.AsOf.IsZero() {
		m["as_of"] = nil
	} else {
		m["as_of"] = market.FormatTime(d.AsOf)
	}
	return m
}

// handleLimitPool is GET /v1/api/limit_pool: one pool of a day.
func (s *Server) handleLimitPool(w http.ResponseWriter, r *http.Request) error {
	if s.LimitPools == nil {
		return market.NotConfigured("limit pools are not served by this server")
	}
	q := newQuery(r)
	kind := q.oneOf("kind", "", "up", append(slices.Clone(limitpool.Kinds), "strong")...)
	derive := s.LimitPools.Derive
	if kind == "strong" {
		derive = s.LimitPools.Strong
	}
	d, err := s.limitDayOf(r, q, derive)
	if err != nil {
		return err
	}
	pool := d.Pool(kind)
	items := make([]limitRow, len(pool))
	for i, row := range pool {
		items[i] = limitRowOf(row, kind)
	}
	m := s.limitMeta(d)
	m["kind"], m["total"], m["items"] = kind, len(items), items
	return ok(w, m)
}

type ladderLevel struct {
	Boards    int        `json:"boards"`
	Count     int        `json:"count"`
	Yesterday *int       `json:"yesterday"`
	Promoted  *int       `json:"promoted"`
	Rate      *float64   `json:"promotion_rate"`
	Items     []limitRow `json:"items"`
}

type promotionItem struct {
	From      int      `json:"from_boards"`
	To        int      `json:"to_boards"`
	Yesterday int      `json:"yesterday"`
	Promoted  int      `json:"promoted"`
	Rate      *float64 `json:"rate"`
}

// handleLimitLadder is GET /v1/api/limit_ladder: the day's limit-up
// stocks by consecutive limit-up closes, the highest first, with the
// promotion of the day before's rungs.
func (s *Server) handleLimitLadder(w http.ResponseWriter, r *http.Request) error {
	if s.LimitPools == nil {
		return market.NotConfigured("limit pools are not served by this server")
	}
	q := newQuery(r)
	d, err := s.limitDay(r, q)
	if err != nil {
		return err
	}
	levels, proms := d.Ladder()
	rows := make([]ladderLevel, len(levels))
	for i, l := range levels {
		lv := ladderLevel{Boards: l.Boards, Count: len(l.Rows), Items: make([]limitRow, len(l.Rows))}
		for k, row := range l.Rows {
			lv.Items[k] = limitRowOf(row, "up")
		}
		if l.Boards > 1 {
			y, p := l.Yesterday, l.Promoted
			lv.Yesterday, lv.Promoted, lv.Rate = &y, &p, promotionRate(p, y)
		}
		rows[i] = lv
	}
	pr := make([]promotionItem, len(proms))
	for i, p := range proms {
		pr[i] = promotionItem{From: p.From, To: p.From + 1, Yesterday: p.Yesterday, Promoted: p.Promoted, Rate: promotionRate(p.Promoted, p.Yesterday)}
	}
	m := s.limitMeta(d)
	m["levels"], m["promotion"], m["total"] = rows, pr, len(d.Pool("up"))
	return ok(w, m)
}

func promotionRate(n, of int) *float64 {
	if of == 0 {
		return nil
	}
	return orNull(round4(float64(n) / float64(of)))
}
