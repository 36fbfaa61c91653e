package mcpserver

import (
	"cmp"
	"context"
	"net/url"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mdqs/internal/client"
)

// Descriptions shared by several parameters.
const (
	codeDoc  = "Security code: 600519, 600519.SH, sh600519 or 1.600519 (see mdqs://codes)"
	dayDoc   = "Trading day YYYY-MM-DD (or YYYYMMDD); default the latest"
	limitDoc = "Rows to return, 1-200"
)

// Units of the fields the tools' rows share.
var (
	sectorUnits = map[string]string{"pct": "%", "turnover": "%", "main_net": "元", "amount": "元", "main_net_ratio": "%", "leader_pct": "%"}
	quoteUnits  = map[string]string{"last": "元", "open": "元", "high": "元", "low": "元", "close": "元", "prev_close": "元", "change": "元",
		"pct": "%", "volume": "股", "amount": "元", "turnover_rate": "%"}
)

type sectorRankingIn struct {
	Family    string `json:"family,omitempty" jsonschema:"industry (行业), concept (概念) or all (both, merged by name)" enum:"all,industry,concept" default:"all"`
	Direction string `json:"direction,omitempty" jsonschema:"inflow: the largest main-force net inflow (主力净流入) first; outflow: the largest outflow first" enum:"inflow,outflow" default:"inflow"`
	Day       string `json:"day,omitempty" jsonschema:"Trading day YYYY-MM-DD; default the current one; a past day gives its final ranking"`
	Limit     int    `json:"limit,omitempty" jsonschema:"Rows to return, 1-200" default:"20" min:"1" max:"200"`
}

type sectorMovementsIn struct {
	Type  string `json:"type,omitempty" jsonschema:"Sector family: industry (行业) or concept (概念)" enum:"industry,concept" default:"industry"`
	Sort  string `json:"sort,omitempty" jsonschema:"Order by: pct (change), main_net (net inflow), amount, turnover" enum:"pct,main_net,amount,turnover" default:"pct"`
	Order string `json:"order,omitempty" enum:"desc,asc" default:"desc" jsonschema:"desc: largest first"`
	Name  string `json:"name,omitempty" jsonschema:"Only sectors whose name contains this, e.g. 半导体"`
	Day   string `json:"day,omitempty" jsonschema:"Trading day YYYY-MM-DD; default the current one"`
	Limit int    `json:"limit,omitempty" jsonschema:"Rows to return, 1-200" default:"20" min:"1" max:"200"`
}

type quotesIn struct {
	Codes []string `json:"codes" jsonschema:"1-100 security codes in any form: 600519, 600519.SH, sh600519" examples:"600519.SH,000001.SZ|sh600036" min:"1" max:"100"`
}

type etfsIn struct {
	Category string `json:"category,omitempty" jsonschema:"Only this kind of ETF" enum:"a_share,money,cross_border,gold,commodity,other"`
	Sort     string `json:"sort,omitempty" jsonschema:"Order by: premium (溢价率 vs IOPV), amount, pct, market_value (scale), turnover, ..." enum:"code,premium,discount,pct,amount,volume,turnover,market_value,shares,price,iopv" default:"amount"`
	Order    string `json:"order,omitempty" enum:"desc,asc" default:"desc" jsonschema:"desc: largest first"`
	Limit    int    `json:"limit,omitempty" jsonschema:"Rows to return, 1-200" default:"20" min:"1" max:"200"`
}

func (t *tools) addMarket(s *mcp.Server) {
	addTool(s, t, "sector_ranking",
		"Sector ranking of a trading day by main-force net inflow (主力净流入, 元), with change %, turnover %, rising members and a buy/sell signal. For 'which sectors are money flowing into/out of'.",
		func(ctx context.Context, t *tools, in sectorRankingIn) (*client.Response, shape, error) {
			list := map[string]string{"all": "sectors", "industry": "industry", "concept": "concept"}[cmp.Or(in.Family, "all")]
			if in.Direction == "outflow" {
				list += "_out"
			}
			limit := cmp.Or(in.Limit, 20)
			resp, err := get(ctx, t.api, "/v1/api/boards/top50", url.Values{"day": {in.Day}, "top": {strconv.Itoa(limit)}})
			return resp, shape{rows: list, limit: limit, asOf: []string{"ts"}, units: sectorUnits,
				columns: []string{"rank", "sector_name", "pct", "main_net", "turnover", "count", "signal", "flow_tag"},
				narrow:  "raise limit (at most 200)"}, err
		})
	addTool(s, t, "sector_movements",
		"Sectors of one family with change %, amount, turnover, net inflow, rising/falling members, the leading stock and when the sector first moved (异动) that day; meta.analysis compares the market's turnover with the day before at the same minute.",
		func(ctx context.Context, t *tools, in sectorMovementsIn) (*client.Response, shape, error) {
			limit := cmp.Or(in.Limit, 20)
			resp, err := get(ctx, t.api, "/v1/api/market/movements", url.Values{"type": {in.Type}, "sort": {in.Sort}, "order": {in.Order},
				"name": {in.Name}, "day": {in.Day}, "top": {strconv.Itoa(limit)}})
			return resp, shape{limit: limit, asOf: []string{"meta.as_of"}, total: "meta.total", units: sectorUnits,
				columns: []string{"board_code", "board_name", "pct", "main_net", "main_net_ratio", "amount", "turnover", "up", "down", "leader_name", "leader_pct", "event_ts"},
				narrow:  "raise limit, or give name"}, err
		})
	addTool(s, t, "quotes",
		"Current quotes of 1-100 stocks, funds or indices: last price, change, open/high/low, volume, amount, turnover, limit prices, trading status.",
		func(ctx context.Context, t *tools, in quotesIn) (*client.Response, shape, error) {
			resp, err := get(ctx, t.api, "/v1/api/quotes", url.Values{"codes": {strings.Join(in.Codes, ",")}})
			return resp, shape{rows: "quotes", units: quoteUnits,
				columns: []string{"code", "name", "last", "pct", "change", "open", "high", "low", "prev_close", "volume", "amount", "turnover_rate", "status"},
				narrow:  "ask for fewer codes"}, err
		})
	addTool(s, t, "etfs",
		"The ETF list: last price, IOPV (net value estimate), premium % against it, amount, turnover, scale (market_value, 元).",
		func(ctx context.Context, t *tools, in etfsIn) (*client.Response, shape, error) {
			limit := cmp.Or(in.Limit, 20)
			resp, err := get(ctx, t.api, "/v1/api/etfs", url.Values{"category": {in.Category}, "sort": {cmp.Or(in.Sort, "amount")},
				"order": {cmp.Or(in.Order, "desc")}, "limit": {strconv.Itoa(limit)}})
			return resp, shape{rows: "etfs", limit: limit, asOf: []string{"as_of"}, units: map[string]string{"last": "元", "iopv": "元", "premium_pct": "%",
				"discount_pct": "%", "pct": "%", "amount": "元", "volume": "股", "turnover_rate": "%", "market_value": "元", "shares": "股"},
				columns: []string{"code", "name", "category", "last", "iopv", "premium_pct", "pct", "amount", "turnover_rate", "market_value", "tracks"},
				narrow:  "give category, or raise limit"}, err
		})
}
