package upstream

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"

	"mdqs/internal/market"
)

// SourcePush2Ex names the limit-pool client (push2ex.eastmoney.com) in
// errors and Status.
const SourcePush2Ex = "push2ex"

// push2exUT is the ut the quote page and akshare send (eastmoney-part2.md a.1).
const push2exUT = "7eea3edcaed734bea9cbfc24409ed989"

// rcNoPool is the rc a reply without a pool is said to carry (eastmoney-
// part2.md a.2: {"rc":102,"data":null} for an empty pool or a non-trading
// day, from a fixture not shown to be a capture): no pool, not an error.
const rcNoPool = 102

// PoolKind is one of EastMoney's published limit pools, named as mdqs's
// own pools are (GET /v1/api/limit_pool?kind=).
type PoolKind string

const (
	PoolUp        PoolKind = "up"        // getTopicZTPool, 涨停股池
	PoolBroken    PoolKind = "broken"    // getTopicZBPool, 炸板股池
	PoolDown      PoolKind = "down"      // getTopicDTPool, 跌停股池
	PoolYesterday PoolKind = "yesterday" // getYesterdayZTPool, 昨日涨停
	PoolStrong    PoolKind = "strong"    // getTopicQSPool, 强势股池
)

// PoolKinds are the published pools mdqs imports, in that order.
var PoolKinds = []PoolKind{PoolUp, PoolBroken, PoolDown, PoolYesterday, PoolStrong}

// endpoint is kind's path and the sort akshare asks (eastmoney-part2.md a.1).
func (k PoolKind) endpoint() (path, sort string, ok bool) {
	switch k {
	case PoolUp:
		return "/getTopicZTPool", "fbt:asc", true
	case PoolBroken:
		return "/getTopicZBPool", "fbt:asc", true
	case PoolDown:
		return "/getTopicDTPool", "fund:asc", true
	case PoolYesterday:
		return "/getYesterdayZTPool", "zs:desc", true
	case PoolStrong:
		return "/getTopicQSPool", "zdp:desc", true
	}
	return "", "", false
}

// PoolRow is one stock of a published pool, read by key. Prices are in
// yuan (the wire's p and ztp are yuan x 1000), money in yuan, rates in
// percent; NaN, -1 or "" is not sent. Seal times are seconds after
// midnight Shanghai, to the second as the source gives them.
type PoolRow struct {
	Code       market.Code
	Name       string  // n as sent (inner spaces kept: "大 唐电信")
	Price      float64 // p / 1000
	LimitPrice float64 // ztp / 1000 (broken, yesterday); NaN elsewhere
	ChangePct  float64 // zdp
	Amount     float64 // amount, yuan
	FloatCap   float64 // ltsz
	TotalCap   float64 // tshare
	Turnover   float64 // hs, %
	// Boards is lbc (up: consecutive limit-ups, 1 = first board), ylbc
	// (yesterday: the boards of the day before) or days (down:
	// consecutive limit-downs); -1 not sent.
	Boards int
	// FirstSeal is fbt (up, broken) or yfbt (yesterday: the day before's
	// first seal); LastSeal is lbt (up, down). -1 not sent or 0.
	FirstSeal, LastSeal int
	SealFund            float64 // fund: the order at the limit (封板资金/封单资金)
	// OpenedTimes is zbc (up, broken: 炸板次数) or oc (down: 开板次数); -1 not sent.
	OpenedTimes int
	Industry    string // hybk, trimmed
	// CountDays and CountUp are zttj {"days":D,"ct":N}: N limit-ups in D
	// days; -1 not sent.
	CountDays, CountUp int
}

// Pool is one published pool as the source answered a date.
type Pool struct {
	Kind  PoolKind
	Asked market.Day // the date asked
	// Day is data.qdate, the trading day the pool belongs to: it may be
	// another day than Asked (a non-trading date answers the previous
	// day's pool), so rows are of Day, never of Asked. 0 when the reply
	// named no day (data:null, rc 102).
	Day   market.Day
	Total int // data.tc
	Rows  []PoolRow
}

// Push2Ex reads EastMoney's published limit pools.
type Push2Ex struct {
	f   *fetcher
	cfg Push2ExConfig
}

// NewPush2Ex builds the client; zero config fields take DefaultPush2ExConfig().
func NewPush2Ex(cfg Push2ExConfig, lims *Limiters, clock market.Clock) (*Push2Ex, error) {
	cfg = cfg.withDefaults()
	f, err := newFetcher(SourcePush2Ex, cfg.SourceConfig, lims, clock)
	if err != nil {
		return nil, err
	}
	return &Push2Ex{f: f, cfg: cfg}, nil
}

func (c *Push2Ex) Status() Status { return c.f.snapshot() }

// Pool is kind's pool as the source answers date day: every page
// (Pageindex from 0) until the rows reach tc. A reply without a pool
// (data:null, data.pool:null, rc 102) is an empty pool, Day 0 unless the
// reply named its qdate. Pages that disagree on qdate fail the call;
// paging that ends short of tc is KindPartial, with the rows that came.
func (c *Push2Ex) Pool(ctx context.Context, kind PoolKind, day market.Day) (p Pool, err error) {
	path, sort, ok := kind.endpoint()
	if !ok {
		return Pool{}, fmt.Errorf("upstream push2ex: unknown pool %q", kind)
	}
	defer c.f.observe(c.f.clock.Now(), &err)
	p = Pool{Kind: kind, Asked: day, Rows: []PoolRow{}}
	chk := &check{}
	seen := map[market.Code]bool{}
	for page := 0; page < c.cfg.MaxPages; page++ {
		params := url.Values{
			"ut":        {push2exUT},
			"dpt":       {"wz.ztzt"},
			"Pageindex": {strconv.Itoa(page)},
			"pagesize":  {strconv.Itoa(c.cfg.PageSize)},
			"sort":      {sort},
			"date":      {strings.ReplaceAll(day.String(), "-", "")},
		}
		var got decodedPool
		err = c.f.get(ctx, request{path: path, query: params, referer: "https://quote.eastmoney.com/ztb/detail"}, func(body []byte) error {
			var err error
			got, err = decodePool(body, kind, chk)
			return err
		})
		if err != nil {
			return Pool{}, err
		}
		if page > 0 && got.day != 0 && p.Day != 0 && got.day != p.Day {
			return Pool{}, &Error{Kind: KindSchema, Source: SourcePush2Ex, Path: path, Field: "data.qdate",
				Detail: fmt.Sprintf("page %d is of %v, page 0 of %v", page, got.day, p.Day)}
		}
		if p.Day == 0 {
			p.Day = got.day
		}
		p.Total = max(p.Total, got.total)
		for _, r := range got.rows {
			// A pool moving during the session can repeat a row on the
			// next page: a code is kept once.
			if !seen[r.Code] {
				seen[r.Code] = true
				p.Rows = append(p.Rows, r)
			}
		}
		if len(got.rows) == 0 || len(p.Rows) >= p.Total {
			break
		}
	}
	c.f.noteDrift(chk)
	if len(p.Rows) < p.Total {
		path, _, _ := kind.endpoint()
		return p, &Error{Kind: KindPartial, Source: SourcePush2Ex, Path: path,
			Detail: fmt.Sprintf("%d of tc %d rows arrived", len(p.Rows), p.Total)}
	}
	p.Total = len(p.Rows)
	return p, nil
}

type decodedPool struct {
	day   market.Day
	total int
	rows  []PoolRow
}

// decodePool reads one page of a pool reply, plain JSON or JSONP:
// {"rc":0,…,"data":{"tc":54,"qdate":20240923,"pool":[…]}}. Rows are read
// by key, never by position (akshare's positional renaming breaks on an
// added key). Required in every row: c, n and p; in the limit-up pool
// also lbc and fbt, what the comparison is about. The other keys, most
// of them known for the other pools only from client code
// (eastmoney-part2.md a.3), are optional: absent is drift.
func decodePool(body []byte, kind PoolKind, chk *check) (decodedPool, error) {
	var env envelope
	if err := decodeJSON(body, &env); err != nil {
		return decodedPool{}, err
	}
	if len(env.RC) > 0 {
		rc, st := numOf(env.RC)
		switch {
		case st != ok || rc != math.Trunc(rc) || math.Abs(rc) > 1e9:
			return decodedPool{}, schemaErr("rc", "not an integer: %s", clip(string(env.RC), 20))
		case rc == rcNoPool && isNull(env.Data):
			return decodedPool{}, nil
		case rc != 0:
			return decodedPool{}, &Error{Kind: KindRC, RC: int(rc)}
		}
	}
	if isNull(env.Data) {
		return decodedPool{}, nil
	}
	var d struct {
		TC    json.RawMessage `json:"tc"`
		QDate json.RawMessage `json:"qdate"`
		Pool  json.RawMessage `json:"pool"`
	}
	if err := json.Unmarshal(env.Data, &d); err != nil {
		return decodedPool{}, schemaErr("data", "not an object")
	}
	var out decodedPool
	switch q, st := numOf(d.QDate); st {
	case ok:
		day, good := qdateDay(q)
		if !good {
			return decodedPool{}, schemaErr("data.qdate", "not a date YYYYMMDD: %s", clip(string(d.QDate), 20))
		}
		out.day = day
	case bad:
		return decodedPool{}, schemaErr("data.qdate", "not a date YYYYMMDD: %s", clip(string(d.QDate), 20))
	default:
		chk.note("data.qdate", "absent")
	}
	objs, err := objects(d.Pool, "data.pool")
	if err != nil {
		return decodedPool{}, err
	}
	switch tc, st := numOf(d.TC); {
	case st == ok && tc >= 0 && tc == math.Trunc(tc) && tc <= 1e5:
		out.total = int(tc)
	case st == absent || st == na:
		if len(objs) > 0 {
			chk.note("data.tc", "absent")
		}
	default:
		return decodedPool{}, schemaErr("data.tc", "not a row count: %s", clip(string(d.TC), 20))
	}
	out.rows = make([]PoolRow, 0, len(objs))
	for i, m := range objs {
		r := row{m: m, where: "row " + strconv.Itoa(i), c: chk}
		pr := poolRow(r, kind)
		if chk.err != nil {
			return decodedPool{}, chk.err
		}
		out.rows = append(out.rows, pr)
	}
	return out, nil
}

// qdateDay reads qdate, an int YYYYMMDD, rejecting impossible dates.
func qdateDay(v float64) (market.Day, bool) {
	if v != math.Trunc(v) || v < 19900101 || v > 29991231 {
		return 0, false
	}
	d, err := market.ParseDay(strconv.Itoa(int(v)))
	return d, err == nil
}

func poolRow(r row, kind PoolKind) PoolRow {
	sym := r.reqStr("c")
	out := PoolRow{
		Name:        r.reqStr("n"),
		Price:       r.reqNum("p") / 1000,
		LimitPrice:  math.NaN(),
		ChangePct:   r.optNum("zdp"),
		Amount:      r.optNum("amount"),
		FloatCap:    r.optNum("ltsz"),
		TotalCap:    r.optNum("tshare"),
		Turnover:    r.optNum("hs"),
		Boards:      -1,
		FirstSeal:   -1,
		LastSeal:    -1,
		SealFund:    math.NaN(),
		OpenedTimes: -1,
		Industry:    r.optStr("hybk"),
		CountDays:   -1,
		CountUp:     -1,
	}
	out.Code = poolCode(r, sym)
	switch kind {
	case PoolUp:
		out.Boards = reqCount(r, "lbc")
		out.FirstSeal = clockOf(r, "fbt", true)
		out.LastSeal = clockOf(r, "lbt", false)
		out.SealFund = r.optNum("fund")
		out.OpenedTimes = r.optCount("zbc")
		out.CountDays, out.CountUp = countOf(r)
	case PoolBroken:
		out.LimitPrice = r.optNum("ztp") / 1000
		out.FirstSeal = clockOf(r, "fbt", false)
		out.OpenedTimes = r.optCount("zbc")
		out.CountDays, out.CountUp = countOf(r)
	case PoolDown:
		out.Boards = r.optCount("days")
		out.LastSeal = clockOf(r, "lbt", false)
		out.SealFund = r.optNum("fund")
		out.OpenedTimes = r.optCount("oc")
	case PoolYesterday:
		out.LimitPrice = r.optNum("ztp") / 1000
		out.Boards = r.optCount("ylbc")
		out.FirstSeal = clockOf(r, "yfbt", false)
		out.CountDays, out.CountUp = countOf(r)
	case PoolStrong:
		// 是否新高 and 入选理由 come under keys no recorded reply names
		// (eastmoney-part2.md a.3): not read.
		out.LimitPrice = r.optNum("ztp") / 1000
		out.CountDays, out.CountUp = countOf(r)
	}
	return out
}

// poolCode builds the code from c and m (0 SZ or BJ, 1 SH, as push2's
// secids); without m, from the code's own range.
func poolCode(r row, sym string) market.Code {
	if sym == "" {
		return market.Code{}
	}
	text := sym
	switch mkt, st := numOf(r.m["m"]); {
	case st == ok && (mkt == 0 || mkt == 1):
		text = fmt.Sprintf("%d.%s", int(mkt), sym)
	case st == absent:
		r.c.note("m", "absent")
	default:
		r.c.fail("m", "not a market id 0/1 in %s: %s", r.where, clip(string(r.m["m"]), 20))
		return market.Code{}
	}
	code, err := market.ParseCode(text)
	if err != nil || len(code.Symbol) != 6 {
		r.c.fail("c", "not a six-digit code in %s: %q", r.where, clip(sym, 20))
		return market.Code{}
	}
	return code
}

// reqCount is a required whole number >= 0.
func reqCount(r row, key string) int {
	v := r.reqNum(key)
	if r.c.err != nil {
		return -1
	}
	if math.IsNaN(v) || v < 0 || v != math.Trunc(v) || v > 1e6 {
		r.c.fail(key, "not a count in %s: %s", r.where, clip(string(r.m[key]), 20))
		return -1
	}
	return int(v)
}

// clockOf reads a time sent as an int HHMMSS without its leading zero
// (92500 is 09:25:00, 144229 is 14:42:29): seconds after midnight, -1
// when absent, null or 0. A value that is no time of day fails a
// required key and is drift on an optional one.
func clockOf(r row, key string, required bool) int {
	var v float64
	if required {
		v = r.reqNum(key)
	} else {
		v = r.optNum(key)
	}
	if math.IsNaN(v) || v == 0 {
		return -1
	}
	s, good := secondsOfHHMMSS(v)
	if !good {
		if required {
			r.c.fail(key, "not a time HHMMSS in %s: %s", r.where, clip(string(r.m[key]), 20))
		} else {
			r.c.note(key, "not a time HHMMSS")
		}
		return -1
	}
	return s
}

func secondsOfHHMMSS(v float64) (int, bool) {
	if v < 0 || v != math.Trunc(v) || v > 235959 {
		return 0, false
	}
	n := int(v)
	h, m, s := n/10000, n/100%100, n%100
	if m > 59 || s > 59 {
		return 0, false
	}
	return h*3600 + m*60 + s, true
}

// countOf reads zttj {"days":D,"ct":N}; -1, -1 when absent or malformed.
func countOf(r row) (days, ct int) {
	raw := r.m["zttj"]
	if isNull(raw) {
		if len(raw) == 0 {
			r.c.note("zttj", "absent")
		}
		return -1, -1
	}
	var z struct {
		Days json.RawMessage `json:"days"`
		CT   json.RawMessage `json:"ct"`
	}
	if json.Unmarshal(raw, &z) != nil {
		r.c.note("zttj", "not an object")
		return -1, -1
	}
	d, st1 := numOf(z.Days)
	n, st2 := numOf(z.CT)
	if st1 != ok || st2 != ok || d < 0 || n < 0 || d != math.Trunc(d) || n != math.Trunc(n) || d > 1e4 || n > 1e4 {
		r.c.note("zttj", "days or ct not a count")
		return -1, -1
	}
	return int(d), int(n)
}
