package demo

import (
	"context"
	"math"
	"slices"

	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

// The demo's periodic reports. Each stock's annual net profit in 2026 is
// its model EPS times its total shares, so a quote's PE (price / EPS) and
// the reports agree, and its 2026 revenue is that profit over its net
// margin (both drawn by industry style, finstyle.go): 贵州茅台 earns half
// its revenue, a bank a third, a trader a few percent, and revenue is a
// multiple of the market value a listed company of that business has.
// Other years follow a yearly revenue growth drawn from the style's range,
// with the net margin varying around the stock's own by up to 15 % of it
// (plus a point), so profit swings wider than revenue as it does. A
// year's figures split over its quarters by drawn seasonal weights, and
// every figure is published cumulative for the year to date, as A-share
// reports are. Book value grows 6 % a year to the model BPS at the end of
// 2026. A report exists once its notice date, drawn inside the legal
// window (Q1 in April, H1 by August, Q3 in October, the annual report by
// April of the next year), has passed.

// DemoReportPageSize is the demo data centre's page size.
const DemoReportPageSize = 500

// firstReportYear bounds the demo's report history.
const firstReportYear = 2015

// finParams are a stock's drawn financial constants.
type finParams struct {
	growth  [2]float64 // the style's yearly revenue growth range, percent
	margin  float64    // gross margin, percent; NaN for banks, brokers and insurers
	cash    float64    // operating cash flow over profit
	deduct  float64    // recurring share of profit
	season  [4]float64 // quarterly weights of profit, summing to 1
	seasonR [4]float64 // and of revenue
}

// finParams draws a stock's constants; styles is industryList of the
// market's size (the industry styles, by industry index).
func (m *Market) finParams(s *stock, styles []industrySpec) finParams {
	ns := newStream(hash3(m.seed, tagFinance, codeKey(s.code)), 0)
	fs := finStyleOf(styles[s.ind].style)
	p := finParams{growth: fs.growth, cash: ns.between(0.4, 1.6), deduct: ns.between(0.82, 1.0)}
	// The gross margin stays above every year's net margin (at most 1.15
	// times the stock's plus a point).
	lo := max(fs.gross[0], mul(s.net, 1.2)+3)
	p.margin = ns.between(lo, max(fs.gross[1], lo+5))
	if financial(styles[s.ind].style) {
		p.margin = nan() // banks, brokers and insurers report no gross margin
	}
	// Profit follows revenue through the year, give or take a tenth, so a
	// quarter's margin stays near the year's.
	sum, sumR := 0.0, 0.0
	for q := range p.seasonR {
		p.seasonR[q] = ns.between(0.8, 1.3)
		p.season[q] = mul(p.seasonR[q], ns.between(0.9, 1.1))
		sumR += p.seasonR[q]
		sum += p.season[q]
	}
	for q := range p.season {
		p.season[q] /= sum
		p.seasonR[q] /= sumR
	}
	return p
}

func nan() float64 { return math.NaN() }

// annual is the stock's revenue of year y relative to 2026's and its net
// margin that year (percent): a product of drawn yearly growth rates, and
// the stock's margin moved by that year's draw (none in 2026, where the
// model EPS holds).
func (m *Market) annual(s *stock, p finParams, y int) (revenue, net float64) {
	rate := func(yr int) (r, z float64) {
		ns := newStream(hash3(m.seed, tagFinance, codeKey(s.code)), uint64(yr))
		return ns.between(p.growth[0], p.growth[1]) / 100, ns.between(-1, 1)
	}
	revenue = 1
	for yr := 2026; yr > y; yr-- {
		r, _ := rate(yr)
		revenue /= 1 + r
	}
	for yr := 2027; yr <= y; yr++ {
		r, _ := rate(yr)
		revenue = mul(revenue, 1+r)
	}
	net = s.net
	if y != 2026 {
		_, z := rate(y)
		net += mul(mul(abs(s.net), 0.15)+1, z)
	}
	return revenue, net
}

// noticeDate is when the report of period is published.
func (m *Market) noticeDate(s *stock, period market.Day) market.Day {
	ns := newStream(hash3(m.seed, tagFinance+100, codeKey(s.code)), uint64(period))
	y := period.Year()
	var from market.Day
	var span int
	switch period.Month() {
	case 3:
		from, span = market.NewDay(y, 4, 8), 22
	case 6:
		from, span = market.NewDay(y, 7, 20), 42
	case 9:
		from, span = market.NewDay(y, 10, 10), 21
	default:
		from, span = market.NewDay(y+1, 3, 10), 51
	}
	return from.AddDays(ns.intn(span + 1))
}

// quarterEnds are the period ends of a year.
func quarterEnds(y int) [4]market.Day {
	return [4]market.Day{market.NewDay(y, 3, 31), market.NewDay(y, 6, 30), market.NewDay(y, 9, 30), market.NewDay(y, 12, 31)}
}

// cumulative is a stock's year-to-date profit and revenue at quarter q
// (0..3) of year y, in yuan, and the single quarter's.
func (m *Market) cumulative(s *stock, p finParams, y, q int) (profit, revenue, qProfit, qRevenue float64) {
	gr, net := m.annual(s, p, y)
	annualRevenue := mul(mul(mul(s.eps, float64(s.total)), 100/s.net), gr)
	annualProfit := mul(annualRevenue, net/100)
	if y == 2026 {
		annualProfit = mul(s.eps, float64(s.total)) // exactly the quotes' EPS
	}
	w, wr := 0.0, 0.0
	for i := 0; i <= q; i++ {
		w += p.season[i]
		wr += p.seasonR[i]
	}
	return mul(annualProfit, w), mul(annualRevenue, wr), mul(annualProfit, p.season[q]), mul(annualRevenue, p.seasonR[q])
}

// report is the stock's report of a period (the caller checks it exists).
func (m *Market) report(s *stock, period market.Day, styles []industrySpec) upstream.FinanceReport {
	p := m.finParams(s, styles)
	y, q := period.Year(), int(period.Month())/3-1
	profit, revenue, qProfit, qRevenue := m.cumulative(s, p, y, q)
	lastProfit, lastRevenue, _, _ := m.cumulative(s, p, y-1, q)
	var prevQProfit, prevQRevenue float64
	if q > 0 {
		_, _, prevQProfit, prevQRevenue = m.cumulative(s, p, y, q-1)
	} else {
		_, _, prevQProfit, prevQRevenue = m.cumulative(s, p, y-1, 3)
	}
	shares := float64(s.total)
	// Book value: 6 % a year up to the model BPS at the end of 2026.
	bps := s.bvps
	for d := (2026-y)*4 + (3 - q); d > 0; d-- {
		bps /= 1.015
	}
	for d := (2026-y)*4 + (3 - q); d < 0; d++ {
		bps *= 1.015
	}
	eps := profit / shares
	r := upstream.FinanceReport{
		Code: s.code, Name: s.name, Period: period, NoticeDate: m.noticeDate(s, period),
		Revenue: roundYuan(revenue), RevenueYoY: growthPct(revenue, lastRevenue), RevenueQoQ: growthPct(qRevenue, prevQRevenue),
		NetProfit: roundYuan(profit), NetProfitYoY: growthPct(profit, lastProfit), NetProfitQoQ: growthPct(qProfit, prevQProfit),
		EPS: round4(eps), EPSDeducted: round4(mul(eps, p.deduct)), BPS: round4(bps), ROE: round2(eps / bps * 100),
		GrossMargin: round2(p.margin), OCFPerShare: round4(mul(eps, p.cash)), Industry: m.u.industries[s.ind].name,
	}
	return r
}

func growthPct(now, before float64) float64 {
	if before == 0 {
		return nan()
	}
	return round2((now - before) / abs(before) * 100)
}

func round4(x float64) float64 {
	if x != x || x > 1e12 || x < -1e12 {
		return x
	}
	return float64(int64Round(mul(x, 10000))) / 10000
}

// hasReport: the stock was listed by the period end (its prospectus
// years are not modelled), the period is in the demo's history, and the
// report is out by today.
func (m *Market) hasReport(s *stock, period, today market.Day) bool {
	return period.Year() >= firstReportYear && period >= s.listed && m.noticeDate(s, period) <= today
}

// Reports serves the demo's reports like the data centre's results table
// (upstream.Finance.Reports): the rows q selects, sorted by code and then
// newest period, DemoReportPageSize a page, and the page count.
func (m *Market) Reports(ctx context.Context, q upstream.FinanceQuery, page int) (rows []upstream.FinanceReport, pages int, err error) {
	defer m.observe(m.clock.Now(), &err)
	if err := ctxErr(ctx); err != nil {
		return nil, 0, err
	}
	page = max(page, 1)
	today := market.DayOf(m.clock.Now())
	type key struct {
		si     int
		period market.Day
	}
	var keys []key
	for si := range m.u.stocks {
		s := &m.u.stocks[si]
		if !q.Code.IsZero() && s.code != q.Code {
			continue
		}
		if q.Period != 0 {
			if m.hasReport(s, q.Period, today) {
				keys = append(keys, key{si, q.Period})
			}
			continue
		}
		for y := today.Year(); y >= max(firstReportYear, s.listed.Year()); y-- {
			ends := quarterEnds(y)
			for i := 3; i >= 0; i-- {
				if m.hasReport(s, ends[i], today) {
					keys = append(keys, key{si, ends[i]})
				}
			}
		}
	}
	pages = (len(keys) + DemoReportPageSize - 1) / DemoReportPageSize
	lo := (page - 1) * DemoReportPageSize
	rows = []upstream.FinanceReport{}
	styles := industryList(len(m.u.industries))
	for _, k := range keys[min(lo, len(keys)):min(lo+DemoReportPageSize, len(keys))] {
		rows = append(rows, m.report(&m.u.stocks[k.si], k.period, styles))
	}
	return rows, pages, nil
}

// reportsOutOn lists the stocks whose report of some period is published
// on day, with that period, for the demo's announcements.
func (m *Market) reportsOutOn(day market.Day) []reportNotice {
	var out []reportNotice
	y := day.Year()
	candidates := []market.Day{market.NewDay(y-1, 12, 31)}
	for _, e := range quarterEnds(y) {
		if e < day {
			candidates = append(candidates, e)
		}
	}
	for si := range m.u.stocks {
		s := &m.u.stocks[si]
		for _, period := range candidates {
			if period.Year() >= firstReportYear && period >= s.listed && m.noticeDate(s, period) == day {
				out = append(out, reportNotice{si: si, period: period})
			}
		}
	}
	slices.SortFunc(out, func(a, b reportNotice) int { return a.si - b.si })
	return out
}

type reportNotice struct {
	si     int
	period market.Day
}
