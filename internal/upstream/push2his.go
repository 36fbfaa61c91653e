package upstream

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"mdqs/internal/market"
)

const (
	klinePath  = "/api/qt/stock/kline/get"
	fflowPath  = "/api/qt/stock/fflow/daykline/get"
	trendsPath = "/api/qt/stock/trends2/get"

	utHis   = "fa5fd1943c7b386f172d6893dbfba10b" // the quote pages' kline/trends token
	utFflow = "b2884a393a59ad64002292a3e90d46a5" // the fund-flow pages' token
)

// Push2His reads EastMoney push2his: K-lines, daily fund flow and the
// 1-minute trends series.
type Push2His struct {
	f *fetcher
}

// NewPush2His builds the push2his client; zero config fields take
// DefaultConfig().Push2His, and a nil clock is the system clock.
func NewPush2His(cfg SourceConfig, lims *Limiters, clock market.Clock) (*Push2His, error) {
	cfg = cfg.withDefaults(DefaultConfig().Push2His)
	f, err := newFetcher(SourcePush2His, cfg, lims, clock)
	if err != nil {
		return nil, err
	}
	return &Push2His{f: f}, nil
}

func (c *Push2His) Status() Status { return c.f.snapshot() }

// SuspectBan tells the client that its last answer looks like a ban, which
// only the caller can see (no bars for a code that had them): that host
// cools down twice as long as after a failure, and the next request goes
// to the next host (see docs/operations.md, failover).
func (c *Push2His) SuspectBan() { c.f.suspectBan() }

// secid is EastMoney's "<market>.<code>": 1 for Shanghai, 0 for Shenzhen
// and Beijing alike.
func secid(code market.Code) (string, error) {
	if len(code.Symbol) != 6 {
		return "", market.Errorf(market.KindInvalid, "code %q: want six digits", code.Symbol)
	}
	switch code.Exchange {
	case market.SH:
		return "1." + code.Symbol, nil
	case market.SZ, market.BJ:
		return "0." + code.Symbol, nil
	}
	return "", market.Errorf(market.KindInvalid, "code %s: unknown exchange", code)
}

// quotePage is the page a browser would be on when it asks for this code.
func quotePage(code market.Code) string {
	if code.Exchange == market.BJ {
		return "https://quote.eastmoney.com/bj/" + code.Symbol + ".html"
	}
	return "https://quote.eastmoney.com/" + strings.ToLower(string(code.Exchange)) + code.Symbol + ".html"
}

// Klines are unadjusted (fqt=0) bars of code in [from, to] (a zero Day
// leaves that side open), ascending.
//
// Daily bars ask beg/end = from/to; minute bars ask everything the server
// keeps (beg=0, a few recent days) because beg/end are days and the minute
// history is short. Rows are filtered to [from, to] here either way.
// Minute series get the 09:30 opening-auction row folded into the first bar
// of the day (09:31 or 09:35), which opens at the auction price and counts
// its volume and amount. Volume is in shares. TurnoverRate is read when the row has
// it; LargeOrderNet is NaN (see FundFlowDaily and ApplyFundFlow).
//
// An empty klines list is a legitimate answer for a window without trading
// when the security has history (dktotal > 0), and returns no bars; with
// dktotal 0 or absent it is what a throttled or unknown request gets, and
// returns KindEmpty.
func (c *Push2His) Klines(ctx context.Context, code market.Code, freq market.Freq, from, to market.Day) ([]market.Bar, error) {
	return c.klines(ctx, code, freq, from, to, FqtNone)
}

// Fqt is push2his's adjustment parameter: which prices EastMoney answers.
type Fqt int

const (
	FqtNone Fqt = 0 // unadjusted
	FqtQFQ  Fqt = 1 // 前复权, anchored at EastMoney's latest bar
	FqtHFQ  Fqt = 2 // 后复权, from EastMoney's own base level
)

// KlinesAdjusted are Klines with the prices EastMoney adjusted itself,
// fqt=1 (qfq) or fqt=2 (hfq): same request otherwise, same rows, same
// parser. Open, high, low and close are adjusted; volume, amount and
// turnover are not. EastMoney's qfq is anchored at its latest bar (today's
// forming bar during a session), whatever the range asked, and equals the
// terminal's affine qfq to the cent when EastMoney's event data agree with
// the terminal's gbbq; its hfq starts from a base level of its own, which
// for some codes (000001) is not the terminal's. The reply carries no
// event list.
func (c *Push2His) KlinesAdjusted(ctx context.Context, code market.Code, freq market.Freq, from, to market.Day, fqt Fqt) ([]market.Bar, error) {
	if fqt != FqtQFQ && fqt != FqtHFQ {
		return nil, market.Errorf(market.KindInvalid, "fqt %d: want 1 (qfq) or 2 (hfq)", fqt)
	}
	return c.klines(ctx, code, freq, from, to, fqt)
}

func (c *Push2His) klines(ctx context.Context, code market.Code, freq market.Freq, from, to market.Day, fqt Fqt) (bars []market.Bar, err error) {
	sid, err := secid(code)
	if err != nil {
		return nil, err
	}
	var klt string
	var step time.Duration
	switch freq {
	case market.Daily:
		klt = "101"
	case market.Min1:
		klt, step = "1", time.Minute
	case market.Min5:
		klt, step = "5", 5*time.Minute
	default:
		return nil, market.Errorf(market.KindInvalid, "freq %q", freq)
	}
	beg, end := "0", "20500101"
	if freq == market.Daily {
		if from != 0 {
			beg = from.Compact()
		}
		if to != 0 {
			end = to.Compact()
		}
	}
	q := url.Values{
		"secid":   {sid},
		"ut":      {utHis},
		"fields1": {"f1,f2,f3,f4,f5,f6"},
		"fields2": {"f51,f52,f53,f54,f55,f56,f57,f58,f59,f60,f61"},
		"klt":     {klt},
		"fqt":     {strconv.Itoa(int(fqt))},
		"beg":     {beg},
		"end":     {end},
	}
	defer c.f.observe(c.f.clock.Now(), &err)
	err = c.f.get(ctx, request{path: klinePath, query: q, referer: quotePage(code)}, func(body []byte) error {
		d, err := decodeLines(body, "klines", code)
		if err != nil {
			return err
		}
		if len(d.lines) == 0 {
			if d.dktotal > 0 {
				bars = []market.Bar{}
				return nil
			}
			return &Error{Kind: KindEmpty, Detail: "no bars and dktotal 0 (throttled, or no such security)"}
		}
		bars = make([]market.Bar, 0, len(d.lines))
		for i, s := range d.lines {
			b, err := parseKlineRow(s, step > 0)
			if err != nil {
				return schemaErr(fmt.Sprintf("data.klines[%d]", i), "%v", err)
			}
			if inRange(b.Day, from, to) {
				bars = append(bars, b)
			}
		}
		if step > 0 {
			bars = foldAuction(bars, step)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return bars, nil
}

// FundFlowDaily is code's daily fund flow in [from, to] (zero Days leave the
// side open). The endpoint takes no dates (lmt=0 gives its whole recent
// window), so the range is applied here. Merge into daily bars with
// ApplyFundFlow. Rows need date and the five nets; "-" gives NaN.
func (c *Push2His) FundFlowDaily(ctx context.Context, code market.Code, from, to market.Day) (days []FundFlowDay, err error) {
	sid, err := secid(code)
	if err != nil {
		return nil, err
	}
	q := url.Values{
		"lmt":     {"0"},
		"klt":     {"101"},
		"secid":   {sid},
		"ut":      {utFflow},
		"fields1": {"f1,f2,f3,f7"},
		"fields2": {"f51,f52,f53,f54,f55,f56,f57,f58,f59,f60,f61,f62,f63,f64,f65"},
	}
	defer c.f.observe(c.f.clock.Now(), &err)
	err = c.f.get(ctx, request{path: fflowPath, query: q, referer: "https://data.eastmoney.com/zjlx/" + code.Symbol + ".html"}, func(body []byte) error {
		d, err := decodeLines(body, "klines", code)
		if err != nil {
			return err
		}
		if len(d.lines) == 0 {
			return &Error{Kind: KindEmpty, Detail: "no fund-flow days"}
		}
		days = make([]FundFlowDay, 0, len(d.lines))
		for i, s := range d.lines {
			f, err := parseFundFlowRow(s)
			if err != nil {
				return schemaErr(fmt.Sprintf("data.klines[%d]", i), "%v", err)
			}
			if inRange(f.Day, from, to) {
				days = append(days, f)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return days, nil
}

// Trends is the 1-minute series of the last ndays (1..5) trading days from
// trends2, ascending, end-labelled, with the 09:30 auction point folded into
// the 09:31 bar. Days before the latest come with a 0.00 open on every
// point; those opens are derived: the auction point's from its own close,
// any other point's from the previous point's close, clamped into its
// high-low range. rc=100 with data:null (bad secid) is a KindRC error with
// RC 100; no points is KindEmpty.
func (c *Push2His) Trends(ctx context.Context, code market.Code, ndays int) (bars []market.Bar, err error) {
	sid, err := secid(code)
	if err != nil {
		return nil, err
	}
	if ndays < 1 || ndays > 5 {
		return nil, market.Errorf(market.KindInvalid, "ndays %d: want 1..5", ndays)
	}
	q := url.Values{
		"fields1": {"f1,f2,f3,f4,f5,f6,f7,f8,f9,f10,f11,f12,f13"},
		"fields2": {"f51,f52,f53,f54,f55,f56,f57,f58"},
		"ut":      {utHis},
		"secid":   {sid},
		"ndays":   {strconv.Itoa(ndays)},
		"iscr":    {"0"},
		"iscca":   {"0"},
	}
	defer c.f.observe(c.f.clock.Now(), &err)
	err = c.f.get(ctx, request{path: trendsPath, query: q, referer: quotePage(code)}, func(body []byte) error {
		d, err := decodeLines(body, "trends", code)
		if err != nil {
			return err
		}
		if len(d.lines) == 0 {
			return &Error{Kind: KindEmpty, Detail: "no trend points"}
		}
		bars = make([]market.Bar, 0, len(d.lines))
		for i, s := range d.lines {
			b, err := parseTrendRow(s)
			if err != nil {
				return schemaErr(fmt.Sprintf("data.trends[%d]", i), "%v", err)
			}
			bars = append(bars, b)
		}
		fixTrendOpens(bars)
		bars = foldAuction(bars, time.Minute)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return bars, nil
}

func inRange(d, from, to market.Day) bool {
	return (from == 0 || d >= from) && (to == 0 || d <= to)
}

// lines is the data object of kline, fflow and trends2 replies.
type lines struct {
	lines   []string
	dktotal float64 // 0 when absent
}

// decodeLines opens the envelope and reads data.<key>, a list of CSV rows.
// data:null with rc 0 is KindEmpty; a data.code that is not the code asked
// for is KindSchema, because storing another security's bars under this
// code would be silent corruption.
func decodeLines(body []byte, key string, code market.Code) (lines, error) {
	data, err := openEnvelope(body)
	if err != nil {
		return lines{}, err
	}
	if data == nil {
		return lines{}, &Error{Kind: KindEmpty, Detail: "data is null"}
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return lines{}, schemaErr("data", "not an object")
	}
	raw, present := m[key]
	if !present {
		return lines{}, schemaErr("data."+key, "missing")
	}
	var out lines
	if !isNull(raw) {
		if err := json.Unmarshal(raw, &out.lines); err != nil {
			return lines{}, schemaErr("data."+key, "not a list of strings")
		}
	}
	if got, st := strOf(m["code"]); st == ok && got != code.Symbol {
		return lines{}, schemaErr("data.code", "reply is for %q, asked %q", clip(got, 12), code.Symbol)
	}
	if v, st := numOf(m["dktotal"]); st == ok {
		out.dktotal = v
	}
	return out, nil
}
