package api

import (
	"net/http"

	"mdqs/db"
	"mdqs/internal/finance"
	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

// reportItem is one stock's main indicators for one period. Values are
// cumulative for the year to date, as published; null is unknown. Money
// in yuan; growth, ROE and margins in percent.
type reportItem struct {
	StockCode    string     `json:"stock_code"`
	StockName    string     `json:"stock_name"`
	Period       string     `json:"period"`      // 2024Q3
	ReportDate   string     `json:"report_date"` // the period end, 2024-09-30
	NoticeDate   *string    `json:"notice_date"`
	Revenue      market.Num `json:"revenue"`
	RevenueYoY   market.Num `json:"revenue_yoy"`
	RevenueQoQ   market.Num `json:"revenue_qoq"`
	NetProfit    market.Num `json:"net_profit"`
	NetProfitYoY market.Num `json:"net_profit_yoy"`
	NetProfitQoQ market.Num `json:"net_profit_qoq"`
	EPS          market.Num `json:"eps"`
	EPSDeducted  market.Num `json:"eps_deducted"`
	BPS          market.Num `json:"bps"`
	ROE          market.Num `json:"roe"`
	GrossMargin  market.Num `json:"gross_margin"`
	OCFPerShare  market.Num `json:"ocf_per_share"`
	Industry     string     `json:"industry"`
	Source       string     `json:"source"`
	UpdatedAt    string     `json:"updated_at"`
}

func reportItemOf(r db.ReportRecord) reportItem {
	return reportItem{StockCode: r.Code.String(), StockName: r.Name, Period: upstream.PeriodName(r.Period), ReportDate: r.Period.String(),
		NoticeDate: dayOrNull(r.NoticeDate), Revenue: market.Num(r.Revenue), RevenueYoY: market.Num(r.RevenueYoY),
		RevenueQoQ: market.Num(r.RevenueQoQ), NetProfit: market.Num(r.NetProfit), NetProfitYoY: market.Num(r.NetProfitYoY),
		NetProfitQoQ: market.Num(r.NetProfitQoQ), EPS: market.Num(r.EPS), EPSDeducted: market.Num(r.EPSDeducted), BPS: market.Num(r.BPS),
		ROE: market.Num(r.ROE), GrossMargin: market.Num(r.GrossMargin), OCFPerShare: market.Num(r.OCFPerShare), Industry: r.Industry,
		Source: r.Source, UpdatedAt: market.FormatTime(r.UpdatedAt)}
}

type reportList struct {
	Items    []reportItem `json:"items"`
	Total    int          `json:"total"`
	Page     int          `json:"page"`
	PageSize int          `json:"page_size"`
	Period   *string      `json:"period"` // the one period shown, when the query was of one
}

// period reads a report period parameter: 2024Q3, or the period-end day.
func (q *query) period(name string) market.Day {
	s := q.str(name)
	if s == "" {
		if q.has(name) {
			q.fail("", "%s must be a report period such as 2024Q3", name)
		}
		return 0
	}
	d, err := upstream.PeriodOf(s)
	if err != nil {
		q.fail("", "%s: %v", name, err)
		return 0
	}
	return d
}

// handleFinancialReports is GET /v1/api/financial-reports: the main
// indicators per stock and report period. stock_code (one or several,
// comma-separated) gives those stocks' reports, newest period first;
// without it, one period of every stock (default: the latest period
// stored), by code. period (2024Q3 or 2024-09-30) selects one period,
// start_period/end_period a range (either side open); page, page_size
// (default 20, capped by finance.max_page_size). Nothing matching is 404
// "not found".
func (s *Server) handleFinancialReports(w http.ResponseWriter, r *http.Request) error {
	if s.Info.Finance == nil {
		return notConfigured("financial reports")
	}
	maxSize := s.Info.Finance.Config().MaxPageSize
	q := newQuery(r)
	codes := q.codes("stock_code", "code")
	period := q.period("period")
	from := q.period("start_period")
	to := q.period("end_period")
	page := q.intIn("page", 1, 1, 1_000_000)
	size := q.intIn("page_size", min(20, maxSize), 1, maxSize)
	if err := q.Err(); err != nil {
		return err
	}
	p, err := s.Info.Finance.Query(r.Context(), finance.Query{Codes: codes, Period: period, From: from, To: to, Page: page, PageSize: size})
	if err != nil {
		return err
	}
	out := reportList{Items: make([]reportItem, len(p.Items)), Total: p.Total, Page: p.Page, PageSize: p.PageSize}
	if p.Period != 0 {
		name := upstream.PeriodName(p.Period)
		out.Period = &name
	}
	for i, it := range p.Items {
		out.Items[i] = reportItemOf(it)
	}
	return ok(w, out)
}
