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

type newsSearchIn struct {
	Query string `json:"query,omitempty" jsonschema:"Full-text search of titles and bodies (at most 16 terms)" examples:"增持|业绩预告"`
	Type  string `json:"type,omitempty" jsonschema:"flash: 快讯 news flashes; announcement: companies' announcements (公告)" enum:"flash,announcement"`
	Code  string `json:"code,omitempty" jsonschema:"Only items about this security (600519.SH, 600519)"`
	Date  string `json:"date,omitempty" jsonschema:"Only items published that day, YYYY-MM-DD"`
	ID    int    `json:"id,omitempty" jsonschema:"One item in full (its id from a list): its whole text"`
	Limit int    `json:"limit,omitempty" jsonschema:"Rows to return, newest first, 1-100" default:"20" min:"1" max:"100"`
}

type hotRankIn struct {
	Date  string   `json:"date,omitempty" jsonschema:"Day of the list YYYY-MM-DD; default the latest"`
	Codes []string `json:"codes,omitempty" jsonschema:"Only these stocks (at most 50): their rank that day, or over start..end" max:"50"`
	Start string   `json:"start,omitempty" jsonschema:"With end: a range of days YYYY-MM-DD"`
	End   string   `json:"end,omitempty" jsonschema:"With start: the range's last day"`
	Limit int      `json:"limit,omitempty" jsonschema:"Rows to return, 1-100" default:"20" min:"1" max:"100"`
}

type financialReportsIn struct {
	Codes       []string `json:"codes,omitempty" jsonschema:"Stocks (at most 50); without them every stock of the period" examples:"600519.SH|000858.SZ,600519.SH" max:"50"`
	Period      string   `json:"period,omitempty" jsonschema:"One report period: 2026Q3 (Q1..Q4) or its end 2026-09-30" examples:"2026Q3|2025Q4"`
	StartPeriod string   `json:"start_period,omitempty" jsonschema:"Lowest period, same forms"`
	EndPeriod   string   `json:"end_period,omitempty" jsonschema:"Highest period, same forms"`
	Limit       int      `json:"limit,omitempty" jsonschema:"Rows to return, 1-100" default:"20" min:"1" max:"100"`
}

func (t *tools) addInfo(s *mcp.Server) {
	addTool(s, t, "news_search",
		"News flashes (快讯) and company announcements (公告), newest first: search, filter by stock, type or day; with id, one item's whole text.",
		func(ctx context.Context, t *tools, in newsSearchIn) (*client.Response, shape, error) {
			if in.ID > 0 {
				resp, err := get(ctx, t.api, "/v1/api/news/view", url.Values{"id": {strconv.Itoa(in.ID)}})
				return resp, shape{single: true, rowsAsOf: "published_at", columns: []string{"id", "published_at", "title", "codes", "body"}}, err
			}
			typ := map[string]string{"flash": "1", "announcement": "2"}[in.Type]
			limit := cmp.Or(in.Limit, 20)
			resp, err := get(ctx, t.api, "/v1/api/news/list", url.Values{"q": {in.Query}, "type": {typ}, "stock_code": {in.Code}, "date": {in.Date},
				"page_size": {strconv.Itoa(limit)}})
			return resp, shape{rows: "items", limit: limit, rowsAsOf: "published_at", columns: []string{"id", "published_at", "title", "codes"},
				narrow: "give query, code, type or date"}, err
		})
	addTool(s, t, "hot_rank",
		"The hot rank (人气榜): the most-watched stocks of a day by rank and heat; or given stocks' ranks on a day or over a range.",
		func(ctx context.Context, t *tools, in hotRankIn) (*client.Response, shape, error) {
			limit := cmp.Or(in.Limit, 20)
			resp, err := get(ctx, t.api, "/v1/api/hot_rank", url.Values{"date": {in.Date}, "stock_code": {strings.Join(in.Codes, ",")},
				"start_date": {in.Start}, "end_date": {in.End}, "size": {strconv.Itoa(limit)}})
			return resp, shape{rows: "items", limit: limit, asOf: []string{"date"}, rowsAsOf: "date", columns: []string{"rank", "stock_code", "stock_name", "heat", "date"},
				narrow: "give codes, or page through by date"}, err
		})
	addTool(s, t, "financial_reports",
		"Main figures of periodic reports per stock and period: revenue and net profit (元) with their growth (yoy/qoq %), EPS, BPS, ROE %, gross margin %, operating cash flow per share.",
		func(ctx context.Context, t *tools, in financialReportsIn) (*client.Response, shape, error) {
			limit := cmp.Or(in.Limit, 20)
			resp, err := get(ctx, t.api, "/v1/api/financial-reports", url.Values{"stock_code": {strings.Join(in.Codes, ",")}, "period": {in.Period},
				"start_period": {in.StartPeriod}, "end_period": {in.EndPeriod}, "page_size": {strconv.Itoa(limit)}})
			return resp, shape{rows: "items", limit: limit, rowsAsOf: "notice_date",
				units: map[string]string{"revenue": "元", "net_profit": "元", "revenue_yoy": "%", "revenue_qoq": "%", "net_profit_yoy": "%", "net_profit_qoq": "%",
					"eps": "元", "eps_deducted": "元", "bps": "元", "roe": "%", "gross_margin": "%", "ocf_per_share": "元"},
				columns: []string{"stock_code", "stock_name", "period", "notice_date", "revenue", "revenue_yoy", "net_profit", "net_profit_yoy", "eps", "roe", "gross_margin"},
				narrow:  "give codes or period"}, err
		})
}
