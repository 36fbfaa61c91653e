package api

import (
	"net/http"
	"strconv"

	"mdqs/db"
	"mdqs/internal/adjust"
	"mdqs/internal/corpaction"
	"mdqs/internal/indicator"
	"mdqs/internal/kline"
	"mdqs/internal/market"
	"mdqs/internal/tdx"
)

// handleKlineAdjusted is GET /v1/api/kline/adjusted: /v1/api/kline's rows
// with the terminal's 前复权 (mode=qfq) or 后复权 (mode=hfq) prices, the
// indicators computed on them, and what the answer applied. A live server
// without any imported corporate actions answers EastMoney's own adjusted
// K-lines instead (adj_method eastmoney-fqt), when it has that upstream.
func (s *Server) handleKlineAdjusted(w http.ResponseWriter, r *http.Request) error {
	k, err := s.parseKlineOf(r, true)
	if err != nil {
		return err
	}
	if s.Actions != nil {
		up, err := s.Actions.FromUpstream(r.Context())
		if err != nil {
			return err
		}
		if up {
			return s.writeUpstreamAdjusted(w, r, k)
		}
	}
	return s.writeKline(w, r, k)
}

// writeUpstreamAdjusted answers an adjusted request with the upstream's
// own adjusted bars, warm-up included, never stored; the rows are shaped
// as the terminal path's, with no events (EastMoney's K-lines carry none).
func (s *Server) writeUpstreamAdjusted(w http.ResponseWriter, r *http.Request, k klineRequest) error {
	if wantsAdjFields(k.fields) {
		return market.Errorf(market.KindInvalid, "adj_factor and adj_offset need the terminal's corporate actions: "+
			"none are imported, so adjusted bars come from EastMoney, which publishes no map; set tdx.dir to the terminal's folder to import its gbbq")
	}
	rng := kline.Range{From: k.from, To: k.to, WarmFrom: s.warmup(k.from, k.freq, indicator.Lookback(k.indicators)+1)}
	if n := s.Klines.Estimate(k.freq, market.DayOf(rng.Start()), market.DayOf(rng.To)); n > 20_000 {
		return market.Errorf(market.KindInvalid, "the range holds up to %d %s bars; narrow start/end", n, k.freq)
	}
	ser, err := s.Actions.UpstreamSeries(r.Context(), k.code, k.freq, k.mode, k.anchor, rng)
	if err != nil {
		return err
	}
	note := ""
	if k.mode == adjust.HFQ {
		note = "EastMoney's 后复权 starts from a base level of its own, not from a listing day mdqs knows; " +
			"set tdx.dir to the terminal's folder for the terminal's 后复权"
	}
	head := func(b []byte, _, _ market.Day) []byte {
		b = append(b, `,"adj_method":`...)
		b = market.AppendJSONString(b, ser.Method)
		b = appendAnchor(b, ser.Anchor, 0, "", note)
		b = append(b, `,"actions_source":`...)
		b = market.AppendJSONString(b, ser.ActionsSource)
		return append(b, `,"events":[]`...)
	}
	return s.encodeKline(w, k, ser.Series, s.sourceLabel(ser.Source), head, nil)
}

// actionItem is one corporate action. Values are the decimals the
// source's float32s stand for (tdx.Decimal32: 84.78, not the
// 84.77999877929688 the float32 widens to); fields a category does not use
// are absent.
type actionItem struct {
	Date     string             `json:"date"`
	Category int                `json:"category"`
	Name     string             `json:"name"`
	Values   map[string]float64 `json:"values"`
	// ExPrice is a price event's own map: the ex-reference price of a
	// cum-event price p is ex_factor·p + ex_offset (adjust.Event.Ex).
	ExFactor *float64 `json:"ex_factor,omitempty"`
	ExOffset *float64 `json:"ex_offset,omitempty"`
	Source   string   `json:"source"`
}

func actionItemOf(a db.Action) actionItem {
	cat := tdx.GBBQCategory(a.Category)
	it := actionItem{Date: a.Day.String(), Category: a.Category, Name: cat.String(), Values: map[string]float64{}, Source: a.Source}
	for i, name := range cat.Fields() {
		if name != "" {
			it.Values[name] = a.F[i]
		}
	}
	if ev := corpaction.PriceEvents([]db.Action{a}); len(ev) == 1 {
		ex := ev[0].Ex()
		f, o := significant15(ex.A), significant15(ex.B)
		it.ExFactor, it.ExOffset = &f, &o
	}
	return it
}

// significant15 writes a map's coefficient as the decimal it stands for:
// 2.18 per 10 is an offset of −0.218, which float64 division leaves as
// −0.21800000000000003, and a map without cash has an offset of 0, not
// −0. Fifteen significant digits are all a float64 holds exactly, so the
// map a script rebuilds from them is the same to far below a cent.
func significant15(x float64) float64 {
	v, err := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 15, 64), 64)
	switch {
	case err != nil: // NaN or an infinity, as it was
		return x
	case v == 0:
		return 0 // never −0
	}
	return v
}

// handleCorporateActions is GET /v1/api/corporate_actions: a code's events
// with their values, and for a price event the map it applies.
func (s *Server) handleCorporateActions(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	code, _ := q.code("code", true)
	from, to := q.span()
	if err := q.Err(); err != nil {
		return err
	}
	if s.Actions == nil {
		return market.Errorf(market.KindUnavailable, "corporate actions are not served by this server")
	}
	all, err := s.Actions.Actions(r.Context(), code, 0, 0)
	if err != nil {
		return err
	}
	items := []actionItem{}
	for _, a := range all {
		if (from == 0 || a.Day >= from) && (to == 0 || a.Day <= to) {
			items = append(items, actionItemOf(a))
		}
	}
	// The listing day is hfq's anchor, whatever range was asked.
	hfq, stated, err := s.Actions.ListingDay(r.Context(), code, all)
	if err != nil {
		return err
	}
	var listing, listingFrom *string
	if hfq != 0 {
		d := hfq.String()
		listing, listingFrom = &d, &stated
	}
	return ok(w, map[string]any{"code": code.String(), "count": len(items), "items": items, "listing_day": listing,
		"listing_day_source": listingFrom, "source": s.sourceLabel(sourceOfActions(all))})
}

func sourceOfActions(actions []db.Action) string {
	if len(actions) == 0 {
		return "store"
	}
	return actions[0].Source
}
