package upstream

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"mdqs/internal/market"
)

func newTestNews(t *testing.T, base string) (*EastMoneyNews, *CLSNews) {
	t.Helper()
	cfg := NewsConfig{EastMoney: testSource(base), Notices: testSource(base), CLS: testSource(base)}
	em, err := NewEastMoneyNews(cfg, NewLimiters(), market.NewFixedClock(testNow()))
	if err != nil {
		t.Fatal(err)
	}
	cls, err := NewCLSNews(cfg, NewLimiters(), market.NewFixedClock(testNow()))
	if err != nil {
		t.Fatal(err)
	}
	return em, cls
}

func shanghaiAt(s string) time.Time {
	t, err := market.ParseTime(s)
	if err != nil {
		panic(err)
	}
	return t
}

func checkItem(t *testing.T, got, want NewsItem) {
	t.Helper()
	if got.Feed != want.Feed || got.UID != want.UID || got.Type != want.Type || got.Title != want.Title ||
		got.Summary != want.Summary || got.Body != want.Body || got.URL != want.URL || !got.Published.Equal(want.Published) ||
		!slices.Equal(got.Tags, want.Tags) || !slices.Equal(got.Codes, want.Codes) {
		t.Errorf("item %s:\n got %+v\nwant %+v", want.UID, got, want)
	}
}

func TestEastMoneyFlashPages(t *testing.T) {
	srv, rec := stub(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			write(w, 200, jsonCT, fixture(t, "made_em_fastnews_page.json"))
			return
		}
		write(w, 200, jsonCT, fixture(t, "made_em_fastnews_end.json"))
	})
	em, _ := newTestNews(t, srv.URL)
	items, next, err := em.Flash(context.Background(), "", 50)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 2 || next != "1781590120015601" {
		t.Fatalf("%d items, next %q", len(items), next)
	}
	checkItem(t, items[0], NewsItem{Feed: "eastmoney", UID: "202606163772915624", Type: NewsFlash, Title: "中铝国际6月16日快速回调",
		Summary: "以下是中铝国际盘口异动快照。", Body: "以下是中铝国际盘口异动快照。", URL: "https://finance.eastmoney.com/a/202606163772915624.html",
		Tags: []string{}, Codes: []market.Code{market.MustCode("601068.SH")}, Published: shanghaiAt("2026-06-16 14:09:57")})
	// Boards become tags, a Hong Kong secid (116.) is dropped.
	checkItem(t, items[1], NewsItem{Feed: "eastmoney", UID: "202606163772915601", Type: NewsFlash, Title: "宁德时代：固态电池中试线投产",
		Summary: "宁德时代公告称，公司固态电池中试线已于近日投产。", Body: "宁德时代公告称，公司固态电池中试线已于近日投产。",
		URL: "https://finance.eastmoney.com/a/202606163772915601.html", Tags: []string{"BK1173"},
		Codes: []market.Code{market.MustCode("300750.SZ")}, Published: shanghaiAt("2026-06-16 14:08:40")})
	q := rec.req(0).URL.Query()
	if rec.req(0).URL.Path != "/comm/web/getFastNewsList" || q.Get("fastColumn") != "102" || q.Get("biz") != "web_724" ||
		q.Get("pageSize") != "50" || q.Get("sortEnd") != "" || q.Get("req_trace") == "" {
		t.Errorf("request %s", rec.req(0).URL)
	}
	// The next page asks before the cursor; data:null is the end.
	items, next, err = em.Flash(context.Background(), next, 50)
	if err != nil || len(items) != 0 || next != "" {
		t.Errorf("end page: %d items, next %q, %v", len(items), next, err)
	}
	if got := rec.req(1).URL.Query().Get("sortEnd"); got != "1781590120015601" {
		t.Errorf("second request sortEnd %q", got)
	}
}

// The one real item (its keys alphabetical, as the blog printed it), in
// the envelope the reference gives.
func TestEastMoneyFlashRealItem(t *testing.T) {
	item := fixture(t, "news_em_getFastNewsList_item_2025-04-15.json")
	body := append(append([]byte(`{"code":"1","message":"success","data":{"sortEnd":"1744706307082069","fastNewsList":[`), item...), "]}}"...)
	chk := &check{}
	items, next, err := decodeFastNews(body, chk)
	if err != nil || len(items) != 1 {
		t.Fatalf("%+v, %v", items, err)
	}
	checkItem(t, items[0], NewsItem{Feed: "eastmoney", UID: "202504153377382069", Type: NewsFlash, Title: "德国次日交付的基本负荷电力价格上涨32.3%",
		Summary: "德国次日交付的基本负荷电力价格上涨32.3%，至每兆瓦时88.0欧元。", Body: "德国次日交付的基本负荷电力价格上涨32.3%，至每兆瓦时88.0欧元。",
		URL: "https://finance.eastmoney.com/a/202504153377382069.html", Tags: []string{"BK0428"}, Codes: []market.Code{},
		Published: shanghaiAt("2025-04-15 16:38:27")})
	if next != "1744706307082069" || len(chk.drift) != 0 {
		t.Errorf("next %q, drift %v", next, chk.driftText())
	}
}

func TestNewsBrokenReplies(t *testing.T) {
	for _, tc := range []struct {
		name  string
		file  string
		call  func(em *EastMoneyNews, cls *CLSNews) error
		kind  Kind
		field string
	}{
		{"em code -1", "made_em_fastnews_code_error.json", emFlash, KindRC, ""},
		{"em showTime renamed", "made_em_fastnews_renamed_showtime.json", emFlash, KindSchema, "showTime"},
		{"em html", "made_nginx_502.html", emFlash, KindHTML, ""},
		{"em truncated", "made_push2_clist_industry_fundflow_2025-10-27_truncated.json", emFlash, KindTruncated, ""},
		{"notices success 0", "made_em_notices_failure.json", emNotices, KindRC, ""},
		{"notices given the flash shape", "made_em_fastnews_page.json", emNotices, KindSchema, "data.list"},
		{"cls errno 50101", "made_cls_errno_sign.json", clsFlash, KindRC, ""},
		{"cls given the flash shape", "made_em_fastnews_page.json", clsFlash, KindSchema, "errno"},
		{"cls python literal", "emappdata_hotrank_getAllCurrentList_top3_excerpt.pydict.txt", clsFlash, KindMalformed, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) {
				ct := jsonCT
				if strings.HasSuffix(tc.file, ".html") {
					ct = "text/html"
				}
				write(w, 200, ct, fixture(t, tc.file))
			})
			em, cls := newTestNews(t, srv.URL)
			wantErr(t, tc.call(em, cls), tc.kind, 0, tc.field)
		})
	}
}

func emFlash(em *EastMoneyNews, _ *CLSNews) error {
	_, _, err := em.Flash(context.Background(), "", 20)
	return err
}

func emNotices(em *EastMoneyNews, _ *CLSNews) error {
	_, err := em.Announcements(context.Background(), 1, 20)
	return err
}

func clsFlash(_ *EastMoneyNews, cls *CLSNews) error {
	_, _, err := cls.Flash(context.Background(), "", 20)
	return err
}

func TestEastMoneyAnnouncements(t *testing.T) {
	srv, rec := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		write(w, 200, jsonCT, fixture(t, "made_em_notices_page.json"))
	})
	em, _ := newTestNews(t, srv.URL)
	items, err := em.Announcements(context.Background(), 2, 30)
	if err != nil || len(items) != 2 {
		t.Fatalf("%+v, %v", items, err)
	}
	checkItem(t, items[0], NewsItem{Feed: "eastmoney_notice", UID: "AN202608141827994407", Type: NewsAnnouncement,
		Title: "贵州茅台:贵州茅台关于召开2026年半年度业绩说明会的公告", URL: "https://data.eastmoney.com/notices/detail/600519/AN202608141827994407.html",
		Tags: []string{"其他"}, Codes: []market.Code{market.MustCode("600519.SH")}, Published: shanghaiAt("2026-08-14 20:41:29")})
	checkItem(t, items[1], NewsItem{Feed: "eastmoney_notice", UID: "AN202604141821186970", Type: NewsAnnouncement,
		Title: "华数传媒:关于持股5%以上的股东减持计划期限届满暨实施情况的公告", URL: "https://data.eastmoney.com/notices/detail/000156/AN202604141821186970.html",
		Tags: []string{"股东/实际控制人股份减持"}, Codes: []market.Code{market.MustCode("000156.SZ")}, Published: shanghaiAt("2026-04-14 17:39:18")})
	q := rec.req(0).URL.Query()
	if rec.req(0).URL.Path != "/api/security/ann" || q.Get("page_index") != "2" || q.Get("page_size") != "30" || q.Get("ann_type") != "A" {
		t.Errorf("request %s", rec.req(0).URL)
	}
	if st := em.Status(); st.Calls != 1 || st.Requests != 1 || st.Failures != 0 {
		t.Errorf("status %+v", st)
	}
}

func TestCLSFlash(t *testing.T) {
	srv, rec := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		write(w, 200, jsonCT, fixture(t, "made_cls_telegraph.json"))
	})
	_, cls := newTestNews(t, srv.URL)
	items, next, err := cls.Flash(context.Background(), "", 20)
	if err != nil || len(items) != 2 {
		t.Fatalf("%+v, %v", items, err)
	}
	checkItem(t, items[0], NewsItem{Feed: "cls", UID: "2403172", Type: NewsFlash, Title: "钢铁板块异动拉升 抚顺特钢涨停",
		Summary: "财联社6月18日电，钢铁板块异动拉升，抚顺特钢涨停，西宁特钢跟涨。",
		Body:    "【钢铁板块异动拉升 抚顺特钢涨停】财联社6月18日电，钢铁板块异动拉升，抚顺特钢涨停，西宁特钢跟涨。",
		URL:     "https://api3.cls.cn/share/article/2403172", Tags: []string{"重点", "钢铁"},
		Codes: []market.Code{market.MustCode("600117.SH"), market.MustCode("600399.SH")}, Published: shanghaiAt("2026-06-18 09:55:15")})
	// No title: the 【headline】 of the content; markup stripped; no URL:
	// the detail page.
	checkItem(t, items[1], NewsItem{Feed: "cls", UID: "2403160", Type: NewsFlash, Title: "央行开展逆回购操作",
		Summary: "【央行开展逆回购操作】财联社6月18日电，央行今日开展1000亿元7天期逆回购操作", Body: "【央行开展逆回购操作】财联社6月18日电，央行今日开展1000亿元7天期逆回购操作。",
		URL: "https://www.cls.cn/detail/2403160", Tags: []string{}, Codes: []market.Code{}, Published: shanghaiAt("2026-06-18 09:50:00")})
	if next != "1781747400" {
		t.Errorf("next %q, want the oldest ctime", next)
	}
	q := rec.req(0).URL.Query()
	if rec.req(0).URL.Path != "/nodeapi/telegraphList" || q.Get("rn") != "20" || q.Get("lastTime") != "1783668600" ||
		q.Get("app") != "CailianpressWeb" {
		t.Errorf("request %s", rec.req(0).URL)
	}
	sign := q.Get("sign")
	q.Del("sign")
	if sign != clsSign(q.Encode()) || len(sign) != 32 {
		t.Errorf("sign %q does not cover the other parameters", sign)
	}
}

// A numeric string id is still an id (tolerant decoding), and a text with
// no headline gets its first sentence.
func TestCLSStringID(t *testing.T) {
	items, _, err := decodeCLS(fixture(t, "made_cls_string_id.json"), &check{})
	if err != nil || len(items) != 1 || items[0].UID != "2403172" || items[0].Title != "钢铁板块异动拉升" {
		t.Fatalf("%+v, %v", items, err)
	}
}

// The signature as a public write-up of the CLS web client computes it,
// with its published example.
func TestCLSSign(t *testing.T) {
	data := "app=CailianpressWeb&category=&lastTime=1672646359&last_time=1672646359&os=web&refresh_type=1&rn=20&sv=7.7.5"
	if got := clsSign(data); got != "5dd63d63e612d3a3746ef97e233aeb41" {
		t.Errorf("clsSign = %s", got)
	}
}

func TestHeadlines(t *testing.T) {
	for in, want := range map[string]string{
		"【央行开展逆回购操作】财联社电": "央行开展逆回购操作",
		"【unclosed":  "",
		"no bracket": "",
	} {
		if got := bracketHeadline(in); got != want {
			t.Errorf("bracketHeadline(%q) = %q, want %q", in, got, want)
		}
	}
	long := strings.Repeat("长", 70)
	if got := headline(long); got != strings.Repeat("长", 60)+"…" {
		t.Errorf("headline(70 runes) = %q", got)
	}
	if got := headline("第一句。第二句。"); got != "第一句" {
		t.Errorf("headline = %q", got)
	}
	if got := stripTags("a<br/>b<b>c</b> d"); got != "abc d" {
		t.Errorf("stripTags = %q", got)
	}
}

func TestSecidCode(t *testing.T) {
	for in, want := range map[string]string{"1.600519": "600519.SH", "0.000001": "000001.SZ", "0.920118": "920118.BJ", "0.300750": "300750.SZ"} {
		if c, ok := secidCode(in); !ok || c.String() != want {
			t.Errorf("secidCode(%q) = %v %v, want %s", in, c, ok, want)
		}
	}
	for _, in := range []string{"90.BK0428", "150.014238", "116.00700", "1.000001", "0.399001", "1.51030", "x"} {
		if c, ok := secidCode(in); ok {
			t.Errorf("secidCode(%q) = %v, want not a stock", in, c)
		}
	}
}

// Empty pages are the end of a feed, not failures.
func TestNewsEmptyPages(t *testing.T) {
	items, err := decodeNotices(fixture(t, "made_em_notices_empty.json"), &check{})
	if err != nil || items == nil || len(items) != 0 {
		t.Errorf("empty announcement page: %v, %v", items, err)
	}
	items, next, err := decodeCLS(fixture(t, "made_cls_empty.json"), &check{})
	if err != nil || items == nil || len(items) != 0 || next != "" {
		t.Errorf("empty telegraph page: %v %q, %v", items, next, err)
	}
	items, next, err = decodeFastNews(fixture(t, "made_em_fastnews_end.json"), &check{})
	if err != nil || items == nil || len(items) != 0 || next != "" {
		t.Errorf("fast news past the end: %v %q, %v", items, next, err)
	}
}
