package api

import (
	"net/http"

	"mdqs/db"
	"mdqs/internal/lhb"
	"mdqs/internal/market"
)

// lhbReason is one listing reason of a stock-day with the billboard's
// amounts of that reason's window: yuan, and percents of the stock's
// turnover.
type lhbReason struct {
	Reason     string     `json:"reason"`
	ReasonCode string     `json:"reason_code"`
	TradeID    string     `json:"trade_id"`
	Reading    string     `json:"reading"`
	Board      string     `json:"board"`
	Buy        market.Num `json:"buy"`
	Sell       market.Num `json:"sell"`
	Net        market.Num `json:"net"`
	Deal       market.Num `json:"deal"`
	NetPct     market.Num `json:"net_pct"`
	DealPct    market.Num `json:"deal_pct"`
}

// lhbSeat is one seat of a stock-day's buying or selling list, its rows
// repeated per reason merged into one with every reason.
type lhbSeat struct {
	Rank     int        `json:"rank"`
	SeatCode string     `json:"seat_code"`
	SeatName string     `json:"seat_name"`
	Buy      market.Num `json:"buy"`
	Sell     market.Num `json:"sell"`
	Net      market.Num `json:"net"`
	BuyPct   market.Num `json:"buy_pct"`
	SellPct  market.Num `json:"sell_pct"`
	Reasons  []string   `json:"reasons"`
}

type lhbItem struct {
	Date      string      `json:"date"`
	Code      string      `json:"code"`
	Name      string      `json:"name"`
	Close     market.Num  `json:"close"`
	ChangePct market.Num  `json:"change_pct"`
	Turnover  market.Num  `json:"turnover_pct"`
	Amount    market.Num  `json:"amount"`
	FloatCap  market.Num  `json:"float_cap"`
	Reasons   []lhbReason `json:"reasons"`
	BuySeats  []lhbSeat   `json:"buy_seats,omitempty"`
	SellSeats []lhbSeat   `json:"sell_seats,omitempty"`
}

func lhbSeatOf(s db.LHBSeat) lhbSeat {
	return lhbSeat{Rank: s.Seq, SeatCode: s.SeatCode, SeatName: s.SeatName, Buy: market.Num(s.Buy), Sell: market.Num(s.Sell),
		Net: market.Num(s.Net), BuyPct: market.Num(s.BuyPct), SellPct: market.Num(s.SellPct), Reasons: s.Reasons}
}

func lhbItemOf(st lhb.Stock) lhbItem {
	first := st.Reasons[0]
	it := lhbItem{Date: st.Day.String(), Code: st.Code.String(), Name: st.Name, Close: market.Num(first.Close),
		ChangePct: market.Num(first.ChangePct), Turnover: market.Num(first.Turnover), Amount: market.Num(first.Amount),
		FloatCap: market.Num(first.FloatCap), Reasons: make([]lhbReason, len(st.Reasons))}
	for i, l := range st.Reasons {
		it.Reasons[i] = lhbReason{Reason: l.Reason, ReasonCode: l.ReasonCode, TradeID: l.TradeID, Reading: l.Reading, Board: l.Board,
			Buy: market.Num(l.Buy), Sell: market.Num(l.Sell), Net: market.Num(l.Net), Deal: market.Num(l.Deal),
			NetPct: market.Num(l.NetPct), DealPct: market.Num(l.DealPct)}
	}
	if st.HasSeats {
		it.BuySeats, it.SellSeats = make([]lhbSeat, len(st.Buy)), make([]lhbSeat, len(st.Sell))
		for i, s := range st.Buy {
			it.BuySeats[i] = lhbSeatOf(s)
		}
		for i, s := range st.Sell {
			it.SellSeats[i] = lhbSeatOf(s)
		}
	}
	return it
}

func lhbItems(stocks []lhb.Stock) []lhbItem {
	out := make([]lhbItem, len(stocks))
	for i, st := range stocks {
		out[i] = lhbItemOf(st)
	}
	return out
}

// lhbCoverage is the part of a range answer that says which days it
// looked at: the trading days whose list is out, those imported, and the
// first missing ones.
func lhbCoverage(c lhb.Coverage) map[string]any {
	missing := make([]string, len(c.Missing))
	for i, d := range c.Missing {
		missing[i] = d.String()
	}
	return map[string]any{"start": c.From.String(), "end": c.To.String(), "source": c.Source, "as_of": market.FormatTime(c.AsOf),
		"latest_imported": c.Latest.String(), "trading_days": c.TradingDays, "imported_days": c.Imported, "missing_days": missing}
}

// handleLHB is GET /v1/api/lhb: the dragon-tiger list. date gives one
// day's list (seats=1 adds every stock's seats); code with start and end
// (default: the 90 days through today) gives one stock's listings with
// their seats.
func (s *Server) handleLHB(w http.ResponseWriter, r *http.Request) error {
	if s.LHB == nil {
		return notConfigured("the dragon-tiger list")
	}
	q := newQuery(r)
	day, hasDay := q.day("date", "")
	code, hasCode := q.code("code", false)
	from, to := q.span()
	hasRange := q.has("start") || q.has("end")
	seats := q.flag("seats")
	if err := q.Err(); err != nil {
		return err
	}
	switch {
	case hasDay && (hasCode || hasRange):
		return market.Errorf(market.KindInvalid, "send date (one day's list) or code with start and end (one stock's listings), not both")
	case !hasDay && !hasCode:
		return market.Errorf(market.KindInvalid, "date or code is required: date=2026-11-20 for a day's list, code=600519.SH&start=&end= for a stock's")
	case hasDay:
		ans, err := s.LHB.Day(r.Context(), day, seats)
		if err != nil {
			return err
		}
		status := "listed"
		if ans.Record.Listings == 0 {
			status = "no_list"
		}
		return ok(w, map[string]any{"date": day.String(), "status": status, "source": ans.Record.Source,
			"imported_at": market.FormatTime(ans.Record.ImportedAt), "stocks": ans.Record.Stocks, "listings": ans.Record.Listings,
			"items": lhbItems(ans.Stocks)})
	}
	ans, err := s.LHB.Stock(r.Context(), code, from, to)
	if err != nil {
		return err
	}
	out := lhbCoverage(ans.Coverage)
	out["code"], out["items"] = code.String(), lhbItems(ans.Stocks)
	return ok(w, out)
}

type lhbSeatRow struct {
	Date      string     `json:"date"`
	Code      string     `json:"code"`
	StockName string     `json:"stock_name"`
	Side      string     `json:"side"`
	Rank      int        `json:"rank"`
	SeatCode  string     `json:"seat_code"`
	SeatName  string     `json:"seat_name"`
	Buy       market.Num `json:"buy"`
	Sell      market.Num `json:"sell"`
	Net       market.Num `json:"net"`
	BuyPct    market.Num `json:"buy_pct"`
	SellPct   market.Num `json:"sell_pct"`
	Reasons   []string   `json:"reasons"`
}

// handleLHBSeats is GET /v1/api/lhb/seats: a seat's activity. name (part
// of the seat's name, such as 拉萨 or 机构专用) over start..end (default
// the 90 days through today): every stock-day the seat was among the top
// buyers or sellers, by day, paged, with the totals of all of them.
func (s *Server) handleLHBSeats(w http.ResponseWriter, r *http.Request) error {
	if s.LHB == nil {
		return notConfigured("the dragon-tiger list")
	}
	q := newQuery(r)
	name := q.str("name")
	if name == "" {
		q.fail("", "name is required: part of a seat's name, such as 拉萨 or 机构专用")
	}
	from, to := q.span()
	page := q.intIn("page", 1, 1, 1_000_000)
	size := q.intIn("page_size", 100, 1, 500)
	if err := q.Err(); err != nil {
		return err
	}
	ans, err := s.LHB.Seat(r.Context(), name, from, to, page, size)
	if err != nil {
		return err
	}
	items := make([]lhbSeatRow, len(ans.Items))
	for i, x := range ans.Items {
		items[i] = lhbSeatRow{Date: x.Day.String(), Code: x.Code.String(), StockName: x.StockName, Side: x.Side, Rank: x.Seq,
			SeatCode: x.SeatCode, SeatName: x.SeatName, Buy: market.Num(x.Buy), Sell: market.Num(x.Sell), Net: market.Num(x.Net),
			BuyPct: market.Num(x.BuyPct), SellPct: market.Num(x.SellPct), Reasons: x.Reasons}
	}
	out := lhbCoverage(ans.Coverage)
	t := ans.Totals
	out["name"], out["items"], out["total"], out["page"], out["page_size"] = name, items, t.Rows, ans.Page, ans.PageSize
	out["totals"] = map[string]any{"rows": t.Rows, "days": t.Days, "stocks": t.Stocks, "buy": market.Num(t.Buy),
		"sell": market.Num(t.Sell), "net": market.Num(t.Net)}
	return ok(w, out)
}
