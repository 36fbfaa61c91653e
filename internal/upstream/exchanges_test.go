package upstream

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"mdqs/internal/market"
)

// exchangesServer serves both exchanges from one httptest server: SZSE's
// report pages by PAGENO, SSE's query pages by STOCK_TYPE and pageNo.
// Each handler gets the request; nil answers 404.
type exchangePages struct {
	szse func(w http.ResponseWriter, r *http.Request)
	sse  func(w http.ResponseWriter, r *http.Request)
}

func newTestExchanges(t *testing.T, pages exchangePages) (*Exchanges, *recorder) {
	t.Helper()
	var mu sync.Mutex
	srv, rec := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case r.URL.Path == "/api/report/ShowReport/data" && pages.szse != nil:
			pages.szse(w, r)
		case r.URL.Path == "/commonQuery.do" && pages.sse != nil:
			// What SSE does to a request without its Referer.
			if r.Header.Get("Referer") != "https://www.sse.com.cn/" {
				write(w, 403, "text/html", fixture(t, "made_nginx_502.html"))
				return
			}
			pages.sse(w, r)
		default:
			http.NotFound(w, r)
		}
	})
	c, err := NewExchanges(ExchangesConfig{SZSE: testSource(srv.URL), SSE: testSource(srv.URL)}, NewLimiters(), market.NewFixedClock(testNow()))
	if err != nil {
		t.Fatal(err)
	}
	return c, rec
}

func szsePage(t *testing.T, prefix string) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		write(w, 200, jsonCT, fixture(t, prefix+r.URL.Query().Get("PAGENO")+".json"))
	}
}

// sseServe serves made_sse_delisted_type<STOCK_TYPE>_p<pageNo>.json, and
// the empty page for a board named in empty.
func sseServe(t *testing.T, empty ...string) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		typ := q.Get("STOCK_TYPE")
		for _, e := range empty {
			if e == typ {
				write(w, 200, jsonCT, fixture(t, "made_sse_delisted_type8_empty.json"))
				return
			}
		}
		write(w, 200, jsonCT, fixture(t, "made_sse_delisted_type"+typ+"_p"+q.Get("pageHelp.pageNo")+".json"))
	}
}

func TestSZSEDelistedWalksEveryPage(t *testing.T) {
	c, rec := newTestExchanges(t, exchangePages{szse: szsePage(t, "made_szse_delisted_p")})
	rows, err := c.DelistedFrom(context.Background(), SourceSZSE)
	if err != nil {
		t.Fatal(err)
	}
	want := []Delisting{
		{Code: market.MustCode("000003.SZ"), Name: "PT金田Ａ", Listed: 19910703, Delisted: 20020614, Source: "szse"},
		// The cell's link and <u> are stripped, &amp; unescaped.
		{Code: market.MustCode("000013.SZ"), Name: "*ST石&化A", Listed: 19920506, Delisted: 20040920, Source: "szse"},
		// "-" is an unknown listing day, not a failure.
		{Code: market.MustCode("000015.SZ"), Name: "PT中浩Ａ", Listed: 0, Delisted: 20011022, Source: "szse"},
	}
	if len(rows) != len(want) {
		t.Fatalf("rows %+v, want %d", rows, len(want))
	}
	for i := range want {
		if rows[i] != want[i] {
			t.Errorf("row %d = %+v, want %+v", i, rows[i], want[i])
		}
	}
	if rec.count() != 2 {
		t.Fatalf("requests = %d, want 2 (pagecount 2)", rec.count())
	}
	for i := range 2 {
		r := rec.req(i)
		q := r.URL.Query()
		if q.Get("SHOWTYPE") != "JSON" || q.Get("CATALOGID") != "1793_ssgs" || q.Get("TABKEY") != "tab2" ||
			q.Get("PAGENO") != []string{"1", "2"}[i] || q.Get("random") == "" {
			t.Errorf("request %d: %s", i, r.URL)
		}
		if r.Header.Get("Referer") != szseReferer || !strings.Contains(r.Header.Get("User-Agent"), "Chrome") {
			t.Errorf("request %d headers %v", i, r.Header)
		}
	}
	if st := c.Statuses()[0]; st.Source != "szse" || st.Calls != 1 || st.Requests != 2 || st.Failures != 0 || st.Drift != "" {
		t.Errorf("status %+v", st)
	}
}

func TestSSEDelistedWalksBothBoards(t *testing.T) {
	c, rec := newTestExchanges(t, exchangePages{sse: sseServe(t)})
	rows, err := c.DelistedFrom(context.Background(), SourceSSE)
	if err != nil {
		t.Fatal(err)
	}
	want := []Delisting{
		{Code: market.MustCode("600001.SH"), Name: "邯郸钢铁", Listed: 19980122, Delisted: 20091229, Source: "sse"},
		{Code: market.MustCode("600002.SH"), Name: "齐鲁石化", Listed: 19980408, Delisted: 20060424, Source: "sse"},
		{Code: market.MustCode("600003.SH"), Name: "ST东北高", Listed: 19990810, Delisted: 0, Source: "sse"},
		{Code: market.MustCode("688086.SH"), Name: "退市紫晶", Listed: 20200226, Delisted: 20230908, Source: "sse"},
	}
	if len(rows) != len(want) {
		t.Fatalf("rows %+v, want %d", rows, len(want))
	}
	for i := range want {
		if rows[i] != want[i] {
			t.Errorf("row %d = %+v, want %+v", i, rows[i], want[i])
		}
	}
	// Board 1 has two pages, board 8 one.
	if rec.count() != 3 {
		t.Fatalf("requests = %d, want 3", rec.count())
	}
	for i, w := range [][2]string{{"1", "1"}, {"1", "2"}, {"8", "1"}} {
		q := rec.req(i).URL.Query()
		if q.Get("sqlId") != "COMMON_SSE_CP_GPJCTPZ_GPLB_ZZGP_L" || q.Get("COMPANY_STATUS") != "3" || q.Get("STOCK_TYPE") != w[0] ||
			q.Get("pageHelp.pageNo") != w[1] || q.Get("pageHelp.beginPage") != w[1] || q.Get("pageHelp.pageSize") != "500" ||
			q.Get("isPagination") != "true" || q.Get("type") != "inParams" {
			t.Errorf("request %d: %s", i, rec.req(i).URL)
		}
	}
}

// Rows only under pageHelp.data, keyed A_STOCK_CODE, no pageCount: the
// other shape public parsers read.
func TestSSEDelistedPageHelpShape(t *testing.T) {
	chk := &check{}
	p, err := decodeSSEDelisted(fixture(t, "made_sse_delisted_pagehelp_only.json"), chk)
	if err != nil {
		t.Fatal(err)
	}
	if p.pages != 1 || p.records != 1 || len(p.rows) != 1 ||
		p.rows[0] != (Delisting{Code: market.MustCode("600001.SH"), Name: "邯郸钢铁", Listed: 19980122, Delisted: 20091229, Source: "sse"}) {
		t.Errorf("page %+v", p)
	}
	// JSONP, as SSE answers when a callback is named, reads alike.
	body := append(append([]byte("jsonpCallback12345("), fixture(t, "made_sse_delisted_type8_p1.json")...), ')')
	p, err = decodeSSEDelisted(body, chk)
	if err != nil || len(p.rows) != 1 || p.rows[0].Code != market.MustCode("688086.SH") {
		t.Errorf("JSONP page %+v, %v", p, err)
	}
}

func TestSSEDelistedBoardWithoutRows(t *testing.T) {
	c, _ := newTestExchanges(t, exchangePages{sse: sseServe(t, "8")})
	rows, err := c.DelistedFrom(context.Background(), SourceSSE)
	if err != nil || len(rows) != 3 {
		t.Fatalf("an empty STAR list is no failure: %d rows, %v", len(rows), err)
	}
	c, _ = newTestExchanges(t, exchangePages{sse: sseServe(t, "1", "8")})
	_, err = c.DelistedFrom(context.Background(), SourceSSE)
	if e := wantErr(t, err, KindEmpty, 0, ""); e.Source != "sse" {
		t.Errorf("error %v does not name sse", err)
	}
}

func TestDelistedMalformedReplies(t *testing.T) {
	for _, tc := range []struct {
		name, source, body string
		kind               Kind
		field              string
		requests           int
	}{
		{"szse renamed zzrq", SourceSZSE, "made_szse_delisted_renamed_zzrq.json", KindSchema, "zzrq", 1},
		{"szse date of another shape", SourceSZSE, "made_szse_delisted_bad_date.json", KindSchema, "zzrq", 1},
		{"szse code as a number", SourceSZSE, "made_szse_delisted_numeric_code.json", KindSchema, "zqdm", 1},
		{"szse absurd page count", SourceSZSE, "made_szse_delisted_pagecount_absurd.json", KindSchema, "pagecount", 1},
		{"szse without its tab2 report", SourceSZSE, "made_szse_delisted_tab1_only.json", KindSchema, "metadata.tabkey", 1},
		{"szse object, not an array", SourceSZSE, "made_szse_delisted_object.json", KindSchema, "(top level)", 1},
		{"szse HTML page", SourceSZSE, "made_nginx_502.html", KindHTML, "", 1},
		{"szse truncated", SourceSZSE, "made_szse_delisted_p1.json#cut", KindTruncated, "", 3},
		{"sse renamed DELIST_DATE", SourceSSE, "made_sse_delisted_renamed_delist_date.json", KindSchema, "DELIST_DATE", 1},
		{"sse success false", SourceSSE, "made_sse_delisted_success_false.json", KindRC, "", 1},
		{"sse not JSON", SourceSSE, "made_aktools_500.txt", KindMalformed, "", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := func(w http.ResponseWriter, _ *http.Request) {
				name, cut := strings.CutSuffix(tc.body, "#cut")
				b := fixture(t, name)
				if cut {
					b = b[:len(b)/2]
				}
				ct := jsonCT
				if strings.HasSuffix(name, ".html") {
					ct = "text/html"
				}
				write(w, 200, ct, b)
			}
			c, rec := newTestExchanges(t, exchangePages{szse: body, sse: body})
			rows, err := c.DelistedFrom(context.Background(), tc.source)
			e := wantErr(t, err, tc.kind, 0, tc.field)
			if e.Source != tc.source || !strings.Contains(err.Error(), tc.source) {
				t.Errorf("error %q does not name %s", err, tc.source)
			}
			if len(rows) != 0 {
				t.Errorf("a failed list returned rows %+v", rows)
			}
			if rec.count() != tc.requests {
				t.Errorf("requests = %d, want %d", rec.count(), tc.requests)
			}
		})
	}
}

// A list that changes under the walk (fewer rows than announced, or a page
// past the first empty) is refused whole: the caller replaces its copy.
func TestDelistedPartialWalkIsRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		page func(t *testing.T) func(w http.ResponseWriter, r *http.Request)
	}{
		{"page 2 empty", func(t *testing.T) func(w http.ResponseWriter, r *http.Request) {
			return func(w http.ResponseWriter, r *http.Request) {
				name := "made_szse_delisted_p1.json"
				if r.URL.Query().Get("PAGENO") == "2" {
					name = "made_szse_delisted_p2_empty.json"
				}
				write(w, 200, jsonCT, fixture(t, name))
			}
		}},
		{"page 2 is page 1 again, one row short", func(t *testing.T) func(w http.ResponseWriter, r *http.Request) {
			return func(w http.ResponseWriter, r *http.Request) {
				b := string(fixture(t, "made_szse_delisted_p1.json"))
				write(w, 200, jsonCT, []byte(strings.Replace(b, `"recordcount":3`, `"recordcount":5`, 1)))
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := newTestExchanges(t, exchangePages{szse: tc.page(t)})
			rows, err := c.DelistedFrom(context.Background(), SourceSZSE)
			wantErr(t, err, KindPartial, 0, "")
			if len(rows) != 0 {
				t.Errorf("rows %+v", rows)
			}
		})
	}
}

func TestDelistedRepeatedCodeIsDrift(t *testing.T) {
	c, _ := newTestExchanges(t, exchangePages{szse: func(w http.ResponseWriter, r *http.Request) {
		// Page 2 repeats page 1: the same two codes again, and a third.
		b := string(fixture(t, "made_szse_delisted_p1.json"))
		b = strings.Replace(b, `"recordcount":3`, `"recordcount":4`, 1)
		write(w, 200, jsonCT, []byte(b))
	}})
	rows, err := c.DelistedFrom(context.Background(), SourceSZSE)
	if err != nil || len(rows) != 2 || rows[0].Code.Symbol != "000003" || rows[1].Code.Symbol != "000013" {
		t.Fatalf("rows %+v, %v", rows, err)
	}
	if st := c.Statuses()[0]; !strings.Contains(st.Drift, "2 repeated codes") {
		t.Errorf("drift %q", st.Drift)
	}
}

// Delisted gives the rows of the lists that answered and the errors of
// the others, each naming its source.
func TestDelistedBothSources(t *testing.T) {
	c, _ := newTestExchanges(t, exchangePages{szse: szsePage(t, "made_szse_delisted_p"), sse: sseServe(t)})
	rows, err := c.Delisted(context.Background())
	if err != nil || len(rows) != 7 || rows[0].Source != "szse" || rows[6].Source != "sse" {
		t.Fatalf("%d rows, %v", len(rows), err)
	}
	c, _ = newTestExchanges(t, exchangePages{sse: sseServe(t)}) // SZSE answers 404
	rows, err = c.Delisted(context.Background())
	wantErr(t, err, KindHTTPStatus, 0, "")
	if len(rows) != 4 || !strings.Contains(err.Error(), "upstream szse") {
		t.Errorf("%d rows, %v", len(rows), err)
	}
	if _, err := c.DelistedFrom(context.Background(), "bse"); market.KindOf(err) != market.KindInvalid {
		t.Errorf("DelistedFrom(bse) = %v, want invalid", err)
	}
}

func TestListText(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want string
		st   state
	}{
		{`"PT金田Ａ"`, "PT金田Ａ", ok},
		{`"<a href='/x?code=000001' target='_blank'><u>平安银行</u></a>"`, "平安银行", ok},
		{`"  S&amp;T\u00a0 公司 "`, "S&T 公司", ok},
		{`"-"`, "", na},
		{`"<u></u>"`, "", na},
		{`null`, "", na},
		{``, "", absent},
		{`600001`, "", bad},
	} {
		got, st := listText([]byte(tc.raw))
		if got != tc.want || st != tc.st {
			t.Errorf("listText(%s) = %q, %d; want %q, %d", tc.raw, got, st, tc.want, tc.st)
		}
	}
}

func TestExchangesDefaults(t *testing.T) {
	d := DefaultExchangesConfig()
	if d.SZSE.BaseURL != "https://www.szse.cn" || d.SSE.BaseURL != "https://query.sse.com.cn" || d.MaxPages != 100 || d.SSE.Rate != 1 {
		t.Errorf("defaults %+v", d)
	}
	c, err := NewExchanges(ExchangesConfig{}, NewLimiters(), nil)
	if err != nil || c.cfg.SZSE.Timeout != d.SZSE.Timeout || c.cfg.SSE.BreakerFailures != 5 {
		t.Errorf("zero config: %+v, %v", c, err)
	}
}
