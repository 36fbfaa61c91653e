package upstream

import (
	"context"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"time"

	"mdqs/internal/market"
)

const (
	clistPath = "/api/qt/clist/get"
	// utQuote is the token the quote.eastmoney.com grid sends; the server
	// does not appear to check it, but a browser always has one.
	utQuote = "bd1d9ddb04089700cf9c27f6f7426281"

	// sectorFields asks the board-list group (f6 amount, f8 turnover,
	// f104-f106 counts, f128/f140/f136 leader) and the fund-flow group (f62,
	// f184) in one request: both are plain clist columns of the same board
	// rows, and fields is only a list. f141 comes back anyway with f128.
	sectorFields = "f2,f3,f6,f8,f12,f13,f14,f62,f104,f105,f106,f124,f128,f136,f140,f141,f184"
	quoteFields  = "f2,f3,f4,f5,f6,f7,f8,f9,f10,f12,f13,f14,f15,f16,f17,f18,f20,f21,f22,f23,f62,f124,f184"
)

// Push2 reads EastMoney push2 lists (api/qt/clist/get): sector snapshots
// with fund flow, and the all-A-share quote snapshot.
type Push2 struct {
	f   *fetcher
	cfg Push2Config
}

// NewPush2 builds the push2 client; zero config fields take
// DefaultConfig().Push2, and a nil clock is the system clock.
func NewPush2(cfg Push2Config, lims *Limiters, clock market.Clock) (*Push2, error) {
	cfg = cfg.withDefaults()
	f, err := newFetcher(SourcePush2, cfg.SourceConfig, lims, clock)
	if err != nil {
		return nil, err
	}
	return &Push2{f: f, cfg: cfg}, nil
}

func (c *Push2) Status() Status { return c.f.snapshot() }

// SuspectBan tells the client that its last answer looks like a ban, which
// only the caller can see (an empty list where rows always come): that
// host cools down twice as long as after a failure, and the next request
// goes to the next host (see docs/operations.md, failover).
func (c *Push2) SuspectBan() { c.f.suspectBan() }

// Sectors is the snapshot of all industry or concept boards.
//
// Required per row: f12 code and f14 name (non-empty), f3 pct and f62 main
// net (present; "-" gives NaN). Everything else is optional: "-" or absent
// gives NaN / -1 / "", and absence is reported as drift in Status.
// At is the newest f124 of the rows, or the clock when none has one.
//
// On a short walk (fewer rows than data.total) the rows that arrived are
// returned together with a KindPartial error.
func (c *Push2) Sectors(ctx context.Context, kind market.SectorKind) (snap market.SectorSnapshot, err error) {
	fs, referer := c.cfg.IndustryFS, "https://data.eastmoney.com/bkzj/hy.html"
	switch kind {
	case market.Industry:
	case market.Concept:
		fs, referer = c.cfg.ConceptFS, "https://data.eastmoney.com/bkzj/gn.html"
	default:
		return snap, market.Errorf(market.KindInvalid, "sector kind %q", kind)
	}
	defer c.f.observe(c.f.clock.Now(), &err)
	chk := &check{}
	snap = market.SectorSnapshot{Kind: kind, Source: SourcePush2}
	var newest int64
	n, err := c.walk(ctx, fs, sectorFields, referer, func(r row) {
		snap.Sectors = append(snap.Sectors, market.Sector{
			Code:         r.reqStr("f12"),
			Name:         r.reqStr("f14"),
			Price:        r.optNum("f2"),
			Pct:          r.reqNum("f3"),
			Amount:       r.optNum("f6"),
			Turnover:     r.optNum("f8"),
			MainNet:      r.reqNum("f62"),
			MainNetRatio: r.optNum("f184"),
			Up:           r.optCount("f104"),
			Down:         r.optCount("f105"),
			Flat:         r.optCount("f106"),
			LeaderName:   r.optStr("f128"),
			LeaderCode:   r.optStr("f140"),
			LeaderPct:    r.optNum("f136"),
		})
		if t, ok := unixSeconds(r.optNum("f124")); ok && t.Unix() > newest {
			newest = t.Unix()
		}
	}, chk)
	if n == 0 {
		return market.SectorSnapshot{}, err
	}
	c.f.noteDrift(chk)
	snap.At = c.f.clock.Now()
	if newest > 0 {
		snap.At = time.Unix(newest, 0).In(market.Shanghai())
	}
	return snap, err
}

// Quotes is the snapshot of every A share (SH, SZ and BJ).
//
// Required per row: f12 code (six digits), f13 market (0 or 1), f14 name,
// and present f2 price, f3 pct, f5 volume, f6 amount ("-", as for a
// suspended stock, gives NaN, and -1 for the volume). Volume is converted
// from lots to shares. At is the row's f124, or the clock.
func (c *Push2) Quotes(ctx context.Context) (quotes []market.Quote, err error) {
	defer c.f.observe(c.f.clock.Now(), &err)
	now := c.f.clock.Now()
	chk := &check{}
	n, err := c.walk(ctx, c.cfg.StockFS, quoteFields, "https://quote.eastmoney.com/center/gridlist.html", func(r row) {
		q := market.Quote{
			Code:         quoteCode(r),
			Name:         r.reqStr("f14"),
			Price:        r.reqNum("f2"),
			Pct:          r.reqNum("f3"),
			Change:       r.optNum("f4"),
			Volume:       lotsToShares(r.reqNum("f5")),
			Amount:       r.reqNum("f6"),
			Amplitude:    r.optNum("f7"),
			Turnover:     r.optNum("f8"),
			PE:           r.optNum("f9"),
			VolumeRatio:  r.optNum("f10"),
			High:         r.optNum("f15"),
			Low:          r.optNum("f16"),
			Open:         r.optNum("f17"),
			PrevClose:    r.optNum("f18"),
			MarketCap:    r.optNum("f20"),
			FloatCap:     r.optNum("f21"),
			Speed:        r.optNum("f22"),
			PB:           r.optNum("f23"),
			MainNet:      r.optNum("f62"),
			MainNetRatio: r.optNum("f184"),
			At:           now,
		}
		if t, ok := unixSeconds(r.optNum("f124")); ok {
			q.At = t
		}
		quotes = append(quotes, q)
	}, chk)
	if n == 0 {
		return nil, err
	}
	c.f.noteDrift(chk)
	return quotes, err
}

// quoteCode builds the code from f13 (1 SH, 0 SZ or BJ) and f12, through
// the secid form ParseCode knows.
func quoteCode(r row) market.Code {
	sym := r.reqStr("f12")
	mkt, st := numOf(r.m["f13"])
	switch {
	case st == absent:
		r.c.fail("f13", "missing in %s", r.where)
		return market.Code{}
	case st != ok || (mkt != 0 && mkt != 1):
		r.c.fail("f13", "not a market id 0/1 in %s: %s", r.where, clip(string(r.m["f13"]), 20))
		return market.Code{}
	}
	if sym == "" {
		return market.Code{}
	}
	code, err := market.ParseCode(fmt.Sprintf("%d.%s", int(mkt), sym))
	if err != nil {
		r.c.fail("f12", "not a six-digit code in %s: %q", r.where, clip(sym, 20))
	}
	return code
}

// unixSeconds reads f124. Values outside 2001..2286 are not seconds (a
// milliseconds value, say) and are ignored rather than trusted.
func unixSeconds(v float64) (time.Time, bool) {
	if math.IsNaN(v) || v < 1e9 || v >= 1e10 {
		return time.Time{}, false
	}
	return time.Unix(int64(v), 0).In(market.Shanghai()), true
}

// lotsToShares converts EastMoney's 手 (100 shares); -1 when unknown.
func lotsToShares(lots float64) int64 {
	if math.IsNaN(lots) || lots < 0 || lots > 9e16 {
		return -1
	}
	return int64(math.Round(lots * 100))
}

// walk pages through a clist universe until data.total rows are in hand,
// handing each new row to take while the page is decoded, so that a schema
// error stops the walk at the page that shows it. Rows are sorted by code
// (fid=f12) so that pages stay stable while prices move: sorting by pct or
// inflow reshuffles rows between pages during the session, which loses
// some and repeats others. Repeats are dropped anyway.
//
// It returns how many rows were taken. With 0 the error says why; with
// fewer than total (the pages ran out: an empty page, data:null, or a page
// with no new rows) the error is KindPartial and the rows taken stand.
func (c *Push2) walk(ctx context.Context, fs, fields, referer string, take func(row), chk *check) (int, error) {
	seen := map[string]bool{}
	total := 0
	for pn := 1; pn <= c.cfg.MaxPages; pn++ {
		q := url.Values{
			"pn":     {strconv.Itoa(pn)},
			"pz":     {strconv.Itoa(c.cfg.PageSize)},
			"po":     {"1"},
			"np":     {"1"},
			"ut":     {utQuote},
			"fltt":   {"2"},
			"invt":   {"2"},
			"fid":    {"f12"},
			"fs":     {fs},
			"fields": {fields},
		}
		var page clistPage
		added := 0
		err := c.f.get(ctx, request{path: clistPath, query: q, referer: referer}, func(body []byte) error {
			var err error
			if page, err = decodeClist(body); err != nil {
				return err
			}
			if pn == 1 && (page.null || len(page.rows) == 0) {
				detail := "data.diff is empty"
				if page.null {
					detail = "data is null"
				}
				return &Error{Kind: KindEmpty, Detail: detail}
			}
			for _, m := range page.rows {
				key := string(m["f13"]) + "." + string(m["f12"])
				if seen[key] {
					continue
				}
				seen[key] = true
				take(row{m: m, where: "row " + strconv.Itoa(len(seen)-1), c: chk})
				if chk.err != nil {
					return chk.err
				}
				added++
			}
			return nil
		})
		if err != nil {
			return 0, err
		}
		if page.null || len(page.rows) == 0 {
			break
		}
		total = page.total
		if len(seen) >= total {
			return len(seen), nil
		}
		if added == 0 {
			break // the server ignores pn; asking further would loop
		}
	}
	return len(seen), &Error{Kind: KindPartial, Source: SourcePush2, Path: c.f.fullPath(clistPath),
		Detail: fmt.Sprintf("got %d of %d rows", len(seen), total)}
}
