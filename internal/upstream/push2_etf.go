package upstream

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"mdqs/internal/market"
)

// etfFields are the clist columns of the ETF list: the quote columns of
// eastmoney.md 1.4 (f5 in lots) and the fund's own, named by akshare's
// fund_etf_spot_em rename map (eastmoney-part2.md section c): f38 最新份额
// (shares outstanding), f297 数据日期 (YYYYMMDD), f402 基金折价率 (%),
// f441 IOPV实时估值 (yuan). No real reply with them was recorded: their
// meanings are the client code's, not seen on the wire.
const etfFields = "f2,f3,f4,f5,f6,f8,f12,f13,f14,f15,f16,f17,f18,f20,f21,f38,f124,f297,f402,f441"

// etfCategories maps each ETF board to what it holds. Inferred from one
// client's comments (eastmoney-part2.md section c, capture 23137525942);
// the quote page's ETF grid shows the four MK002x boards together.
var etfCategories = map[string]string{
	"MK0021": market.ETFAShare,
	"MK0022": market.ETFMoney,
	"MK0023": market.ETFCrossBorder,
	"MK0024": market.ETFGold,
	"MK0827": market.ETFCommodity,
}

// ETFCategoryOf is the category of a board ("b:MK0021" or "MK0021");
// ETFOther for a board mdqs has no meaning for.
func ETFCategoryOf(board string) string {
	if c, ok := etfCategories[strings.TrimPrefix(strings.TrimSpace(board), "b:")]; ok {
		return c
	}
	return market.ETFOther
}

// ETFs is the ETF list: one clist walk per configured board
// (Push2Config.ETFBoards), so that each row carries its board's category.
// A fund listed on two boards is kept once, with the first board's.
//
// Required per row: f12 code (six digits), f13 market (0 or 1), f14 name
// and a present f2 price ("-", as for a fund not trading, gives NaN).
// Every other field is optional: "-" gives NaN (Volume -1, DataDate 0),
// absence is drift. Volume is converted from lots to shares. A board that
// comes back empty is skipped (EastMoney may retire a board); a board
// whose walk stops short, or that fails after others answered, leaves the
// rows in hand with a KindPartial error; a schema error fails the call.
func (c *Push2) ETFs(ctx context.Context) (etfs []market.ETF, err error) {
	defer c.f.observe(c.f.clock.Now(), &err)
	now := c.f.clock.Now()
	chk := &check{}
	seen := map[market.Code]bool{}
	var partial []string
	for _, fs := range splitBoards(c.cfg.ETFBoards) {
		board := strings.TrimPrefix(fs, "b:")
		cat := ETFCategoryOf(board)
		_, werr := c.walk(ctx, fs, etfFields, "https://quote.eastmoney.com/center/gridlist.html#fund_etf", func(r row) {
			e := etfRow(r, now)
			e.Board, e.Category = board, cat
			if chk.err != nil || seen[e.Code] {
				return
			}
			seen[e.Code] = true
			etfs = append(etfs, e)
		}, chk)
		switch {
		case werr == nil:
		case KindOf(werr) == KindEmpty:
			// No rows on this board; the others stand.
		case KindOf(werr) == KindPartial:
			partial = append(partial, board+": "+partialDetail(werr))
		case KindOf(werr) == KindSchema || KindOf(werr) == KindCanceled || len(etfs) == 0:
			return nil, werr
		default:
			partial = append(partial, board+": "+werr.Error())
		}
	}
	if len(etfs) == 0 {
		return nil, &Error{Kind: KindEmpty, Source: SourcePush2, Path: c.f.fullPath(clistPath),
			Detail: "no ETF board (" + c.cfg.ETFBoards + ") has rows"}
	}
	c.f.noteDrift(chk)
	if len(partial) > 0 {
		return etfs, &Error{Kind: KindPartial, Source: SourcePush2, Path: c.f.fullPath(clistPath),
			Detail: "ETF boards cut short: " + strings.Join(partial, "; ")}
	}
	return etfs, nil
}

func partialDetail(err error) string {
	var e *Error
	if errors.As(err, &e) && e.Detail != "" {
		return e.Detail
	}
	return err.Error()
}

// splitBoards splits the configured fs list at commas: each element is one
// board walked alone.
func splitBoards(s string) []string {
	var out []string
	for _, b := range strings.Split(s, ",") {
		if b = strings.TrimSpace(b); b != "" {
			out = append(out, b)
		}
	}
	return out
}

// etfRow reads one clist row of the ETF list; at stands in for a row
// without f124.
func etfRow(r row, at time.Time) market.ETF {
	e := market.ETF{
		Code:         quoteCode(r),
		Name:         r.reqStr("f14"),
		Price:        r.reqNum("f2"),
		Pct:          r.optNum("f3"),
		Change:       r.optNum("f4"),
		Volume:       lotsToShares(r.optNum("f5")),
		Amount:       r.optNum("f6"),
		Turnover:     r.optNum("f8"),
		High:         r.optNum("f15"),
		Low:          r.optNum("f16"),
		Open:         r.optNum("f17"),
		PrevClose:    r.optNum("f18"),
		MarketValue:  r.optNum("f20"),
		FloatValue:   r.optNum("f21"),
		Shares:       r.optNum("f38"),
		IOPV:         r.optNum("f441"),
		DiscountRate: r.optNum("f402"),
		DataDate:     etfDataDate(r),
		At:           at,
	}
	if t, ok := unixSeconds(r.optNum("f124")); ok {
		e.At = t
	}
	return e
}

// etfDataDate reads f297, YYYYMMDD as a number or a string; 0 when "-",
// absent or not a date (noted as drift).
func etfDataDate(r row) market.Day {
	v, st := numOf(r.m["f297"])
	switch st {
	case absent:
		r.c.note("f297", "absent")
		return 0
	case na:
		return 0
	case bad:
		r.c.note("f297", "not a number")
		return 0
	}
	if v != math.Trunc(v) || v < 19900101 || v > 22001231 {
		r.c.note("f297", "not a YYYYMMDD date")
		return 0
	}
	d, err := market.ParseDay(fmt.Sprintf("%08d", int64(v)))
	if err != nil {
		r.c.note("f297", "not a YYYYMMDD date")
		return 0
	}
	return d
}
