package mcpserver

import (
	"cmp"
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mdqs/internal/client"
	"mdqs/internal/market"
)

var barUnits = map[string]string{"open": "元", "high": "元", "low": "元", "close": "元", "volume": "股", "amount": "元", "pct": "%",
	"turnover_rate": "%", "large_order_net": "元"}

type klineIn struct {
	Code       string `json:"code" jsonschema:"Security code: 600519, 600519.SH, sh600519 or 1.600519 (see mdqs://codes)" examples:"600519.SH|000001.SZ|sh000300"`
	Freq       string `json:"freq,omitempty" jsonschema:"Bar size: D daily, 5m or 1m minutes" enum:"D,5m,1m" default:"D"`
	Adjust     string `json:"adjust,omitempty" jsonschema:"Prices raw (none), 前复权 (qfq) or 后复权 (hfq), as the terminal shows them" enum:"none,qfq,hfq" default:"none"`
	Start      string `json:"start,omitempty" jsonschema:"First day YYYY-MM-DD, or 'YYYY-MM-DD HH:MM' for minutes; default: enough days before end for limit bars"`
	End        string `json:"end,omitempty" jsonschema:"Last day, same forms; default today"`
	Indicators string `json:"indicators,omitempty" jsonschema:"Comma-separated: maN, emaN (close), vmaN (volume), N 1-250, and macd" examples:"ma5,ma20|macd|ma20,vma5,macd"`
	Limit      int    `json:"limit,omitempty" jsonschema:"Rows to return, the latest, 1-200" default:"60" min:"1" max:"200"`
}

type searchStocksIn struct {
	Query  string `json:"query" jsonschema:"Part of a code or a name (Chinese): 茅台, 600519, 银行" examples:"茅台|600519|银行"`
	Market string `json:"market,omitempty" jsonschema:"Only this exchange: SH Shanghai, SZ Shenzhen, BJ Beijing" enum:"SH,SZ,BJ"`
	Type   string `json:"type,omitempty" jsonschema:"Only this kind of security" enum:"stock,index,fund,bond,b_share,repo,block,preferred,abs,other"`
	Limit  int    `json:"limit,omitempty" jsonschema:"Rows to return, 1-100" default:"20" min:"1" max:"100"`
}

type blockMembersIn struct {
	Block   string `json:"block,omitempty" jsonschema:"A block's name or code: its members. Without it: the blocks (name, kind, member count) matching kind and keyword" examples:"沪深300|酿酒行业|半导体"`
	Kind    string `json:"kind,omitempty" jsonschema:"The terminal's block kind" enum:"industry,concept,style,index,research,user"`
	Keyword string `json:"keyword,omitempty" jsonschema:"Without block: only blocks whose name contains this"`
}

type corporateActionsIn struct {
	Code  string `json:"code" jsonschema:"Security code: 600519, 600519.SH, sh600519 (see mdqs://codes)" examples:"600519.SH|000651.SZ"`
	Start string `json:"start,omitempty" jsonschema:"First day YYYY-MM-DD; default the first event"`
	End   string `json:"end,omitempty" jsonschema:"Last day YYYY-MM-DD; default the last (announced ones included)"`
}

func (t *tools) addStocks(s *mcp.Server) {
	addTool(s, t, "kline",
		"K-line (OHLCV bars) of one code: daily or minute bars, raw or 前复权/后复权, with today's forming bars joined and indicators (MA, EMA, volume MA, MACD). The latest rows when there are more than limit.",
		func(ctx context.Context, t *tools, in klineIn) (*client.Response, shape, error) {
			freq := cmp.Or(in.Freq, "D")
			limit := cmp.Or(in.Limit, 60)
			end := cmp.Or(in.End, today(t.clock.Now()).String())
			start := in.Start
			if start == "" {
				// Enough sessions for limit bars, in calendar days with
				// weekends and a holiday week to spare: the API reads no
				// more bars than the answer keeps.
				perSession := map[string]int{"D": 1, "5m": 48, "1m": 240}[freq]
				days := ((limit+perSession-1)/perSession)*7/5 + 10
				d, err := market.ParseDay(strings.Fields(end)[0])
				if err != nil {
					return nil, shape{}, fmt.Errorf("end %q: %v; give YYYY-MM-DD", end, err)
				}
				start = d.AddDays(-days).String()
			}
			q := url.Values{"code": {in.Code}, "freq": {freq}, "start": {start}, "end": {end}, "indicators": {in.Indicators}}
			path := "/v1/api/kline"
			if a := cmp.Or(in.Adjust, "none"); a != "none" {
				path = "/v1/api/kline/adjusted"
				q.Set("mode", a)
			}
			resp, err := get(ctx, t.api, path, q)
			when := "trade_date"
			if freq != "D" {
				when = "time"
			}
			cols := []string{when, "open", "high", "low", "close", "pct", "volume", "amount", "turnover_rate"}
			units := barUnits
			if names := indicatorColumns(in.Indicators); len(names) > 0 {
				cols = append(cols, names...)
				units = maps(barUnits, names, "元")
			}
			return resp, shape{rows: "rows", limit: limit, tail: true, asOf: []string{"realtime_as_of", "final_through"},
				units: units, columns: cols, narrow: "move start and end (the answer holds the range's last rows), or raise limit (at most 200)"}, err
		})
	addTool(s, t, "search_stocks",
		"Find securities by part of a code or name (Chinese): code, name, exchange, kind, industry. Use it to turn a company's name into the code other tools take.",
		func(ctx context.Context, t *tools, in searchStocksIn) (*client.Response, shape, error) {
			limit := cmp.Or(in.Limit, 20)
			resp, err := get(ctx, t.api, "/v1/api/meta/stocks", url.Values{"keyword": {in.Query}, "market": {in.Market}, "type": {in.Type},
				"page_size": {strconv.Itoa(limit)}})
			return resp, shape{rows: "items", limit: limit, columns: []string{"code", "name", "market", "type", "industry", "listed"},
				narrow: "give a longer query, market or type"}, err
		})
	addTool(s, t, "block_members",
		"Members of a block of the trading terminal (an industry, concept, style or index block such as 沪深300), or, without block, the blocks themselves with their member counts.",
		func(ctx context.Context, t *tools, in blockMembersIn) (*client.Response, shape, error) {
			if in.Block == "" {
				resp, err := get(ctx, t.api, "/v1/api/blocks", url.Values{"kind": {in.Kind}, "keyword": {in.Keyword}})
				return resp, shape{rows: "items", source: "tdx", columns: []string{"name", "kind", "code", "member_count"},
					narrow: "give kind or keyword"}, err
			}
			resp, err := get(ctx, t.api, "/v1/api/block/members", url.Values{"block": {in.Block}, "kind": {in.Kind}})
			return resp, shape{rows: "members", source: "tdx", columns: []string{"code", "name"}, narrow: "use search_stocks or run_screen with block"}, err
		})
	addTool(s, t, "corporate_actions",
		"A code's corporate actions: dividends (cash per 10 shares, 元), bonus and transfer shares, rights issues, share-capital changes, with each ex-date's price map (ex_factor, ex_offset) that 前复权 applies.",
		func(ctx context.Context, t *tools, in corporateActionsIn) (*client.Response, shape, error) {
			resp, err := get(ctx, t.api, "/v1/api/corporate_actions", url.Values{"code": {in.Code}, "start": {in.Start}, "end": {in.End}})
			return resp, shape{rows: "items", tail: true, units: map[string]string{"values.cash_per_10": "元/10股", "values.bonus_per_10": "股/10股",
				"values.rights_per_10": "股/10股", "values.rights_price": "元"},
				columns: []string{"date", "category", "name", "values", "ex_factor", "ex_offset"}, narrow: "give start and end"}, err
		})
}

// indicatorColumns are the fields the indicators add to each bar.
func indicatorColumns(list string) []string {
	var out []string
	for _, n := range strings.Split(list, ",") {
		switch n = strings.ToLower(strings.TrimSpace(n)); {
		case n == "":
		case n == "macd":
			out = append(out, "macd_dif", "macd_dea", "macd_hist")
		default:
			out = append(out, n)
		}
	}
	return out
}

// maps is base with names added in unit (an average or MACD of prices
// is a price); vmaN are volumes (股).
func maps(base map[string]string, names []string, unit string) map[string]string {
	out := make(map[string]string, len(base)+len(names))
	for k, v := range base {
		out[k] = v
	}
	for _, n := range names {
		if out[n] = unit; strings.HasPrefix(n, "vma") {
			out[n] = "股"
		}
	}
	return out
}
