package demo

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strconv"
	"sync"

	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

// tagLHB is the random stream of the demo's dragon-tiger list.
const tagLHB uint64 = 231

// LHBPublishAt is when the demo's list of a day is out, as the exchanges'
// (18:00 Shanghai): before it the day has no rows, as upstream.LHB.
const LHBPublishAt = 18 * 60

// lhbRule is a listing reason of the demo: the daily rules of the two
// exchanges, each worded as that exchange words it.
type lhbRule struct {
	code   string
	sh, sz string
}

var lhbRules = [...]lhbRule{
	{"137001002001001", "有价格涨跌幅限制的日收盘价格涨幅偏离值达到7%的前五只证券", "日涨幅偏离值达到7%的前5只证券"},
	{"137001002001003", "有价格涨跌幅限制的日收盘价格跌幅偏离值达到7%的前五只证券", "日跌幅偏离值达到7%的前5只证券"},
	{"137001004001", "有价格涨跌幅限制的日换手率达到20%的前五只证券", "日换手率达到20%的前5只证券"},
}

// lhbSeatNames are the demo's brokerage seats (fictional branches), drawn
// for the lists; 机构专用 and the Connect seat are added by rule.
var lhbSeatNames = [...]string{
	"东海岸证券股份有限公司拉萨团结路第一证券营业部",
	"东海岸证券股份有限公司拉萨东环路证券营业部",
	"华江证券股份有限公司上海溧阳路证券营业部",
	"华江证券股份有限公司深圳益田路证券营业部",
	"中原星证券股份有限公司宁波解放南路证券营业部",
	"中原星证券股份有限公司杭州庆春路证券营业部",
	"北辰证券有限责任公司成都南一环路证券营业部",
	"北辰证券有限责任公司西安朱雀大街证券营业部",
	"南岭证券股份有限公司广州天河北路证券营业部",
	"南岭证券股份有限公司厦门湖滨南路证券营业部",
	"长风证券股份有限公司北京金融大街证券营业部",
	"长风证券股份有限公司上海分公司",
	"远航证券股份有限公司绍兴解放北路证券营业部",
	"远航证券股份有限公司总部",
}

const lhbInstitution = "机构专用"

// lhbMemo keeps the last day's list: an import asks the list once and
// each listed stock's two seat lists, all of the same day.
type lhbMemo struct {
	mu     sync.Mutex
	day    market.Day
	stocks []*lhbStock
}

// lhbStock is one listed stock of a demo day: its reasons, bar and seats.
type lhbStock struct {
	si     int
	rules  []int // indexes into lhbRules
	bar    market.Bar
	pct    float64
	buy    []lhbSeat
	sell   []lhbSeat
	code   market.Code
	name   string
	floatC float64
}

type lhbSeat struct {
	code, name string
	amount     float64
}

// lhbDay is the demo's list of day, as published at LHBPublishAt: for
// each rule and exchange the five stocks that meet it the most, from the
// day's own bars. A stock meets the 7% rules at |change| >= 7% on a 10%
// board and >= 15% on a 20% board (the demo measures the change itself,
// not its deviation from an index), the turnover rule at 20% of float
// shares; 北交所 stocks and suspended ones are not listed. nil before the
// list is out.
func (m *Market) lhbDay(ctx context.Context, day market.Day) ([]*lhbStock, error) {
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	i, ok := m.index(day)
	if !ok || m.clock.Now().Before(market.TimeOfDay(LHBPublishAt).On(day)) {
		return nil, nil
	}
	m.lhb.mu.Lock()
	defer m.lhb.mu.Unlock()
	if m.lhb.stocks != nil && m.lhb.day == day {
		return m.lhb.stocks, nil
	}
	ds := m.dayState(i)
	type cand struct {
		si  int
		key float64
	}
	// picks[rule][exchange]
	var picks [len(lhbRules)][2][]cand
	for si := range m.u.stocks {
		s := &m.u.stocks[si]
		if ds.prev[si] <= 0 || s.haltedOn(day) || s.code.Exchange == market.BJ {
			continue
		}
		ex := 0
		if s.code.Exchange == market.SZ {
			ex = 1
		}
		pct := pctOf(ds.close[si], ds.prev[si])
		thr := 7.0
		if s.limitOn(day) > 10 {
			thr = 15
		}
		turnover := float64(ds.vday[si]*100) / s.fsF * 100
		if pct >= thr {
			picks[0][ex] = append(picks[0][ex], cand{si, pct})
		}
		if pct <= -thr {
			picks[1][ex] = append(picks[1][ex], cand{si, -pct})
		}
		if turnover >= 20 {
			picks[2][ex] = append(picks[2][ex], cand{si, turnover})
		}
	}
	byStock := map[int]*lhbStock{}
	for r := range picks {
		for ex := range picks[r] {
			cs := picks[r][ex]
			slices.SortFunc(cs, func(a, b cand) int {
				if c := cmp.Compare(b.key, a.key); c != 0 {
					return c
				}
				return cmp.Compare(a.si, b.si)
			})
			for _, c := range cs[:min(5, len(cs))] {
				st := byStock[c.si]
				if st == nil {
					s := &m.u.stocks[c.si]
					bar := m.dayOf(s, day, ds.prev[c.si], ds.close[c.si], ds.vday[c.si]).bar(day, ds.close[c.si], ds.vday[c.si], s.fsF)
					st = &lhbStock{si: c.si, bar: bar, pct: pctOf(ds.close[c.si], ds.prev[c.si]), code: s.code, name: s.nameOn(day),
						floatC: mul(bar.Close, s.fsF)}
					byStock[c.si] = st
				}
				st.rules = append(st.rules, r)
			}
		}
	}
	out := make([]*lhbStock, 0, len(byStock))
	for _, st := range byStock {
		slices.Sort(st.rules)
		m.lhbSeats(st, day)
		out = append(out, st)
	}
	slices.SortFunc(out, func(a, b *lhbStock) int { return cmp.Compare(a.si, b.si) })
	m.lhb.stocks, m.lhb.day = out, day
	return out, nil
}

// lhbSeats draws a listed stock's five buying and five selling seats:
// the listed seats buy 10-30% of the day's turnover and sell 5-25%,
// tilted to the buying side on a rising day and the selling side on a
// falling one, in decreasing shares; the special seats (机构专用, the
// exchange's Connect seat) are among the draws, and no brokerage seat is
// on both lists.
func (m *Market) lhbSeats(st *lhbStock, day market.Day) {
	ns := newStream(hash3(m.seed, tagLHB, codeKey(st.code)), uint64(day))
	connect := "沪股通专用"
	if st.code.Exchange == market.SZ {
		connect = "深股通专用"
	}
	pool := append([]string{lhbInstitution, lhbInstitution, connect}, lhbSeatNames[:]...)
	order := ns.perm(len(pool))
	tilt := math.Max(-1, math.Min(1, st.pct/10))
	buyShare := ns.between(0.10, 0.30) * (1 + 0.3*tilt)
	sellShare := ns.between(0.05, 0.25) * (1 - 0.3*tilt)
	take := func(names []int, share float64) []lhbSeat {
		w := make([]float64, len(names))
		sum := 0.0
		for i := range w {
			w[i] = ns.between(0.5, 1) / float64(i+1)
			sum += w[i]
		}
		out := make([]lhbSeat, len(names))
		for i, n := range names {
			amt := math.Round(mul(st.bar.Amount, share*w[i]/sum)*100) / 100
			name := pool[n]
			code := ""
			if name != lhbInstitution {
				code = strconv.Itoa(10000000 + int(hash2(uint64(n), 31)%9000000))
			}
			out[i] = lhbSeat{code: code, name: name, amount: amt}
		}
		slices.SortStableFunc(out, func(a, b lhbSeat) int { return cmp.Compare(b.amount, a.amount) })
		return out
	}
	st.buy = take(order[:5], buyShare)
	st.sell = take(order[5:10], sellShare)
}

func (st *lhbStock) totals() (buy, sell float64) {
	for _, s := range st.buy {
		buy += s.amount
	}
	for _, s := range st.sell {
		sell += s.amount
	}
	return math.Round(buy*100) / 100, math.Round(sell*100) / 100
}

func (st *lhbStock) reason(r int) string {
	if st.code.Exchange == market.SH {
		return lhbRules[r].sh
	}
	return lhbRules[r].sz
}

func lhbTradeID(day market.Day, si, r int) string {
	return strconv.FormatInt(int64(day)%1000000*100000+int64(si)*4+int64(r), 10)
}

// Listings serves the demo's list of day like the data centre's daily
// report (upstream.LHB.Listings): one row per stock and reason, by code,
// all on one page; a day without a list (a holiday, a day outside the
// demo's range, today before 18:00) is no rows and 0 pages.
func (m *Market) Listings(ctx context.Context, day market.Day, page int) (rows []upstream.LHBListing, pages int, err error) {
	defer m.observe(m.clock.Now(), &err)
	stocks, err := m.lhbDay(ctx, day)
	if err != nil || len(stocks) == 0 || page > 1 {
		return []upstream.LHBListing{}, min(len(stocks), 1), err
	}
	for _, st := range stocks {
		buy, sell := st.totals()
		board := "上交所主板"
		switch {
		case st.code.Exchange == market.SZ && st.code.Symbol[0] == '3':
			board = "深交所创业板"
		case st.code.Exchange == market.SZ:
			board = "深交所主板"
		case st.code.Symbol[:3] == "688":
			board = "上交所科创板"
		}
		for _, r := range st.rules {
			rows = append(rows, upstream.LHBListing{Day: day, Code: st.code, Name: st.name, Reason: st.reason(r),
				ReasonCode: lhbRules[r].code, TradeID: lhbTradeID(day, st.si, r), Reading: "demo", Board: board,
				Close: st.bar.Close, ChangePct: math.Round(st.pct*10000) / 10000, Turnover: st.bar.TurnoverRate,
				Buy: buy, Sell: sell, Net: round6(buy - sell), Deal: round6(buy + sell), Amount: st.bar.Amount,
				NetPct: round6((buy - sell) / st.bar.Amount * 100), DealPct: round6((buy + sell) / st.bar.Amount * 100), FloatCap: st.floatC})
		}
	}
	return rows, 1, nil
}

// Seats serves one listed stock-day's seats on side like the data
// centre's seat reports: each seat once per reason the stock is listed
// for, with the same amounts and that reason's TRADE_ID, largest first.
// A stock not listed that day is no rows.
func (m *Market) Seats(ctx context.Context, day market.Day, code market.Code, side upstream.LHBSide, page int) (rows []upstream.LHBSeatRow, pages int, err error) {
	defer m.observe(m.clock.Now(), &err)
	stocks, err := m.lhbDay(ctx, day)
	if err != nil {
		return nil, 0, err
	}
	rows = []upstream.LHBSeatRow{}
	i := slices.IndexFunc(stocks, func(st *lhbStock) bool { return st.code == code })
	if i < 0 || page > 1 {
		return rows, min(i+1, 1), nil
	}
	st := stocks[i]
	seats := st.buy
	if side == upstream.LHBSell {
		seats = st.sell
	}
	for _, r := range st.rules {
		for _, s := range seats {
			row := upstream.LHBSeatRow{Day: day, Code: code, Side: side, SeatCode: s.code, SeatName: s.name, Reason: st.reason(r),
				ReasonCode: lhbRules[r].code, TradeID: lhbTradeID(day, st.si, r), Buy: math.NaN(), Sell: math.NaN(),
				BuyPct: math.NaN(), SellPct: math.NaN(), Rise3DPct: math.NaN(), Times3D: -1}
			if side == upstream.LHBSell {
				row.Sell, row.Net, row.SellPct = s.amount, -s.amount, round6(s.amount/st.bar.Amount*100)
			} else {
				row.Buy, row.Net, row.BuyPct = s.amount, s.amount, round6(s.amount/st.bar.Amount*100)
			}
			rows = append(rows, row)
		}
	}
	return rows, 1, nil
}

// round6 keeps six decimals: cents of a yuan sum without float noise,
// and percents as finely as anyone reads them.
func round6(v float64) float64 { return math.Round(v*1e6) / 1e6 }
