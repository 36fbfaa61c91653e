package upstream

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"mdqs/internal/market"
)

const (
	// reportYJBB is the 业绩报表 (results table) of data.eastmoney.com
	// bbsj/yjbb: one row per stock and report period with the main
	// indicators, the table akshare's stock_yjbb_em reads.
	reportYJBB = "RPT_LICO_FN_CPD"
	// A-share stocks only: the table also lists other security types.
	aShareType = "058001001"
)

// FinanceConfig configures the data-centre client.
type FinanceConfig struct {
	SourceConfig     // datacenter-web.eastmoney.com
	PageSize     int // rows per page; the web page asks 50, the API takes 500
	Report       string
}

// DefaultFinanceConfig: EastMoney's politeness defaults, 500 rows a page
// (a period of ~5,400 stocks is 11 requests).
func DefaultFinanceConfig() FinanceConfig {
	c := FinanceConfig{SourceConfig: eastMoneyDefaults(), PageSize: 500, Report: reportYJBB}
	c.BaseURL = "https://datacenter-web.eastmoney.com"
	return c
}

func (c FinanceConfig) withDefaults() FinanceConfig {
	d := DefaultFinanceConfig()
	c.SourceConfig = c.SourceConfig.withDefaults(d.SourceConfig)
	if c.PageSize <= 0 || c.PageSize > 500 {
		c.PageSize = d.PageSize
	}
	if c.Report == "" {
		c.Report = d.Report
	}
	return c
}

// FinanceReport is one stock's main indicators for one report period.
// Values are cumulative for the year to date (a Q3 report covers nine
// months), as published; NaN is unknown. Money is in yuan, ratios and
// growth rates in percent.
type FinanceReport struct {
	Code         market.Code
	Name         string
	Period       market.Day // the period end: 20240930 for 2024Q3
	NoticeDate   market.Day // 0 when unknown
	Revenue      float64    // 营业总收入
	RevenueYoY   float64    // 营收同比
	RevenueQoQ   float64    // 营收季度环比 (single quarter on the previous quarter)
	NetProfit    float64    // 归母净利润
	NetProfitYoY float64
	NetProfitQoQ float64
	EPS          float64 // basic earnings per share
	EPSDeducted  float64 // excluding non-recurring items
	BPS          float64 // book value per share
	ROE          float64 // weighted average return on equity
	GrossMargin  float64
	OCFPerShare  float64 // operating cash flow per share
	Industry     string
}

// FinanceQuery selects report rows: one period, one stock, or both.
type FinanceQuery struct {
	Period market.Day  // 0: every period
	Code   market.Code // zero: every stock
}

// Finance reads the data centre's results table.
type Finance struct {
	f   *fetcher
	cfg FinanceConfig
}

// NewFinance builds the client; zero config fields take
// DefaultFinanceConfig(), and a nil clock is the system clock.
func NewFinance(cfg FinanceConfig, lims *Limiters, clock market.Clock) (*Finance, error) {
	cfg = cfg.withDefaults()
	f, err := newFetcher(SourceDataCenter, cfg.SourceConfig, lims, clock)
	if err != nil {
		return nil, err
	}
	return &Finance{f: f, cfg: cfg}, nil
}

func (c *Finance) Status() Status { return c.f.snapshot() }

// PageSize is the rows per page the client asks.
func (c *Finance) PageSize() int { return c.cfg.PageSize }

// Reports is page (from 1) of the rows q selects, sorted by code and
// period, and how many pages the query has. A query that matches nothing
// (the data centre's code 9201, e.g. a period whose reports are not out)
// is no rows and 0 pages, not an error; another non-zero code is an RC
// error carrying the data centre's message.
//
// Required per row: SECURITY_CODE (six digits), REPORTDATE (a quarter
// end), and the keys of the main indicators TOTAL_OPERATE_INCOME,
// PARENT_NETPROFIT, BASIC_EPS and WEIGHTAVG_ROE (null values are NaN; a
// renamed key fails the page rather than store silent gaps). The growth
// rates, BPS, margins, cash flow, name, industry and notice date are
// optional (absence is drift). Rows that are not A-share stocks are
// skipped.
func (c *Finance) Reports(ctx context.Context, q FinanceQuery, page int) (rows []FinanceReport, pages int, err error) {
	page = max(page, 1)
	defer c.f.observe(c.f.clock.Now(), &err)
	filter := `(SECURITY_TYPE_CODE="` + aShareType + `")`
	if !q.Code.IsZero() {
		filter += `(SECURITY_CODE="` + q.Code.Symbol + `")`
	}
	if q.Period != 0 {
		filter += `(REPORTDATE='` + q.Period.String() + `')`
	}
	params := url.Values{
		"reportName":  {c.cfg.Report},
		"columns":     {"ALL"},
		"filter":      {filter},
		"pageNumber":  {strconv.Itoa(page)},
		"pageSize":    {strconv.Itoa(c.cfg.PageSize)},
		"sortColumns": {"SECURITY_CODE,REPORTDATE"},
		"sortTypes":   {"1,-1"},
		"source":      {"WEB"},
		"client":      {"WEB"},
	}
	chk := &check{}
	err = c.f.get(ctx, request{path: dataCenterPath, query: params, referer: "https://data.eastmoney.com/bbsj/yjbb.html"}, func(body []byte) error {
		var err error
		rows, pages, err = decodeFinance(body, chk)
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	c.f.noteDrift(chk)
	return rows, pages, nil
}

// decodeFinance reads the data centre's envelope (dataCenterRows) of the
// report RPT_LICO_FN_CPD.
func decodeFinance(body []byte, chk *check) ([]FinanceReport, int, error) {
	objs, pages, err := dataCenterRows(body, chk)
	if err != nil {
		return nil, 0, err
	}
	rows := make([]FinanceReport, 0, len(objs))
	for i, m := range objs {
		r := row{m: m, where: "row " + strconv.Itoa(i), c: chk}
		sym := r.reqStr("SECURITY_CODE")
		period := r.reqStr("REPORTDATE")
		rep := FinanceReport{
			Name:         r.optStr("SECURITY_NAME_ABBR"),
			Revenue:      r.reqNum("TOTAL_OPERATE_INCOME"),
			NetProfit:    r.reqNum("PARENT_NETPROFIT"),
			EPS:          r.reqNum("BASIC_EPS"),
			ROE:          r.reqNum("WEIGHTAVG_ROE"),
			RevenueYoY:   r.optNum("YSTZ"),
			RevenueQoQ:   r.optNum("YSHZ"),
			NetProfitYoY: r.optNum("SJLTZ"),
			NetProfitQoQ: r.optNum("SJLHZ"),
			EPSDeducted:  r.optNum("DEDUCT_BASIC_EPS"),
			BPS:          r.optNum("BPS"),
			GrossMargin:  r.optNum("XSMLL"),
			OCFPerShare:  r.optNum("MGJYXJJE"),
			Industry:     r.optStr("PUBLISHNAME"),
		}
		secu, _ := strOf(m["SECUCODE"])
		notice, _ := strOf(m["NOTICE_DATE"])
		if notice == "" {
			notice, _ = strOf(m["UPDATE_DATE"])
		}
		if chk.err != nil {
			return nil, 0, chk.err
		}
		d, err := dataCenterDay(period)
		if err != nil || !isQuarterEnd(d) {
			return nil, 0, schemaErr("REPORTDATE", "not a quarter end in %s: %q", r.where, clip(period, 30))
		}
		rep.Period = d
		if nd, err := dataCenterDay(notice); err == nil {
			rep.NoticeDate = nd
		}
		code, err := financeCode(sym, secu)
		if err != nil {
			return nil, 0, schemaErr("SECURITY_CODE", "%v in %s", err, r.where)
		}
		if market.Classify(code) != market.TypeStock {
			continue
		}
		rep.Code = code
		rows = append(rows, rep)
	}
	return rows, pages, nil
}

// dataCenterDay reads "2024-09-30 00:00:00" or "2024-09-30".
func dataCenterDay(s string) (market.Day, error) {
	if len(s) > 10 {
		s = s[:10]
	}
	return market.ParseDay(s)
}

func isQuarterEnd(d market.Day) bool {
	switch int(d) % 10000 {
	case 331, 630, 930, 1231:
		return true
	}
	return false
}

// financeCode takes the exchange from SECUCODE ("600519.SH") when there is
// one that agrees with SECURITY_CODE, else from the code ranges.
func financeCode(sym, secu string) (market.Code, error) {
	if len(sym) != 6 {
		return market.Code{}, fmt.Errorf("code %q: want six digits", clip(sym, 20))
	}
	if c, err := market.ParseCode(secu); err == nil && c.Symbol == sym {
		return c, nil
	}
	c, err := market.ParseCode(sym)
	if err != nil {
		return market.Code{}, fmt.Errorf("code %q: want six digits", clip(sym, 20))
	}
	return c, nil
}

// Quarter helpers shared by the finance service and its callers.

// PeriodOf reads a report period: "2024Q3" (any case), or its period-end
// day as YYYY-MM-DD or YYYYMMDD (2024-09-30). Other days are errors.
func PeriodOf(s string) (market.Day, error) {
	s = strings.TrimSpace(s)
	if len(s) == 6 && (s[4] == 'Q' || s[4] == 'q') {
		y, err := strconv.Atoi(s[:4])
		q := s[5]
		if err != nil || y < 1990 || y > 2100 || q < '1' || q > '4' {
			return 0, fmt.Errorf("period %q: want YYYYQn such as 2024Q3", s)
		}
		ends := [...]int{331, 630, 930, 1231}
		return market.Day(y*10000 + ends[q-'1']), nil
	}
	d, err := market.ParseDay(s)
	if err != nil || !isQuarterEnd(d) || d.Year() < 1990 || d.Year() > 2100 {
		return 0, fmt.Errorf("period %q: want YYYYQn (2024Q3) or a quarter-end day (2024-09-30)", s)
	}
	return d, nil
}

// PeriodName is the "2024Q3" form of a period-end day.
func PeriodName(d market.Day) string {
	q := (int(d.Month()) + 2) / 3
	return fmt.Sprintf("%04dQ%d", d.Year(), q)
}
