package api

import (
	"net/http"

	"mdqs/internal/etf"
	"mdqs/internal/market"
)

// etfItem is one fund of the ETF list. Unknown figures are null, never 0:
// a money fund without an IOPV has no premium.
type etfItem struct {
	Code         string   `json:"code"`
	Name         string   `json:"name"`
	Category     string   `json:"category"`
	Board        *string  `json:"board"`  // the source's board (MK0021); null for the demo
	Tracks       *string  `json:"tracks"` // the index tracked, where the source says (the demo)
	Last         *float64 `json:"last"`
	PrevClose    *float64 `json:"prev_close"`
	Open         *float64 `json:"open"`
	High         *float64 `json:"high"`
	Low          *float64 `json:"low"`
	Change       *float64 `json:"change"`
	Pct          *float64 `json:"pct"`
	Volume       *int64   `json:"volume"` // shares
	Amount       *float64 `json:"amount"`
	TurnoverRate *float64 `json:"turnover_rate"`
	MarketValue  *float64 `json:"market_value"`
	FloatValue   *float64 `json:"float_value"`
	Shares       *float64 `json:"shares"`
	IOPV         *float64 `json:"iopv"`
	PremiumPct   *float64 `json:"premium_pct"`  // (last - iopv) / iopv x 100, by mdqs
	DiscountPct  *float64 `json:"discount_pct"` // the source's own rate, as sent
	DataDate     *string  `json:"data_date"`
	AsOf         string   `json:"as_of"`
}

type etfList struct {
	Source    string    `json:"source"`
	AsOf      *string   `json:"as_of"`     // the newest row time
	DataDate  *string   `json:"data_date"` // the newest data date the rows carry
	FetchedAt string    `json:"fetched_at"`
	Stale     bool      `json:"stale"`
	Problem   *string   `json:"problem"` // why a stale list is served
	Partial   *string   `json:"partial"` // the source's account of a list cut short
	Category  *string   `json:"category"`
	Sort      string    `json:"sort"`
	Order     string    `json:"order"`
	Total     int       `json:"total"` // funds matching, before limit
	Count     int       `json:"count"`
	ETFs      []etfItem `json:"etfs"`
}

func etfItemOf(r etf.Row) etfItem {
	it := etfItem{Code: r.Code.String(), Name: r.Name, Category: r.Category, Board: optional(r.Board),
		Last: orNull(r.Price), PrevClose: orNull(r.PrevClose), Open: orNull(r.Open), High: orNull(r.High), Low: orNull(r.Low),
		Change: orNull(r.Change), Pct: orNull(r.Pct), Volume: shares(r.Volume), Amount: orNull(r.Amount),
		TurnoverRate: orNull(r.Turnover), MarketValue: orNull(r.MarketValue), FloatValue: orNull(r.FloatValue),
		Shares: orNull(r.Shares), IOPV: orNull(r.IOPV), PremiumPct: orNull(round4(r.PremiumPct)), DiscountPct: orNull(r.DiscountRate),
		DataDate: dayOrNull(r.DataDate), AsOf: market.FormatTime(r.At)}
	if !r.Tracks.IsZero() {
		it.Tracks = optional(r.Tracks.String())
	}
	return it
}

// handleETFs is GET /v1/api/etfs: the ETF list with last price, IOPV,
// premium and scale, optionally one category, sorted and cut. A source
// down with nothing held is a 503 naming it.
func (s *Server) handleETFs(w http.ResponseWriter, r *http.Request) error {
	if s.ETFs == nil {
		return notConfigured("the ETF list")
	}
	q := newQuery(r)
	cat := q.oneOf("category", "", "", market.ETFCategories()...)
	sortBy := q.oneOf("sort", "", "code", etf.SortFields()...)
	order := q.oneOf("order", "", "", "asc", "desc")
	limit := q.intIn("limit", 0, 1, 10000)
	if err := q.Err(); err != nil {
		return err
	}
	l, err := s.ETFs.List(r.Context())
	if err != nil {
		return err
	}
	rows, total := etf.Select(l.Rows, etf.Query{Category: cat, Sort: sortBy, Order: order, Limit: limit})
	if order == "" {
		order = "desc"
		if sortBy == "code" {
			order = "asc"
		}
	}
	out := etfList{Source: s.sourceLabel(l.Source), DataDate: dayOrNull(l.DataDate), FetchedAt: market.FormatTime(l.Fetched),
		Stale: l.Stale, Problem: optional(l.Problem), Partial: optional(l.Partial), Category: optional(cat),
		Sort: sortBy, Order: order, Total: total, Count: len(rows), ETFs: make([]etfItem, len(rows))}
	if !l.AsOf.IsZero() {
		out.AsOf = optional(market.FormatTime(l.AsOf))
	}
	for i, x := range rows {
		out.ETFs[i] = etfItemOf(x)
	}
	return ok(w, out)
}
