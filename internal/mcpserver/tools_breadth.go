package mcpserver

import (
	"cmp"
	"context"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mdqs/internal/client"
)

var limitUnits = map[string]string{"close": "元", "pct": "%", "limit_price": "元", "seal_fund": "元", "amount": "元", "turnover_rate": "%"}

type limitLadderIn struct {
	Date string `json:"date,omitempty" jsonschema:"Trading day YYYY-MM-DD (or YYYYMMDD); default the latest"`
}

type limitPoolIn struct {
	Kind  string `json:"kind,omitempty" jsonschema:"up: 涨停 at the close; down: 跌停; broken: 炸板 (touched the limit-up, closed below); yesterday: the day before's limit-ups today; strong: 强势股" enum:"up,down,broken,yesterday,strong" default:"up"`
	Date  string `json:"date,omitempty" jsonschema:"Trading day YYYY-MM-DD (or YYYYMMDD); default the latest"`
	Limit int    `json:"limit,omitempty" jsonschema:"Rows to return, 1-200" default:"100" min:"1" max:"200"`
}

type dragonTigerIn struct {
	Date  string `json:"date,omitempty" jsonschema:"A day's list (YYYY-MM-DD): every listed stock with its reasons. Give date or code" examples:"2026-11-20"`
	Code  string `json:"code,omitempty" jsonschema:"One stock's listings over start..end, with the seats (营业部) that bought and sold" examples:"000560.SZ"`
	Start string `json:"start,omitempty" jsonschema:"With code: the first day (default 89 days before end)"`
	End   string `json:"end,omitempty" jsonschema:"With code: the last day (default today)"`
	Seats bool   `json:"seats,omitempty" jsonschema:"With date: add each stock's buying and selling seats" default:"false"`
}

type indexMembersIn struct {
	Index   string `json:"index" jsonschema:"The index: 000300.SH, sh000300, or its block name 沪深300" examples:"000300.SH|沪深300|000905.SH"`
	Date    string `json:"date,omitempty" jsonschema:"Members on this day YYYY-MM-DD; default the latest observed"`
	Changes bool   `json:"changes,omitempty" jsonschema:"Instead: the ins and outs between observations over start..end" default:"false"`
	Start   string `json:"start,omitempty" jsonschema:"With changes: the first day"`
	End     string `json:"end,omitempty" jsonschema:"With changes: the last day"`
}

type crossSectionIn struct {
	Date   string   `json:"date" jsonschema:"Trading day YYYY-MM-DD (or YYYYMMDD)" examples:"2026-11-20"`
	Minute string   `json:"minute,omitempty" jsonschema:"HH:MM (09:31-11:30, 13:01-15:00): the 1-minute bar ending then, from the minute archive, instead of the daily bar" examples:"10:30|14:55"`
	Codes  []string `json:"codes,omitempty" jsonschema:"Only these codes" max:"200"`
	Type   string   `json:"type,omitempty" jsonschema:"Only this kind of security" enum:"stock,index,fund,bond,b_share,repo,preferred,abs,other" default:"stock"`
	Sort   string   `json:"sort,omitempty" jsonschema:"Order by; code keeps the API's order" enum:"code,pct,amount,volume,turnover_rate,close" default:"pct"`
	Order  string   `json:"order,omitempty" enum:"desc,asc" default:"desc" jsonschema:"desc: largest first"`
	Limit  int      `json:"limit,omitempty" jsonschema:"Rows to return, 1-200" default:"50" min:"1" max:"200"`
}

func (t *tools) addBreadth(s *mcp.Server) {
	addTool(s, t, "limit_ladder",
		"The 连板 ladder of a day: limit-up stocks by consecutive limit-ups (boards), highest first, with first and last seal times and opens; meta.promotion is each rung's promotion rate from the day before.",
		func(ctx context.Context, t *tools, in limitLadderIn) (*client.Response, shape, error) {
			resp, err := get(ctx, t.api, "/v1/api/limit_ladder", url.Values{"date": {in.Date}})
			return resp, shape{rows: "levels", flatten: "items", keep: []string{"promotion"}, asOf: []string{"as_of", "date"}, units: limitUnits,
				columns: []string{"boards", "code", "name", "close", "pct", "first_seal", "last_seal", "opened_times", "seal_fund"}, narrow: "use limit_pool with kind up"}, err
		})
	addTool(s, t, "limit_pool",
		"A day's limit pool derived from the bars: limit-up (涨停), limit-down (跌停), broken (炸板), yesterday's limit-ups, or strong stocks, with seal times, opens and consecutive boards.",
		func(ctx context.Context, t *tools, in limitPoolIn) (*client.Response, shape, error) {
			resp, err := get(ctx, t.api, "/v1/api/limit_pool", url.Values{"date": {in.Date}, "kind": {in.Kind}})
			return resp, shape{rows: "items", limit: cmp.Or(in.Limit, 100), asOf: []string{"as_of", "date"}, units: limitUnits,
				columns: []string{"code", "name", "close", "pct", "limit_price", "first_seal", "last_seal", "opened_times", "boards", "seal_fund"},
				narrow:  "raise limit (at most 200)"}, err
		})
	addTool(s, t, "dragon_tiger",
		"The dragon-tiger list (龙虎榜): a day's listed stocks with the reasons and the listed seats' buying, selling and net (元); or one stock's listings over a range with its seats.",
		func(ctx context.Context, t *tools, in dragonTigerIn) (*client.Response, shape, error) {
			q := url.Values{"date": {in.Date}, "code": {in.Code}, "start": {in.Start}, "end": {in.End}}
			if in.Seats {
				q.Set("seats", "true")
			}
			resp, err := get(ctx, t.api, "/v1/api/lhb", q)
			return resp, shape{rows: "items", asOf: []string{"as_of", "imported_at"},
				units:   map[string]string{"close": "元", "change_pct": "%", "turnover_pct": "%", "amount": "元", "float_cap": "元", "reasons.0.net": "元"},
				columns: []string{"date", "code", "name", "close", "change_pct", "amount", "reasons.0.reason", "reasons.0.net"}, narrow: "give code, or a shorter range"}, err
		})
	addTool(s, t, "index_members",
		"An index's members (沪深300, 上证50, 中证500 …) on a day, from the recorded history of its member list; or its ins and outs over a range.",
		func(ctx context.Context, t *tools, in indexMembersIn) (*client.Response, shape, error) {
			if in.Changes {
				resp, err := get(ctx, t.api, "/v1/api/index/changes", url.Values{"code": {in.Index}, "start": {in.Start}, "end": {in.End}})
				return resp, shape{rows: "changes", asOf: []string{"as_of"}, columns: []string{"date", "change", "code", "name", "after"},
					narrow: "give start and end"}, err
			}
			resp, err := get(ctx, t.api, "/v1/api/index/members", url.Values{"code": {in.Index}, "date": {in.Date}})
			return resp, shape{rows: "members", asOf: []string{"as_of"}, columns: []string{"code", "name", "since"},
				narrow: "no parameter narrows an index's members: these are the first by code"}, err
		})
	addTool(s, t, "cross_section",
		"The whole market on one day as a cross-section: every security listed that day with its daily bar (or its 1-minute bar at minute), sorted here, e.g. the day's biggest gainers.",
		func(ctx context.Context, t *tools, in crossSectionIn) (*client.Response, shape, error) {
			q := url.Values{"date": {in.Date}, "codes": {strings.Join(in.Codes, ",")}, "type": {cmp.Or(in.Type, "stock")}, "page_size": {"10000"}}
			path := "/v1/api/bars/daily"
			if in.Minute != "" {
				path = "/v1/api/bars/minute"
				q.Set("time", in.Minute)
			}
			resp, err := get(ctx, t.api, path, q)
			sortBy := cmp.Or(in.Sort, "pct")
			if sortBy == "code" {
				sortBy = ""
			}
			return resp, shape{rows: "items", limit: cmp.Or(in.Limit, 50), sortBy: sortBy, asc: in.Order == "asc", asOf: []string{"date"},
				units:   barUnits,
				columns: []string{"code", "name", "close", "pct", "amount", "volume", "turnover_rate", "st", "suspended"},
				narrow:  "give codes or type, or order asc for the other end"}, err
		})
}
