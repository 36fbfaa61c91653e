package upstream

import (
	"bytes"
	"context"
	"math"
	"net/url"
	"strconv"
	"strings"

	"mdqs/internal/market"
)

// SourceLHB names the dragon-tiger list client (龙虎榜, datacenter-web) in
// errors and Status. It shares datacenter-web's rate cap with the
// report client (one limiter per host) but keeps a status of its own.
const SourceLHB = "datacenter-lhb"

const (
	// reportLHBDaily is the day's list: one row per listed stock and
	// listing reason (akshare's stock_lhb_detail_em).
	reportLHBDaily = "RPT_DAILYBILLBOARD_DETAILSNEW"
	// reportLHBBuy and reportLHBSell are one stock-day's top buying and
	// selling seats, once per listing reason (stock_lhb_stock_detail_em).
	reportLHBBuy  = "RPT_BILLBOARD_DAILYDETAILSBUY"
	reportLHBSell = "RPT_BILLBOARD_DAILYDETAILSSELL"
	// lhbDailyColumns is akshare's explicit column list (asking ALL over a
	// range once lost fields, akshare #3685) plus the reason code, the
	// billboard id and the board, which the seat rows carry too.
	lhbDailyColumns = "SECURITY_CODE,SECUCODE,SECURITY_NAME_ABBR,TRADE_DATE,EXPLAIN,CLOSE_PRICE,CHANGE_RATE,BILLBOARD_NET_AMT," +
		"BILLBOARD_BUY_AMT,BILLBOARD_SELL_AMT,BILLBOARD_DEAL_AMT,ACCUM_AMOUNT,DEAL_NET_RATIO,DEAL_AMOUNT_RATIO,TURNOVERRATE," +
		"FREE_MARKET_CAP,EXPLANATION,D1_CLOSE_ADJCHRATE,D2_CLOSE_ADJCHRATE,D5_CLOSE_ADJCHRATE,D10_CLOSE_ADJCHRATE," +
		"SECURITY_TYPE_CODE,CHANGE_TYPE,TRADE_ID,TRADE_MARKET"
)

// LHBConfig configures the dragon-tiger list client.
type LHBConfig struct {
	SourceConfig     // datacenter-web.eastmoney.com
	PageSize     int // rows per page of the day's list (the API takes 500)
}

// DefaultLHBConfig: EastMoney's politeness defaults, 500 rows a page (a
// day's list is 60 to 150 rows: one page).
func DefaultLHBConfig() LHBConfig {
	c := LHBConfig{SourceConfig: eastMoneyDefaults(), PageSize: 500}
	c.BaseURL = "https://datacenter-web.eastmoney.com"
	return c
}

func (c LHBConfig) withDefaults() LHBConfig {
	d := DefaultLHBConfig()
	c.SourceConfig = c.SourceConfig.withDefaults(d.SourceConfig)
	if c.PageSize <= 0 || c.PageSize > 500 {
		c.PageSize = d.PageSize
	}
	return c
}

// LHBListing is one stock listed on one day for one reason (a stock listed
// for two reasons is two listings). Money is in yuan; every rate and ratio
// is in percent (CHANGE_RATE, TURNOVERRATE and the DEAL_*_RATIO fields
// come as percents); NaN is unknown.
type LHBListing struct {
	Day        market.Day
	Code       market.Code
	Name       string
	Reason     string // EXPLANATION, the exchange's 上榜原因 as worded by that exchange
	ReasonCode string // CHANGE_TYPE ("137001002001001"); "" when not sent
	TradeID    string // TRADE_ID as text (a string in 2024, a number in 2026); "" when not sent
	Reading    string // EXPLAIN, EastMoney's one-line 解读
	Board      string // TRADE_MARKET ("深交所主板"); "" when not sent
	Close      float64
	ChangePct  float64 // CHANGE_RATE, %
	Turnover   float64 // TURNOVERRATE, % of float shares
	Buy        float64 // BILLBOARD_BUY_AMT: the listed seats' buying
	Sell       float64 // BILLBOARD_SELL_AMT
	Net        float64 // BILLBOARD_NET_AMT
	Deal       float64 // BILLBOARD_DEAL_AMT (buy + sell)
	Amount     float64 // ACCUM_AMOUNT: the whole market's turnover of the stock that day
	NetPct     float64 // DEAL_NET_RATIO, % of Amount, as published
	DealPct    float64 // DEAL_AMOUNT_RATIO, % of Amount, as published
	FloatCap   float64 // FREE_MARKET_CAP
}

// LHBSide is the list a seat row is on: the top buyers or the top sellers.
type LHBSide byte

const (
	LHBBuy  LHBSide = 'B'
	LHBSell LHBSide = 'S'
)

func (s LHBSide) String() string {
	if s == LHBSell {
		return "sell"
	}
	return "buy"
}

// LHBSeatRow is one row of a seat list, as the data centre sends it: one
// seat under one listing reason (the same seat's row repeats under each
// reason the stock is listed for). Buy or Sell is NaN on the list where
// the seat did not trade that side; BuyPct and SellPct are percents of the
// stock's day turnover (TOTAL_BUYRIO/TOTAL_SELLRIO x 100: the data centre
// sends fractions there).
type LHBSeatRow struct {
	Day        market.Day
	Code       market.Code
	Side       LHBSide
	SeatCode   string // OPERATEDEPT_CODE, 8 digits; "" for a seat sent without one
	SeatName   string // OPERATEDEPT_NAME: 营业部, or 机构专用 / 沪股通专用 / 深股通专用
	Reason     string
	ReasonCode string
	TradeID    string
	Buy        float64
	Sell       float64
	Net        float64
	BuyPct     float64
	SellPct    float64
	Rise3DPct  float64 // RISE_PROBABILITY_3DAY, % (the seat's 3-day success rate)
	Times3D    int     // TOTAL_BUYER_SALESTIMES_3DAY; -1 unknown
}

// LHB reads the data centre's dragon-tiger reports.
type LHB struct {
	f   *fetcher
	cfg LHBConfig
}

// NewLHB builds the client; zero config fields take DefaultLHBConfig().
func NewLHB(cfg LHBConfig, lims *Limiters, clock market.Clock) (*LHB, error) {
	cfg = cfg.withDefaults()
	f, err := newFetcher(SourceLHB, cfg.SourceConfig, lims, clock)
	if err != nil {
		return nil, err
	}
	return &LHB{f: f, cfg: cfg}, nil
}

func (c *LHB) Status() Status { return c.f.snapshot() }

// Listings is page (from 1) of day's list, sorted by code, and how many
// pages it has. A day without a list (the data centre's code 9201: a
// holiday, or a day not published yet) is no rows and 0 pages, not an
// error; another non-zero code (9501: the report does not exist) is an RC
// error. Rows of other days fail the page (the filter was not honoured);
// rows that are not stocks (convertible bonds are listed too) are skipped.
func (c *LHB) Listings(ctx context.Context, day market.Day, page int) (rows []LHBListing, pages int, err error) {
	page = max(page, 1)
	defer c.f.observe(c.f.clock.Now(), &err)
	params := url.Values{
		"reportName":  {reportLHBDaily},
		"columns":     {lhbDailyColumns},
		"filter":      {"(TRADE_DATE<='" + day.String() + "')(TRADE_DATE>='" + day.String() + "')"},
		"pageNumber":  {strconv.Itoa(page)},
		"pageSize":    {strconv.Itoa(c.cfg.PageSize)},
		"sortColumns": {"SECURITY_CODE,TRADE_DATE"},
		"sortTypes":   {"1,-1"},
		"source":      {"WEB"},
		"client":      {"WEB"},
	}
	chk := &check{}
	err = c.f.get(ctx, request{path: dataCenterPath, query: params, referer: "https://data.eastmoney.com/stock/tradedetail.html"}, func(body []byte) error {
		var err error
		rows, pages, err = decodeLHBListings(body, chk)
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	for _, r := range rows {
		if r.Day != day {
			return nil, 0, &Error{Kind: KindSchema, Source: SourceLHB, Path: dataCenterPath, Field: "TRADE_DATE",
				Detail: "a row of " + r.Day.String() + " in the list of " + day.String()}
		}
	}
	c.f.noteDrift(chk)
	return rows, pages, nil
}

// Seats is page (from 1) of one stock-day's seat list on side, every
// listing reason's rows (a seat repeats once per reason), largest first,
// and the page count. An empty list (9201) is no rows.
func (c *LHB) Seats(ctx context.Context, day market.Day, code market.Code, side LHBSide, page int) (rows []LHBSeatRow, pages int, err error) {
	page = max(page, 1)
	defer c.f.observe(c.f.clock.Now(), &err)
	report, sortBy := reportLHBBuy, "BUY"
	if side == LHBSell {
		report, sortBy = reportLHBSell, "SELL"
	}
	// Single quotes around the date, double quotes around the code, as the
	// web page sends them.
	params := url.Values{
		"reportName":  {report},
		"columns":     {"ALL"},
		"filter":      {"(TRADE_DATE='" + day.String() + "')(SECURITY_CODE=\"" + code.Symbol + "\")"},
		"pageNumber":  {strconv.Itoa(page)},
		"pageSize":    {"500"},
		"sortColumns": {sortBy},
		"sortTypes":   {"-1"},
		"source":      {"WEB"},
		"client":      {"WEB"},
	}
	chk := &check{}
	err = c.f.get(ctx, request{path: dataCenterPath, query: params, referer: "https://data.eastmoney.com/stock/lhb.html"}, func(body []byte) error {
		var err error
		rows, pages, err = decodeLHBSeats(body, side, chk)
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	for _, r := range rows {
		if r.Day != day || r.Code != code {
			return nil, 0, &Error{Kind: KindSchema, Source: SourceLHB, Path: dataCenterPath, Field: "SECURITY_CODE",
				Detail: "a seat row of " + r.Code.String() + " " + r.Day.String() + " for " + code.String() + " " + day.String()}
		}
	}
	c.f.noteDrift(chk)
	return rows, pages, nil
}

// lhbKey reads the code and day every row of both reports carries.
func lhbKey(r row) (market.Code, market.Day, bool) {
	sym := r.reqStr("SECURITY_CODE")
	date := r.reqStr("TRADE_DATE")
	secu, _ := strOf(r.m["SECUCODE"])
	if r.c.err != nil {
		return market.Code{}, 0, false
	}
	d, err := dataCenterDay(date)
	if err != nil {
		r.c.fail("TRADE_DATE", "not a date in %s: %q", r.where, clip(date, 30))
		return market.Code{}, 0, false
	}
	code, err := financeCode(sym, secu)
	if err != nil {
		r.c.fail("SECURITY_CODE", "%v in %s", err, r.where)
		return market.Code{}, 0, false
	}
	return code, d, true
}

// tradeID reads TRADE_ID, a string ("5016460") in 2024 and a number
// (100407981) in 2026, as the same text; "" when absent or null.
func tradeID(r row) string {
	raw := bytes.TrimSpace(r.m["TRADE_ID"])
	if s, st := strOf(raw); st == ok {
		return s
	}
	if v, st := numOf(raw); st == ok && v == math.Trunc(v) && v >= 0 && v < 1e15 {
		return strconv.FormatInt(int64(v), 10)
	}
	if len(raw) > 0 && string(raw) != "null" {
		r.c.note("TRADE_ID", "neither a string nor a whole number")
	}
	return ""
}

// decodeLHBListings reads the day's list (RPT_DAILYBILLBOARD_DETAILSNEW).
// Required: the code, date and reason, and the billboard's buy and sell
// amounts; the rest are optional (absence is drift).
func decodeLHBListings(body []byte, chk *check) ([]LHBListing, int, error) {
	objs, pages, err := dataCenterRows(body, chk)
	if err != nil || len(objs) == 0 {
		return []LHBListing{}, pages, err
	}
	rows := make([]LHBListing, 0, len(objs))
	for i, m := range objs {
		r := row{m: m, where: "row " + strconv.Itoa(i), c: chk}
		code, day, good := lhbKey(r)
		l := LHBListing{
			Reason:     r.reqStr("EXPLANATION"),
			Buy:        r.reqNum("BILLBOARD_BUY_AMT"),
			Sell:       r.reqNum("BILLBOARD_SELL_AMT"),
			Net:        r.optNum("BILLBOARD_NET_AMT"),
			Name:       r.optStr("SECURITY_NAME_ABBR"),
			Reading:    r.optStr("EXPLAIN"),
			Close:      r.optNum("CLOSE_PRICE"),
			ChangePct:  r.optNum("CHANGE_RATE"),
			Turnover:   r.optNum("TURNOVERRATE"),
			Deal:       r.optNum("BILLBOARD_DEAL_AMT"),
			Amount:     r.optNum("ACCUM_AMOUNT"),
			NetPct:     r.optNum("DEAL_NET_RATIO"),
			DealPct:    r.optNum("DEAL_AMOUNT_RATIO"),
			FloatCap:   r.optNum("FREE_MARKET_CAP"),
			ReasonCode: r.optStr("CHANGE_TYPE"),
			Board:      r.optStr("TRADE_MARKET"),
			TradeID:    tradeID(r),
		}
		if chk.err != nil || !good {
			return nil, 0, chk.err
		}
		if market.Classify(code) != market.TypeStock {
			continue
		}
		l.Code, l.Day = code, day
		rows = append(rows, l)
	}
	return rows, pages, nil
}

// decodeLHBSeats reads a seat list (RPT_BILLBOARD_DAILYDETAILSBUY/SELL).
// Required: code, date, seat name, reason, and the side's amount (BUY on
// the buy list, SELL on the sell list; the other side may be null).
func decodeLHBSeats(body []byte, side LHBSide, chk *check) ([]LHBSeatRow, int, error) {
	objs, pages, err := dataCenterRows(body, chk)
	if err != nil || len(objs) == 0 {
		return []LHBSeatRow{}, pages, err
	}
	rows := make([]LHBSeatRow, 0, len(objs))
	for i, m := range objs {
		r := row{m: m, where: "row " + strconv.Itoa(i), c: chk}
		code, day, good := lhbKey(r)
		s := LHBSeatRow{
			Side:       side,
			SeatName:   r.reqStr("OPERATEDEPT_NAME"),
			Reason:     r.reqStr("EXPLANATION"),
			SeatCode:   r.optStr("OPERATEDEPT_CODE"),
			ReasonCode: r.optStr("CHANGE_TYPE"),
			TradeID:    tradeID(r),
			Buy:        r.reqNum("BUY"),
			Sell:       r.reqNum("SELL"),
			Net:        r.optNum("NET"),
			BuyPct:     r.optNum("TOTAL_BUYRIO") * 100,
			SellPct:    r.optNum("TOTAL_SELLRIO") * 100,
			Rise3DPct:  r.optNum("RISE_PROBABILITY_3DAY"),
			Times3D:    r.optCount("TOTAL_BUYER_SALESTIMES_3DAY"),
		}
		if chk.err != nil || !good {
			return nil, 0, chk.err
		}
		amount := s.Buy
		if side == LHBSell {
			amount = s.Sell
		}
		if math.IsNaN(amount) || amount < 0 {
			return nil, 0, schemaErr(strings.ToUpper(side.String()), "no %s amount in %s", side, r.where)
		}
		if math.IsNaN(s.Net) {
			s.Net = zeroNaN(s.Buy) - zeroNaN(s.Sell)
		}
		if market.Classify(code) != market.TypeStock {
			continue
		}
		s.Code, s.Day = code, day
		rows = append(rows, s)
	}
	return rows, pages, nil
}

func zeroNaN(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}
