package upstream

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"

	"mdqs/internal/market"
)

// SourceHotRank names EastMoney's popularity list (人气榜) in errors and
// Status.
const SourceHotRank = "emappdata"

const (
	hotRankPath = "/stockrank/getAllCurrentList"
	ulistPath   = "/api/qt/ulist.np/get"
	// The list page the XHR comes from in a browser.
	hotRankReferer = "https://guba.eastmoney.com/rank/"
	// utULIST is the token akshare sends to ulist.np for the hot list's
	// names (stock_hot_rank_em).
	utULIST = "f057cbcbce2a86e2866ab8877db1d059"
	// HotRankMaxPageSize: emappdata answers an empty list for pageSize above
	// 100 (eastmoney.md 5.1).
	HotRankMaxPageSize = 100
)

// HotRankConfig configures the popularity-list client: emappdata for the
// ranks and push2's ulist.np for the names the list does not carry.
type HotRankConfig struct {
	SourceConfig              // emappdata.eastmoney.com
	Names        SourceConfig // push2.eastmoney.com (ulist.np)
	// AppID and GlobalID go in every request body, as the web page and
	// akshare send them.
	AppID    string
	GlobalID string
}

// DefaultHotRankConfig: EastMoney's politeness defaults (2 requests/s per
// host, shared through Limiters with the other push2 clients).
func DefaultHotRankConfig() HotRankConfig {
	c := HotRankConfig{SourceConfig: eastMoneyDefaults(), Names: DefaultConfig().Push2.SourceConfig, AppID: "appId01", GlobalID: "786e4c21-70dc-435a-93bb-38"}
	c.BaseURL = "https://emappdata.eastmoney.com"
	return c
}

func (c HotRankConfig) withDefaults() HotRankConfig {
	d := DefaultHotRankConfig()
	c.SourceConfig = c.SourceConfig.withDefaults(d.SourceConfig)
	c.Names = c.Names.withDefaults(d.Names)
	if c.AppID == "" {
		c.AppID = d.AppID
	}
	if c.GlobalID == "" {
		c.GlobalID = d.GlobalID
	}
	return c
}

// HotRankRow is one stock of the popularity list.
type HotRankRow struct {
	Code market.Code
	Name string // from ulist.np; "" when the quote list did not know the code
	Rank int    // 1 is the most popular
}

// HotRankPage is one page of the list as fetched.
type HotRankPage struct {
	Page int
	Size int
	Rows []HotRankRow // in the upstream's order (by rank)
	At   time.Time    // when the page was fetched
}

// HotRank reads EastMoney's popularity list: POST
// emappdata …/stockrank/getAllCurrentList with a JSON body, then the names
// from push2 …/api/qt/ulist.np/get (the list has codes and ranks only).
type HotRank struct {
	f     *fetcher
	names *fetcher
	cfg   HotRankConfig
}

// NewHotRank builds the client; zero config fields take
// DefaultHotRankConfig(), and a nil clock is the system clock.
func NewHotRank(cfg HotRankConfig, lims *Limiters, clock market.Clock) (*HotRank, error) {
	cfg = cfg.withDefaults()
	f, err := newFetcher(SourceHotRank, cfg.SourceConfig, lims, clock)
	if err != nil {
		return nil, err
	}
	names, err := newFetcher(SourceHotRank, cfg.Names, lims, clock)
	if err != nil {
		return nil, err
	}
	return &HotRank{f: f, names: names, cfg: cfg}, nil
}

// Status is the list's health; Requests counts the name lookups too, since
// they are part of every page.
func (c *HotRank) Status() Status {
	s := c.f.snapshot()
	n := c.names.snapshot()
	s.Requests += n.Requests
	s.absorbBreaker(n)
	return s
}

// hotRankBody is the request body, in the key order the web page sends.
type hotRankBody struct {
	AppID      string `json:"appId"`
	GlobalID   string `json:"globalId"`
	MarketType string `json:"marketType"`
	PageNo     int    `json:"pageNo"`
	PageSize   int    `json:"pageSize"`
}

// Page fetches page (from 1) of the current list at size rows per page
// (1..100) and joins each row's name.
//
// Required per row: sc, a market-prefixed code (SH600519; Beijing stocks
// come as SZ and are mapped to BJ by their code range), and rk, a positive
// integer. An empty page 1 is KindEmpty: the list always has rows. An empty
// later page is the end of the list (the upstream answers nothing past page
// 1 today) and is returned without error. If the name lookup fails the page
// fails with it: a row without its name is not one the API can serve.
func (c *HotRank) Page(ctx context.Context, page, size int) (p HotRankPage, err error) {
	if page < 1 || size < 1 || size > HotRankMaxPageSize {
		return p, market.Errorf(market.KindInvalid, "hot rank page %d size %d: want page >= 1 and size 1..%d", page, size, HotRankMaxPageSize)
	}
	defer c.f.observe(c.f.clock.Now(), &err)
	body, _ := json.Marshal(hotRankBody{AppID: c.cfg.AppID, GlobalID: c.cfg.GlobalID, PageNo: page, PageSize: size})
	chk := &check{}
	var rows []HotRankRow
	err = c.f.get(ctx, request{path: hotRankPath, referer: hotRankReferer, body: body}, func(b []byte) error {
		var err error
		rows, err = decodeHotRank(b, chk)
		if err == nil && page == 1 && len(rows) == 0 {
			return &Error{Kind: KindEmpty, Detail: "data is empty on page 1"}
		}
		return err
	})
	if err != nil {
		return HotRankPage{}, err
	}
	if len(rows) > 0 {
		names, err := c.lookupNames(ctx, rows, chk)
		if err != nil {
			return HotRankPage{}, err
		}
		for i := range rows {
			rows[i].Name = names[rows[i].Code]
		}
	}
	c.f.noteDrift(chk)
	return HotRankPage{Page: page, Size: size, Rows: rows, At: c.f.clock.Now()}, nil
}

// decodeHotRank reads the emappdata envelope
// {"globalId","message","status","code","data":[{"sc","rk","rc","hisRc"}]}.
// code and status are 0 on success; either may be missing (the exact
// envelope is not certain, eastmoney.md section 8), a non-zero one is an
// RC error carrying the message. Repeated codes keep their first row.
func decodeHotRank(body []byte, chk *check) ([]HotRankRow, error) {
	var env struct {
		Code    json.RawMessage `json:"code"`
		Status  json.RawMessage `json:"status"`
		Message json.RawMessage `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
	if err := decodeJSON(body, &env); err != nil {
		return nil, err
	}
	msg, _ := strOf(env.Message)
	for _, f := range []struct {
		name string
		raw  json.RawMessage
	}{{"code", env.Code}, {"status", env.Status}} {
		if len(f.raw) == 0 {
			continue
		}
		v, st := numOf(f.raw)
		if st != ok || v != math.Trunc(v) || math.Abs(v) > 1e9 {
			return nil, schemaErr(f.name, "not an integer: %s", clip(string(f.raw), 20))
		}
		if v != 0 {
			return nil, &Error{Kind: KindRC, RC: int(v), Detail: clip(msg, 120)}
		}
	}
	if env.Data == nil {
		return nil, schemaErr("data", "missing")
	}
	objs, err := objects(env.Data, "data")
	if err != nil {
		return nil, err
	}
	rows := make([]HotRankRow, 0, len(objs))
	seen := map[market.Code]bool{}
	for i, m := range objs {
		r := row{m: m, where: "row " + strconv.Itoa(i), c: chk}
		sc := r.reqStr("sc")
		rk := r.reqNum("rk")
		if chk.err != nil {
			return nil, chk.err
		}
		code, err := hotRankCode(sc)
		if err != nil {
			return nil, schemaErr("sc", "%v in %s", err, r.where)
		}
		if math.IsNaN(rk) || rk < 1 || rk != math.Trunc(rk) || rk > 1e6 {
			return nil, schemaErr("rk", "not a rank in %s: %s", r.where, clip(string(m["rk"]), 20))
		}
		if seen[code] {
			chk.note("sc", "repeated")
			continue
		}
		seen[code] = true
		rows = append(rows, HotRankRow{Code: code, Rank: int(rk)})
	}
	return rows, nil
}

// hotRankCode reads the list's "SH600519" form. EastMoney files Beijing
// stocks under SZ (SZ871245, SZ920xxx): their code range says BJ.
func hotRankCode(sc string) (market.Code, error) {
	u := strings.ToUpper(strings.TrimSpace(sc))
	if len(u) != 8 || (u[:2] != "SH" && u[:2] != "SZ" && u[:2] != "BJ") {
		return market.Code{}, fmt.Errorf("code %q: want SH, SZ or BJ and six digits", clip(sc, 20))
	}
	c, err := market.ParseCode(u)
	if err != nil {
		return market.Code{}, fmt.Errorf("code %q: want SH, SZ or BJ and six digits", clip(sc, 20))
	}
	if c.Exchange == market.SZ && market.InferExchange(c.Symbol) == market.BJ {
		c.Exchange = market.BJ
	}
	return c, nil
}

// lookupNames asks ulist.np for the names of a page's codes (at most 100,
// one request) and matches them by market and code, never by position.
// A code the quote list does not return keeps an empty name, noted as drift.
func (c *HotRank) lookupNames(ctx context.Context, rows []HotRankRow, chk *check) (map[market.Code]string, error) {
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i], _ = secid(r.Code) // hotRankCode made every code six digits of SH, SZ or BJ
	}
	q := url.Values{
		"fltt":   {"2"},
		"invt":   {"2"},
		"ut":     {utULIST},
		"fields": {"f12,f13,f14"},
		"secids": {strings.Join(ids, ",")},
	}
	byID := map[string]string{}
	err := c.names.get(ctx, request{path: ulistPath, query: q, referer: hotRankReferer}, func(body []byte) error {
		page, err := decodeClist(body)
		if err != nil {
			return err
		}
		if page.null || len(page.rows) == 0 {
			return &Error{Kind: KindEmpty, Detail: "ulist.np returned no names"}
		}
		for i, m := range page.rows {
			r := row{m: m, where: "names row " + strconv.Itoa(i), c: chk}
			sym := r.reqStr("f12")
			mkt, st := numOf(m["f13"])
			name := r.optStr("f14")
			if chk.err != nil {
				return chk.err
			}
			if st != ok {
				chk.note("f13", "not a market id")
				continue
			}
			byID[strconv.Itoa(int(mkt))+"."+sym] = name
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make(map[market.Code]string, len(rows))
	for _, r := range rows {
		id, _ := secid(r.Code)
		name, found := byID[id]
		if !found || name == "" {
			chk.note("f14", "missing for a listed code")
		}
		out[r.Code] = name
	}
	return out, nil
}
