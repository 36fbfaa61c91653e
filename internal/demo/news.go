package demo

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

// The demo's news feed: flash news through each day and announcements in
// the evening, as a pure function of the seed and the day. Flash items name
// the market's own stocks and boards; after the close, a summary and the
// day's limit-up stocks come from the demo's prices; on the day a stock's
// periodic report comes out (demo finance.go), its announcement does too.
// Items carry Feed "demo".

// FeedDemo is the demo news feed's name.
const FeedDemo = Source

// newsLookback bounds how far back one page of the feed looks.
const newsLookback = 60

var (
	// Templates of company flash news; %s is the company, %d a number.
	companyEvents = [...]string{
		"%s：拟回购不超过%d亿元公司股份",
		"%s：签订%d亿元重大销售合同",
		"%s：子公司中标%d亿元项目",
		"%s：获得%d项发明专利授权",
		"%s：控股股东拟增持不超过%d亿元",
		"%s：%d款新产品通过客户验证",
	}
	boardEvents = [...]string{
		"%s板块盘中活跃，资金关注度提升",
		"%s板块多股异动，成交额放大",
		"机构调研聚焦%s板块",
	}
	macroEvents = [...]string{
		"央行今日开展%d亿元7天期逆回购操作",
		"财政部将发行%d亿元超长期特别国债",
		"交易所：今日两市融资余额增加%d亿元",
	}
	noticeEvents = [...]string{
		"%s:关于股东减持计划实施进展的公告",
		"%s:关于召开临时股东大会的通知",
		"%s:关于获得政府补助的公告",
		"%s:关于回购股份进展情况的公告",
		"%s:董事会决议公告",
	}
)

// NewsPage is one page of the demo feed, newest first (then by id), up to
// the clock's now: the newest page when cursor is "", else the items after
// cursor (the previous page's next). next is "" when the page is the last
// one within newsLookback days.
func (m *Market) NewsPage(ctx context.Context, cursor string, size int) (items []upstream.NewsItem, next string, err error) {
	defer m.observe(m.clock.Now(), &err)
	if err := ctxErr(ctx); err != nil {
		return nil, "", err
	}
	size = min(max(size, 1), 200)
	now := m.clock.Now()
	after := func(upstream.NewsItem) bool { return true }
	start := market.DayOf(now)
	if cursor != "" {
		sec, uid, ok := strings.Cut(cursor, ":")
		ts, perr := strconv.ParseInt(sec, 10, 64)
		if !ok || perr != nil || ts <= 0 {
			return nil, "", market.Errorf(market.KindInvalid, "demo news cursor %q", cursor)
		}
		after = func(it upstream.NewsItem) bool {
			return it.Published.Unix() < ts || it.Published.Unix() == ts && it.UID < uid
		}
		start = market.DayOf(time.Unix(ts, 0))
	}
	items = []upstream.NewsItem{}
	for d, n := start, 0; n < newsLookback && len(items) < size; d, n = d.AddDays(-1), n+1 {
		if err := ctxErr(ctx); err != nil {
			return nil, "", err
		}
		for _, it := range m.newsOfDay(d) {
			if !it.Published.After(now) && after(it) {
				items = append(items, it)
				if len(items) == size {
					break
				}
			}
		}
	}
	if len(items) == size {
		last := items[len(items)-1]
		next = strconv.FormatInt(last.Published.Unix(), 10) + ":" + last.UID
	}
	return items, next, nil
}

// newsOfDay is a day's items, newest first.
func (m *Market) newsOfDay(d market.Day) []upstream.NewsItem {
	if !validDay(d) || d < m.days[0] || d > m.days[len(m.days)-1] {
		return nil
	}
	ns := newStream(hash2(m.seed, tagNews), uint64(d))
	var out []upstream.NewsItem
	_, trading := m.index(d)
	add := func(kind string, i int, at time.Time, typ int, title, body string, codes []market.Code, tags ...string) {
		uid := fmt.Sprintf("%s-%s%03d", d.Compact(), kind, i)
		if codes == nil {
			codes = []market.Code{}
		}
		if tags == nil {
			tags = []string{}
		}
		out = append(out, upstream.NewsItem{Feed: FeedDemo, UID: uid, Type: typ, Title: title, Summary: body, Body: body,
			URL: "https://example.com/mdqs-demo/news/" + uid, Tags: tags, Codes: codes, Published: at})
	}
	// Flash news every 20 minutes 08:00-20:00 on trading days, every two
	// hours otherwise.
	step, count := 20, 37
	if !trading {
		step, count = 120, 7
	}
	for i := 0; i < count; i++ {
		at := d.At(8, 0, 0).Add(time.Duration(i*step)*time.Minute + time.Duration(ns.intn(50))*time.Second)
		switch r := ns.intn(10); {
		case r < 6:
			s := &m.u.stocks[ns.intn(len(m.u.stocks))]
			if s.listed > d {
				continue
			}
			title := fmt.Sprintf(companyEvents[ns.intn(len(companyEvents))], s.name, 1+ns.intn(20))
			add("F", i, at, upstream.NewsFlash, title, title+"。详见公司公告。", []market.Code{s.code}, m.u.industries[s.ind].name)
		case r < 9:
			bs := m.u.concepts
			if ns.intn(2) == 0 {
				bs = m.u.industries
			}
			b := bs[ns.intn(len(bs))]
			title := fmt.Sprintf(boardEvents[ns.intn(len(boardEvents))], b.name)
			var codes []market.Code
			for k := 0; k < 3 && k < len(b.members); k++ {
				if s := &m.u.stocks[b.members[ns.intn(len(b.members))]]; s.listed <= d {
					codes = appendCodeOnce(codes, s.code)
				}
			}
			add("F", i, at, upstream.NewsFlash, title, title+"。", codes, b.name)
		default:
			title := fmt.Sprintf(macroEvents[ns.intn(len(macroEvents))], 50*(1+ns.intn(40)))
			add("F", i, at, upstream.NewsFlash, title, title+"。", nil, "宏观")
		}
	}
	if trading {
		m.closeNews(d, add)
		// Company announcements in the evening.
		for i := 0; i < 8; i++ {
			s := &m.u.stocks[ns.intn(len(m.u.stocks))]
			if s.listed > d {
				continue
			}
			at := d.At(17, 0, 0).Add(time.Duration(ns.intn(5*3600)) * time.Second)
			title := fmt.Sprintf(noticeEvents[ns.intn(len(noticeEvents))], s.name)
			add("A", i, at, upstream.NewsAnnouncement, title, "", []market.Code{s.code}, "公司公告")
		}
	}
	for i, rn := range m.reportsOutOn(d) {
		s := &m.u.stocks[rn.si]
		at := d.At(16, 0, 0).Add(time.Duration(ns.intn(6*3600)) * time.Second)
		add("R", i, at, upstream.NewsAnnouncement, s.name+":"+reportTitle(rn.period), "", []market.Code{s.code}, "定期报告")
	}
	slices.SortFunc(out, func(a, b upstream.NewsItem) int {
		if c := b.Published.Compare(a.Published); c != 0 {
			return c
		}
		return cmp.Compare(b.UID, a.UID)
	})
	return out
}

// closeNews adds the close summary and the limit-up stocks of a trading
// day, from the day's closes.
func (m *Market) closeNews(d market.Day, add func(kind string, i int, at time.Time, typ int, title, body string, codes []market.Code, tags ...string)) {
	i, ok := m.index(d)
	if !ok {
		return
	}
	ds := m.dayState(i)
	pct := make([]float64, m.nBoards())
	m.boardPct(ds.prev, ds.close, pct)
	best := 0
	for b := 1; b < m.nInd; b++ {
		if pct[b] > pct[best] {
			best = b
		}
	}
	var limitUp []int
	for si := range m.u.stocks {
		if p := ds.prev[si]; p > 0 {
			if _, hi := limits(p, m.u.stocks[si].limit); ds.close[si] >= hi {
				limitUp = append(limitUp, si)
			}
		}
	}
	ind := m.u.industries[best]
	title := fmt.Sprintf("收评：%s板块领涨%.2f%%，%d只个股涨停", ind.name, pct[best], len(limitUp))
	var codes []market.Code
	for _, si := range limitUp[:min(3, len(limitUp))] {
		codes = append(codes, m.u.stocks[si].code)
	}
	add("C", 0, d.At(15, 5, 0), upstream.NewsFlash, title, title+"。", codes, ind.name, "收评")
	for k, si := range limitUp[:min(3, len(limitUp))] {
		s := &m.u.stocks[si]
		t := fmt.Sprintf("%s涨停，收报%.2f元", s.name, float64(ds.close[si])/100)
		add("C", k+1, d.At(15, 10, k), upstream.NewsFlash, t, t+"。", []market.Code{s.code}, m.u.industries[s.ind].name)
	}
}

func reportTitle(period market.Day) string {
	y := period.Year()
	switch period.Month() {
	case 3:
		return fmt.Sprintf("%d年第一季度报告", y)
	case 6:
		return fmt.Sprintf("%d年半年度报告", y)
	case 9:
		return fmt.Sprintf("%d年第三季度报告", y)
	}
	return fmt.Sprintf("%d年年度报告", y)
}

func appendCodeOnce(list []market.Code, c market.Code) []market.Code {
	if slices.Contains(list, c) {
		return list
	}
	return append(list, c)
}
