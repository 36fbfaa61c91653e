package db

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"mdqs/internal/market"
)

// LHBDay is the record of one imported day of the dragon-tiger list.
// Listings 0 is a day that had no list; a day without a record is not
// imported.
type LHBDay struct {
	Day        market.Day
	Listings   int // listing rows (a stock listed for two reasons counts twice)
	Stocks     int // distinct stocks listed
	Seats      int // seat rows, after merging a seat's rows across reasons
	Source     string
	ImportedAt time.Time
}

// LHBListing is one stock listed on one day for one reason. Money in yuan,
// rates in percent, NaN unknown.
type LHBListing struct {
	Day        market.Day
	Code       market.Code
	Name       string
	Reason     string
	ReasonCode string
	TradeID    string
	Reading    string
	Board      string
	Close      float64
	ChangePct  float64
	Turnover   float64
	Buy        float64
	Sell       float64
	Net        float64
	Deal       float64
	Amount     float64
	NetPct     float64
	DealPct    float64
	FloatCap   float64
}

// LHBSeat is one seat's trading in one stock-day on one side's list,
// with every reason it is listed under. Seq orders the side's seats as the
// source ranked them (largest first), from 1.
type LHBSeat struct {
	Day      market.Day
	Code     market.Code
	Side     string // "buy" or "sell": the list the seat is on
	Seq      int
	SeatCode string
	SeatName string
	// StockName is the stock's name that day, as the list gives it.
	StockName string
	Buy       float64 // NaN: the seat did not buy
	Sell      float64 // NaN: the seat did not sell
	Net       float64
	BuyPct    float64 // % of the stock's day turnover
	SellPct   float64
	Reasons   []string
}

// ReplaceLHBDay stores day's list and seats in one transaction, replacing
// whatever the store held for that day, and records the day as imported:
// a reader sees the old day or the new one, never a mix.
func (s *Store) ReplaceLHBDay(ctx context.Context, day LHBDay, listings []LHBListing, seats []LHBSeat) error {
	for _, l := range listings {
		if l.Day != day.Day {
			return market.Errorf(market.KindInvalid, "lhb: a listing of %v in the import of %v", l.Day, day.Day)
		}
	}
	for _, st := range seats {
		if st.Day != day.Day || (st.Side != "buy" && st.Side != "sell") {
			return market.Errorf(market.KindInvalid, "lhb: a seat of %v side %q in the import of %v", st.Day, st.Side, day.Day)
		}
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		d := int(day.Day)
		for _, t := range []string{"lhb_seats", "lhb_listings", "lhb_days"} {
			if _, err := tx.ExecContext(ctx, `DELETE FROM `+t+` WHERE day = ?`, d); err != nil {
				return classify(err, "replace lhb day")
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO lhb_days(day, listings, stocks, seats, source, imported_at) VALUES (?, ?, ?, ?, ?, ?)`,
			d, day.Listings, day.Stocks, day.Seats, day.Source, day.ImportedAt.UnixMilli()); err != nil {
			return classify(err, "record lhb day")
		}
		ins, err := tx.PrepareContext(ctx, `INSERT INTO lhb_listings(day, code, reason, reason_code, trade_id, name, reading, board,
			close, change_pct, turnover, buy, sell, net, deal, amount, net_pct, deal_pct, float_cap)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return classify(err, "prepare lhb listings")
		}
		defer ins.Close()
		for _, l := range listings {
			if _, err := ins.ExecContext(ctx, d, l.Code.String(), l.Reason, l.ReasonCode, l.TradeID, l.Name, l.Reading, l.Board,
				nullFloat(l.Close), nullFloat(l.ChangePct), nullFloat(l.Turnover), nullFloat(l.Buy), nullFloat(l.Sell),
				nullFloat(l.Net), nullFloat(l.Deal), nullFloat(l.Amount), nullFloat(l.NetPct), nullFloat(l.DealPct),
				nullFloat(l.FloatCap)); err != nil {
				return classify(err, "store lhb listing")
			}
		}
		seat, err := tx.PrepareContext(ctx, `INSERT INTO lhb_seats(day, code, side, seq, seat_code, seat_name, stock_name, buy,
			sell, net, buy_pct, sell_pct, reasons) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return classify(err, "prepare lhb seats")
		}
		defer seat.Close()
		for _, st := range seats {
			if _, err := seat.ExecContext(ctx, d, st.Code.String(), st.Side, st.Seq, st.SeatCode, st.SeatName, st.StockName, nullFloat(st.Buy),
				nullFloat(st.Sell), nullFloat(st.Net), nullFloat(st.BuyPct), nullFloat(st.SellPct),
				strings.Join(st.Reasons, "\n")); err != nil {
				return classify(err, "store lhb seat")
			}
		}
		return nil
	})
}

// LHBDayRecord is day's import record; a day not imported is a not-found
// error.
func (s *Store) LHBDayRecord(ctx context.Context, day market.Day) (LHBDay, error) {
	days, err := s.LHBDays(ctx, day, day)
	if err != nil {
		return LHBDay{}, err
	}
	if len(days) == 0 {
		return LHBDay{}, market.Errorf(market.KindNotFound, "the dragon-tiger list of %v is not imported", day)
	}
	return days[0], nil
}

// LHBDays are the import records of the days from..to (either 0: open),
// oldest first.
func (s *Store) LHBDays(ctx context.Context, from, to market.Day) ([]LHBDay, error) {
	var f filter
	if from != 0 {
		f.and("day >= ?", int(from))
	}
	if to != 0 {
		f.and("day <= ?", int(to))
	}
	rows, err := s.r.QueryContext(ctx, `SELECT day, listings, stocks, seats, source, imported_at FROM lhb_days WHERE `+f.where()+
		` ORDER BY day`, f.args...)
	if err != nil {
		return nil, classify(err, "read lhb days")
	}
	defer rows.Close()
	out := []LHBDay{}
	for rows.Next() {
		var d LHBDay
		var day int
		var at int64
		if err := rows.Scan(&day, &d.Listings, &d.Stocks, &d.Seats, &d.Source, &at); err != nil {
			return nil, classify(err, "read lhb days")
		}
		d.Day, d.ImportedAt = market.Day(day), time.UnixMilli(at).In(market.Shanghai())
		out = append(out, d)
	}
	return out, classify(rows.Err(), "read lhb days")
}

// LHBListings are the listings of one day (code zero: every stock) or of
// one stock over from..to, by day then code then reason.
func (s *Store) LHBListings(ctx context.Context, code market.Code, from, to market.Day) ([]LHBListing, error) {
	var f filter
	if !code.IsZero() {
		f.and("code = ?", code.String())
	}
	f.and("day >= ?", int(from))
	f.and("day <= ?", int(to))
	rows, err := s.r.QueryContext(ctx, `SELECT day, code, reason, reason_code, trade_id, name, reading, board, close, change_pct,
		turnover, buy, sell, net, deal, amount, net_pct, deal_pct, float_cap FROM lhb_listings WHERE `+f.where()+
		` ORDER BY day, code, reason`, f.args...)
	if err != nil {
		return nil, classify(err, "read lhb listings")
	}
	defer rows.Close()
	out := []LHBListing{}
	for rows.Next() {
		var l LHBListing
		var day int
		var code string
		v := make([]sql.NullFloat64, 11)
		if err := rows.Scan(&day, &code, &l.Reason, &l.ReasonCode, &l.TradeID, &l.Name, &l.Reading, &l.Board, &v[0], &v[1], &v[2],
			&v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &v[10]); err != nil {
			return nil, classify(err, "read lhb listings")
		}
		c, err := market.ParseCode(code)
		if err != nil {
			return nil, market.Wrap(market.KindInternal, err, "stored lhb code %q", code)
		}
		l.Day, l.Code = market.Day(day), c
		l.Close, l.ChangePct, l.Turnover = floatOrNaN(v[0]), floatOrNaN(v[1]), floatOrNaN(v[2])
		l.Buy, l.Sell, l.Net, l.Deal = floatOrNaN(v[3]), floatOrNaN(v[4]), floatOrNaN(v[5]), floatOrNaN(v[6])
		l.Amount, l.NetPct, l.DealPct, l.FloatCap = floatOrNaN(v[7]), floatOrNaN(v[8]), floatOrNaN(v[9]), floatOrNaN(v[10])
		out = append(out, l)
	}
	return out, classify(rows.Err(), "read lhb listings")
}

// LHBSeatQuery selects seat rows: of one stock (Code) or of the seats
// whose name contains Name (case-insensitive), over From..To. Offset and
// Limit (0: all) page the rows.
type LHBSeatQuery struct {
	Code     market.Code
	Name     string
	From, To market.Day
	Offset   int
	Limit    int
}

const lhbSeatColumns = `day, code, side, seq, seat_code, seat_name, stock_name, buy, sell, net, buy_pct, sell_pct, reasons`

// LHBSeats lists the seat rows q selects, by day, code, side (buy first)
// and rank, and how many there are in all.
func (s *Store) LHBSeats(ctx context.Context, q LHBSeatQuery) ([]LHBSeat, int, error) {
	var f filter
	if !q.Code.IsZero() {
		f.and("code = ?", q.Code.String())
	}
	if q.Name != "" {
		f.and(`lower(seat_name) LIKE ? ESCAPE '\'`, likePattern(q.Name))
	}
	f.and("day >= ?", int(q.From))
	f.and("day <= ?", int(q.To))
	total, err := s.count(ctx, "lhb_seats", f, "count lhb seats")
	if err != nil || total == 0 {
		return []LHBSeat{}, 0, err
	}
	args := f.args
	query := `SELECT ` + lhbSeatColumns + ` FROM lhb_seats WHERE ` + f.where() + ` ORDER BY day, code, side, seq`
	if q.Limit > 0 {
		query += ` LIMIT ? OFFSET ?`
		args = append(args, q.Limit, q.Offset)
	}
	rows, err := s.r.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, 0, classify(err, "read lhb seats")
	}
	defer rows.Close()
	out := []LHBSeat{}
	for rows.Next() {
		var st LHBSeat
		var day int
		var code, reasons string
		v := make([]sql.NullFloat64, 5)
		if err := rows.Scan(&day, &code, &st.Side, &st.Seq, &st.SeatCode, &st.SeatName, &st.StockName, &v[0], &v[1], &v[2], &v[3], &v[4], &reasons); err != nil {
			return nil, 0, classify(err, "read lhb seats")
		}
		c, err := market.ParseCode(code)
		if err != nil {
			return nil, 0, market.Wrap(market.KindInternal, err, "stored lhb code %q", code)
		}
		st.Day, st.Code = market.Day(day), c
		st.Buy, st.Sell, st.Net, st.BuyPct, st.SellPct = floatOrNaN(v[0]), floatOrNaN(v[1]), floatOrNaN(v[2]), floatOrNaN(v[3]), floatOrNaN(v[4])
		st.Reasons = []string{}
		if reasons != "" {
			st.Reasons = strings.Split(reasons, "\n")
		}
		out = append(out, st)
	}
	return out, total, classify(rows.Err(), "read lhb seats")
}
