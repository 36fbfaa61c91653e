package api

import (
	"encoding/json"
	"math"
	"net/http"

	"mdqs/internal/market"
	"mdqs/internal/quote"
	"mdqs/internal/stream"
)

// quoteItem is one code's quote. Unknown figures are null: an index has
// no limit prices, turnover rate or book; a suspended stock no price.
type quoteItem struct {
	Code         string       `json:"code"`
	Name         string       `json:"name"`
	Type         string       `json:"type"`
	Last         *float64     `json:"last"`
	PrevClose    *float64     `json:"prev_close"`
	Open         *float64     `json:"open"`
	High         *float64     `json:"high"`
	Low          *float64     `json:"low"`
	Change       *float64     `json:"change"`
	Pct          *float64     `json:"pct"`
	Volume       *int64       `json:"volume"` // shares
	Amount       *float64     `json:"amount"`
	TurnoverRate *float64     `json:"turnover_rate"`
	VolumeRatio  *float64     `json:"volume_ratio"`
	LimitUp      *float64     `json:"limit_up"`
	LimitDown    *float64     `json:"limit_down"`
	LimitFrom    *string      `json:"limit_from"` // source or rule
	Status       quote.Status `json:"status"`
	Phase        string       `json:"phase"`
	Auction      *auctionItem `json:"auction"`
	Bids         []levelItem  `json:"bids"`
	Asks         []levelItem  `json:"asks"`
	AsOf         string       `json:"as_of"`
	Source       string       `json:"source"`
}

type auctionItem struct {
	Price   *float64 `json:"price"`
	Volume  *int64   `json:"volume"`
	Matched bool     `json:"matched"`
}

type levelItem struct {
	Price  float64 `json:"price"`
	Volume int64   `json:"volume"`
}

type quoteList struct {
	Quotes []quoteItem `json:"quotes"`
	Count  int         `json:"count"`
}

// orNull is a figure, or null when unknown.
func orNull(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// shares is a volume or null (-1 is unknown).
func shares(v int64) *int64 {
	if v < 0 {
		return nil
	}
	return &v
}

func levelItems(ls []market.Level) []levelItem {
	if ls == nil {
		return nil
	}
	out := make([]levelItem, len(ls))
	for i, l := range ls {
		out[i] = levelItem{Price: l.Price, Volume: l.Volume}
	}
	return out
}

func quoteItemOf(q quote.Quote) quoteItem {
	it := quoteItem{Code: q.Code.String(), Name: q.Name, Type: string(q.Type), Last: orNull(q.Price), PrevClose: orNull(q.PrevClose),
		Open: orNull(q.Open), High: orNull(q.High), Low: orNull(q.Low), Change: orNull(q.Change), Pct: orNull(q.Pct), Volume: shares(q.Volume),
		Amount: orNull(q.Amount), TurnoverRate: orNull(q.Turnover), VolumeRatio: orNull(q.VolumeRatio), LimitUp: orNull(q.LimitUp),
		LimitDown: orNull(q.LimitDown), Status: q.Status, Phase: q.Phase, Bids: levelItems(q.Bids), Asks: levelItems(q.Asks),
		AsOf: market.FormatTime(q.At), Source: q.Source}
	if q.LimitFrom != "" {
		it.LimitFrom = &q.LimitFrom
	}
	if a := q.Auction; a != nil {
		it.Auction = &auctionItem{Price: orNull(a.Price), Volume: shares(a.Volume), Matched: a.Matched}
	}
	return it
}

// handleQuotes is GET /v1/api/quotes?codes=...: the current quote of up to
// MaxCodes codes in any form the K-line endpoint takes, in the order
// asked (duplicates once). An unknown code fails the request with a 404
// naming every unknown one; a failing source is a 503 naming it.
func (s *Server) handleQuotes(w http.ResponseWriter, r *http.Request) error {
	if s.Quotes == nil {
		return notConfigured("quotes")
	}
	q := newQuery(r)
	codes := q.codesUpTo(s.Quotes.Config().MaxCodes, "codes", "code")
	if codes == nil && q.Err() == nil {
		q.fail("", "codes is required: one or more codes such as 600519.SH,000001.SZ,000001.SH, separated by commas")
	}
	if err := q.Err(); err != nil {
		return err
	}
	qs, err := s.Quotes.Lookup(r.Context(), codes)
	if err != nil {
		return err
	}
	out := quoteList{Quotes: make([]quoteItem, len(qs)), Count: len(qs)}
	for i, x := range qs {
		out.Quotes[i] = quoteItemOf(x)
	}
	return ok(w, out)
}

// publishQuotes is the quote service's OnRefresh: one event per changed
// code, shaped as /v1/api/quotes shows it; the hub hands each to the
// streams that listed its code.
func (s *Server) publishQuotes(changed []quote.Quote) {
	for _, q := range changed {
		b, _ := json.Marshal(quoteItemOf(q))
		s.Stream.Publish(stream.QuoteEvent(q.Code, b))
	}
}
