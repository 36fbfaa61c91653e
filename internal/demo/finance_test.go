package demo

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

func reports(t *testing.T, m *Market, q upstream.FinanceQuery, page int) ([]upstream.FinanceReport, int) {
	t.Helper()
	rows, pages, err := m.Reports(context.Background(), q, page)
	if err != nil {
		t.Fatalf("Reports(%+v, %d): %v", q, page, err)
	}
	return rows, pages
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b)) }

func TestReportsOfAPeriod(t *testing.T) {
	today := market.Day(20261123)
	m, _ := newMarket(t, smallConfig(4), at(today, 12, 0, 0))
	rows, pages := reports(t, m, upstream.FinanceQuery{Period: 20260930}, 1)
	more, _ := reports(t, m, upstream.FinanceQuery{Period: 20260930}, 2)
	rows = append(rows, more...)
	listed := 0
	for _, s := range m.Stocks() {
		if s.Listed <= 20260930 {
			listed++
		}
	}
	// By 2026-11-23 every Q3 report is out (the window ends in October).
	if len(rows) != listed || pages != (listed+DemoReportPageSize-1)/DemoReportPageSize {
		t.Fatalf("%d rows in %d pages, want every one of %d listed stocks", len(rows), pages, listed)
	}
	for i, r := range rows {
		if i > 0 && r.Code.String() <= rows[i-1].Code.String() {
			t.Fatalf("rows not in code order at %d", i)
		}
		if r.Period != 20260930 || r.NoticeDate < 20261010 || r.NoticeDate > 20261031 || r.Name == "" || r.Industry == "" {
			t.Fatalf("row %+v", r)
		}
		if !near(r.EPS, r.NetProfit/float64(m.u.stocks[m.u.byCode[r.Code]].total), 1e-3) || !near(r.ROE, r.EPS/r.BPS*100, 1e-2) {
			t.Errorf("%s: EPS %v, profit %v, ROE %v, BPS %v disagree", r.Code, r.EPS, r.NetProfit, r.ROE, r.BPS)
		}
	}
	// The 2026 annual report is not out before 2027.
	if rows, _ := reports(t, m, upstream.FinanceQuery{Period: 20261231}, 1); len(rows) != 0 {
		t.Errorf("%d 2026 annual reports in November 2026", len(rows))
	}
	m2, _ := newMarket(t, smallConfig(4), at(today, 12, 0, 0))
	// %v prints NaN (a bank's gross margin), which DeepEqual never equals.
	if again, _ := reports(t, m2, upstream.FinanceQuery{Period: 20260930}, 1); fmt.Sprintf("%v", again) != fmt.Sprintf("%v", rows[:len(again)]) {
		t.Error("two markets of one config report differently")
	}
}

// A stock's reports agree with each other (year-on-year growth between
// the published figures) and with its quotes (the PE's earnings).
func TestReportsAreConsistent(t *testing.T) {
	m, _ := newMarket(t, smallConfig(4), at(market.Day(20261123), 12, 0, 0))
	quotes := quotesAt(t, m, at(infoDay, 15, 0, 0))
	checked := 0
	for _, q := range quotes[:40] {
		rows, _ := reports(t, m, upstream.FinanceQuery{Code: q.Code}, 1)
		byPeriod := map[market.Day]upstream.FinanceReport{}
		for i, r := range rows {
			if i > 0 && r.Period >= rows[i-1].Period {
				t.Fatalf("%s: periods not newest first", q.Code)
			}
			byPeriod[r.Period] = r
		}
		now, ok1 := byPeriod[20260930]
		last, ok2 := byPeriod[20250930]
		if !ok1 || !ok2 {
			continue
		}
		checked++
		// Growth rates are published to two decimals.
		if want := (now.Revenue - last.Revenue) / math.Abs(last.Revenue) * 100; math.Abs(now.RevenueYoY-want) > 0.006 {
			t.Errorf("%s revenue YoY %v, figures say %v", q.Code, now.RevenueYoY, want)
		}
		if want := (now.NetProfit - last.NetProfit) / math.Abs(last.NetProfit) * 100; math.Abs(now.NetProfitYoY-want) > 0.006 {
			t.Errorf("%s profit YoY %v, figures say %v", q.Code, now.NetProfitYoY, want)
		}
		// Nine months of 2026 earnings are 55-85 % of the year's EPS that
		// the quote's PE implies (price / PE), with the same sign.
		annual := q.Price / q.PE
		if share := now.EPS / annual; share < 0.55 || share > 0.85 {
			t.Errorf("%s: Q3 EPS %v against the PE's annual EPS %v (share %.2f)", q.Code, now.EPS, annual, share)
		}
	}
	if checked < 20 {
		t.Fatalf("only %d stocks had both Q3 reports", checked)
	}
}

func TestReportsPaging(t *testing.T) {
	m, _ := newMarket(t, Config{Seed: 4, Stocks: 1200, Industries: 30, Concepts: 60}, at(market.Day(20261123), 12, 0, 0))
	p1, pages := reports(t, m, upstream.FinanceQuery{Period: 20260630}, 1)
	p3, _ := reports(t, m, upstream.FinanceQuery{Period: 20260630}, 3)
	if pages != 3 || len(p1) != DemoReportPageSize || len(p3) == 0 || len(p3) >= DemoReportPageSize {
		t.Fatalf("pages %d, page 1 %d rows, page 3 %d rows", pages, len(p1), len(p3))
	}
	if p4, _ := reports(t, m, upstream.FinanceQuery{Period: 20260630}, 4); len(p4) != 0 {
		t.Errorf("page past the end has %d rows", len(p4))
	}
	// Banks report no gross margin.
	for _, r := range p1 {
		if r.Industry == "银行" && !math.IsNaN(r.GrossMargin) {
			t.Errorf("bank %s has gross margin %v", r.Code, r.GrossMargin)
		}
	}
}

// The reports look like a listed company's, business by business: a
// liquor maker earns about half its revenue, a bank a third, a trader a
// few percent; revenue is a sensible multiple of the market value (P/S),
// earnings of the price (P/E), growth of a year's; and 贵州茅台 reports on
// the scale it does. A screen on fundamentals then finds sensible names.
func TestReportsArePlausible(t *testing.T) {
	m, _ := newMarket(t, DefaultConfig(), at(20261123, 16, 0, 0))
	price := map[market.Code]float64{}
	for _, q := range quotesAt(t, m, at(infoDay, 15, 0, 0)) {
		if !math.IsNaN(q.Price) {
			price[q.Code] = q.Price
		}
	}
	var rows []upstream.FinanceReport
	for page := 1; ; page++ {
		got, pages := reports(t, m, upstream.FinanceQuery{Period: 20251231}, page)
		rows = append(rows, got...)
		if page >= pages {
			break
		}
	}
	// Net margin bounds, percent, of the profitable by industry board.
	netBounds := map[string][2]float64{"酿酒行业": {15, 60}, "银行": {20, 55}, "保险": {2, 25}, "证券": {8, 85}}
	var profitable, peSane, psSane, growthSane, lossSane, losses, n int
	var margins []float64
	for _, r := range rows {
		s := &m.u.stocks[m.u.byCode[r.Code]]
		p, ok := price[r.Code]
		if !ok || r.Revenue <= 0 {
			if r.Revenue <= 0 {
				t.Errorf("%s %s: revenue %v", r.Code, r.Name, r.Revenue)
			}
			continue
		}
		n++
		net := r.NetProfit / r.Revenue * 100
		ps := p * float64(s.total) / r.Revenue
		if ps >= 0.1 && ps <= 30 {
			psSane++
		}
		if r.RevenueYoY >= -50 && r.RevenueYoY <= 100 {
			growthSane++
		}
		if r.NetProfit <= 0 {
			losses++
			if net >= -150 {
				lossSane++
			}
			continue
		}
		profitable++
		if b, ok := netBounds[r.Industry]; ok && (net < b[0] || net > b[1]) {
			t.Errorf("%s %s (%s): net margin %.1f %%, want %v..%v", r.Code, r.Name, r.Industry, net, b[0], b[1])
		}
		if !financial(m.u.styles[s.ind]) {
			margins = append(margins, net)
			if net > 60 {
				t.Errorf("%s %s (%s): net margin %.1f %%", r.Code, r.Name, r.Industry, net)
			}
			if !(r.GrossMargin > net) {
				t.Errorf("%s %s (%s): gross margin %v below the net margin %.1f", r.Code, r.Name, r.Industry, r.GrossMargin, net)
			}
		}
		if pe := p / r.EPS; pe >= 3 && pe <= 150 {
			peSane++
		}
	}
	slices.Sort(margins)
	if med := margins[len(margins)/2]; med < 4 || med > 16 {
		t.Errorf("median net margin of the profitable non-financial companies %.1f %%, want 4..16", med)
	}
	if n < 5000 || profitable < n*3/4 || losses < n/20 {
		t.Errorf("%d reports: %d profitable, %d losses", n, profitable, losses)
	}
	for what, got := range map[string][2]int{"P/E 3..150 of the profitable": {peSane, profitable},
		"P/S 0.1..30": {psSane, n}, "revenue growth -50..100 %": {growthSane, n}, "loss at most 150 % of revenue": {lossSane, losses}} {
		if got[0] < got[1]*9/10 {
			t.Errorf("%s: %d of %d, want 90 %%", what, got[0], got[1])
		}
	}
	// The well-known names on their real scale (2025 annual, 亿元).
	for _, w := range []struct {
		code                     string
		revLo, revHi             float64
		netLo, netHi, peLo, peHi float64
	}{
		{"600519.SH", 1200, 2600, 40, 60, 14, 35},
		{"601398.SH", 5000, 12000, 30, 55, 4, 10},
		{"300750.SZ", 2000, 5500, 8, 22, 12, 45},
	} {
		var r upstream.FinanceReport
		for _, x := range rows {
			if x.Code == market.MustCode(w.code) {
				r = x
			}
		}
		rev, net, pe := r.Revenue/1e8, r.NetProfit/r.Revenue*100, price[r.Code]/r.EPS
		if rev < w.revLo || rev > w.revHi || net < w.netLo || net > w.netHi || pe < w.peLo || pe > w.peHi {
			t.Errorf("%s %s: revenue %.0f 亿, net margin %.1f %%, P/E %.1f; want %v..%v 亿, %v..%v %%, %v..%v",
				w.code, r.Name, rev, net, pe, w.revLo, w.revHi, w.netLo, w.netHi, w.peLo, w.peHi)
		}
	}
}
