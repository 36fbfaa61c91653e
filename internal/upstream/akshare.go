package upstream

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"strconv"

	"mdqs/internal/market"
)

// AKShare reads akshare functions through an AKTools server
// (GET /api/public/<function>?k=v), which answers a JSON array of records
// keyed by akshare's Chinese column names; NaN arrives as null.
type AKShare struct {
	f *fetcher
}

// NewAKShare builds the AKTools client; zero config fields take
// DefaultConfig().AKShare, and a nil clock is the system clock.
func NewAKShare(cfg SourceConfig, lims *Limiters, clock market.Clock) (*AKShare, error) {
	cfg = cfg.withDefaults(DefaultConfig().AKShare)
	f, err := newFetcher(SourceAKShare, cfg, lims, clock)
	if err != nil {
		return nil, err
	}
	return &AKShare{f: f}, nil
}

func (c *AKShare) Status() Status { return c.f.snapshot() }

// akshare column names. The fund-flow ranking prefixes its columns with the
// indicator (今日); the board lists have the 12 columns of
// stock_board_industry_name_em.
const (
	colFlowName     = "名称"
	colFlowPct      = "今日涨跌幅"
	colFlowMain     = "今日主力净流入-净额"
	colFlowMainPct  = "今日主力净流入-净占比"
	colBoardName    = "板块名称"
	colBoardCode    = "板块代码"
	colBoardPrice   = "最新价"
	colBoardTurn    = "换手率"
	colBoardUp      = "上涨家数"
	colBoardDown    = "下跌家数"
	colBoardLeader  = "领涨股票"
	colBoardLeadPct = "领涨股票-涨跌幅"
)

// Sectors is the industry or concept fund-flow snapshot, built from two
// akshare functions joined by board name:
//
//   - stock_sector_fund_flow_rank(indicator=今日, sector_type=行业资金流 or
//     概念资金流): name, pct, main net, main ratio. It has no board code.
//     Required: 名称, 今日涨跌幅, 今日主力净流入-净额; optional: -净占比.
//   - stock_board_industry_name_em / stock_board_concept_name_em: code,
//     index level, turnover, up/down counts, leader by pct. Required:
//     板块名称, 板块代码; the rest optional.
//
// Every fund-flow row is kept, in the ranking's order. A row whose name is
// not in the board list keeps Code "" and NaN/-1 board fields; board-list
// rows without fund flow are dropped (the snapshot is about fund flow).
// Either case is reported as drift in Status; no match at all is a
// KindSchema error (the join key changed). Amount is NaN: akshare gives
// none, and deriving it from main net / ratio amplifies the ratio's
// rounding beyond use. Flat is -1 and LeaderCode "" (not in akshare's
// output). At is zero: akshare carries no timestamp, and which session its
// rows describe at a given hour is the collector's to say, by the calendar.
func (c *AKShare) Sectors(ctx context.Context, kind market.SectorKind) (snap market.SectorSnapshot, err error) {
	flowType, boardFn := "行业资金流", "stock_board_industry_name_em"
	switch kind {
	case market.Industry:
	case market.Concept:
		flowType, boardFn = "概念资金流", "stock_board_concept_name_em"
	default:
		return snap, market.Errorf(market.KindInvalid, "sector kind %q", kind)
	}
	defer c.f.observe(c.f.clock.Now(), &err)

	flowFn := "stock_sector_fund_flow_rank"
	flows, err := c.records(ctx, flowFn, url.Values{"indicator": {"今日"}, "sector_type": {flowType}})
	if err != nil {
		return snap, err
	}
	boards, err := c.records(ctx, boardFn, nil)
	if err != nil {
		return snap, err
	}

	chk := &check{}
	type board struct {
		code, leader      string
		price, turn, lpct float64
		up, down          int
	}
	byName := make(map[string]board, len(boards))
	for i, m := range boards {
		r := row{m: m, where: boardFn + " row " + strconv.Itoa(i), c: chk}
		name := r.reqStr(colBoardName)
		b := board{
			code:   r.reqStr(colBoardCode),
			price:  r.optNum(colBoardPrice),
			turn:   r.optNum(colBoardTurn),
			up:     r.optCount(colBoardUp),
			down:   r.optCount(colBoardDown),
			leader: r.optStr(colBoardLeader),
			lpct:   r.optNum(colBoardLeadPct),
		}
		if chk.err != nil {
			return snap, c.schema(chk.err, boardFn)
		}
		if _, dup := byName[name]; !dup {
			byName[name] = b
		}
	}

	snap = market.SectorSnapshot{Kind: kind, Source: SourceAKShare}
	matched := map[string]bool{}
	for i, m := range flows {
		r := row{m: m, where: flowFn + " row " + strconv.Itoa(i), c: chk}
		s := market.Sector{
			Name:         r.reqStr(colFlowName),
			Pct:          r.reqNum(colFlowPct),
			MainNet:      r.reqNum(colFlowMain),
			MainNetRatio: r.optNum(colFlowMainPct),
			Amount:       math.NaN(),
			Price:        math.NaN(),
			Turnover:     math.NaN(),
			LeaderPct:    math.NaN(),
			Up:           -1,
			Down:         -1,
			Flat:         -1,
		}
		if chk.err != nil {
			return market.SectorSnapshot{}, c.schema(chk.err, flowFn)
		}
		if b, ok := byName[s.Name]; ok {
			matched[s.Name] = true
			s.Code, s.Price, s.Turnover = b.code, b.price, b.turn
			s.Up, s.Down = b.up, b.down
			s.LeaderName, s.LeaderPct = b.leader, b.lpct
		} else {
			chk.note("join:"+boardFn, "no board row for the name")
		}
		snap.Sectors = append(snap.Sectors, s)
	}
	if len(matched) == 0 {
		return market.SectorSnapshot{}, c.schema(schemaErr(colFlowName,
			"no %s name matches a %s %s (%d and %d rows)", flowFn, boardFn, colBoardName, len(flows), len(boards)), flowFn)
	}
	for name := range byName {
		if !matched[name] {
			chk.note("join:"+flowFn, "no fund-flow row for the board")
		}
	}
	c.f.noteDrift(chk)
	return snap, nil
}

func (c *AKShare) schema(e *Error, fn string) error {
	e.Source, e.Path = SourceAKShare, c.f.fullPath("/api/public/"+fn)
	return e
}

// records calls one akshare function. AKTools answers 404 {"error": …} for
// an unknown function or bad arguments (KindHTTPStatus, not retried), 500
// "Internal Server Error" when akshare raised (retried: usually EastMoney
// failing behind it) and [] for an empty DataFrame (KindEmpty).
func (c *AKShare) records(ctx context.Context, fn string, args url.Values) ([]map[string]json.RawMessage, error) {
	if !validFunction(fn) {
		return nil, fmt.Errorf("upstream akshare: bad function name %q", fn)
	}
	var out []map[string]json.RawMessage
	err := c.f.get(ctx, request{path: "/api/public/" + fn, query: args}, func(body []byte) error {
		var raw json.RawMessage
		if err := decodeJSON(body, &raw); err != nil {
			return err
		}
		if len(raw) == 0 || raw[0] != '[' {
			return schemaErr("(top level)", "want an array of records, got %s", clip(string(raw), 40))
		}
		rows, err := objects(raw, fn)
		if err != nil {
			return err
		}
		if len(rows) == 0 {
			return &Error{Kind: KindEmpty, Detail: fn + " returned no rows"}
		}
		out = rows
		return nil
	})
	return out, c.unreachable(err)
}

// validFunction keeps the path to one segment of an akshare identifier.
func validFunction(fn string) bool {
	if fn == "" {
		return false
	}
	for i := 0; i < len(fn); i++ {
		c := fn[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
