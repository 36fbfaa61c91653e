package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"mdqs/internal/market"
)

func newTestHotRank(t *testing.T, base string) *HotRank {
	t.Helper()
	cfg := HotRankConfig{SourceConfig: testSource(base), Names: testSource(base)}
	c, err := NewHotRank(cfg, NewLimiters(), market.NewFixedClock(testNow()))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// hotRankServer answers the list POST with list(n) and the names GET with
// names(n), n counting each path's requests from 1. The POST bodies go to
// posts when one is given.
func hotRankServer(t *testing.T, list, names func(w http.ResponseWriter, n int), posts ...*postLog) (*HotRank, *recorder) {
	t.Helper()
	var nl, nn int
	var mu sync.Mutex // the handler runs on the server's goroutines
	srv, rec := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		mu.Lock()
		defer mu.Unlock()
		switch r.URL.Path {
		case "/stockrank/getAllCurrentList":
			nl++
			b, _ := io.ReadAll(r.Body)
			if len(posts) > 0 {
				posts[0].add(b)
			}
			list(w, nl)
		case "/api/qt/ulist.np/get":
			nn++
			names(w, nn)
		default:
			http.NotFound(w, r)
		}
	})
	return newTestHotRank(t, srv.URL), rec
}

// postLog keeps request bodies, which the server reads on its goroutines.
type postLog struct {
	mu     sync.Mutex
	bodies [][]byte
}

func (p *postLog) add(b []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.bodies = append(p.bodies, b)
}

func (p *postLog) body(i int) []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.bodies[i]
}

func serve(name string) func(t *testing.T) func(w http.ResponseWriter, n int) {
	return func(t *testing.T) func(w http.ResponseWriter, n int) {
		return func(w http.ResponseWriter, _ int) { write(w, 200, jsonCT, fixture(t, name)) }
	}
}

func TestHotRankPage(t *testing.T) {
	posts := &postLog{}
	c, rec := hotRankServer(t, serve("made_emappdata_hotrank_p1.json")(t), serve("made_push2_ulist_hotrank_names.json")(t), posts)
	p, err := c.Page(context.Background(), 1, 100)
	if err != nil {
		t.Fatal(err)
	}
	want := []HotRankRow{
		{market.MustCode("600127.SH"), "金健米业", 1},
		{market.MustCode("003040.SZ"), "楚天龙", 2},
		{market.MustCode("601086.SH"), "国芳集团", 3},
		{market.MustCode("871245.BJ"), "威博液压", 4}, // listed as SZ871245 upstream
		{market.MustCode("300750.SZ"), "宁德时代", 5},
		{market.MustCode("688981.SH"), "中芯国际", 6},
	}
	if len(p.Rows) != len(want) {
		t.Fatalf("rows %+v, want %d", p.Rows, len(want))
	}
	for i := range want {
		if p.Rows[i] != want[i] {
			t.Errorf("row %d = %+v, want %+v", i, p.Rows[i], want[i])
		}
	}
	if p.Page != 1 || p.Size != 100 || !p.At.Equal(testNow()) {
		t.Errorf("page %d size %d at %v", p.Page, p.Size, p.At)
	}
	// The list is a POST with the akshare body; the names a GET by secid.
	post := rec.req(0)
	var body hotRankBody
	b := posts.body(0)
	if post.Method != http.MethodPost || json.Unmarshal(b, &body) != nil ||
		body != (hotRankBody{AppID: "appId01", GlobalID: "786e4c21-70dc-435a-93bb-38", PageNo: 1, PageSize: 100}) {
		t.Errorf("list request %s %s %q", post.Method, post.URL, b)
	}
	if !bytes.HasPrefix(b, []byte(`{"appId":"appId01","globalId":`)) || !strings.Contains(string(b), `"marketType":""`) {
		t.Errorf("body %s: want the web page's key order and an empty marketType", b)
	}
	if ct := post.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") || post.Header.Get("Referer") != hotRankReferer {
		t.Errorf("list headers %v", post.Header)
	}
	get := rec.req(1)
	if get.Method != http.MethodGet || get.URL.Query().Get("secids") != "1.600127,0.003040,1.601086,0.871245,0.300750,1.688981" ||
		get.URL.Query().Get("fields") != "f12,f13,f14" {
		t.Errorf("names request %s %s", get.Method, get.URL)
	}
	if st := c.Status(); st.Calls != 1 || st.Requests != 2 || st.Failures != 0 || st.Drift != "" {
		t.Errorf("status %+v", st)
	}
}

// The real three-row excerpt (json.dumps of a measured reply) and the real
// single row, wrapped in that envelope, decode by key.
func TestHotRankRealCaptures(t *testing.T) {
	chk := &check{}
	rows, err := decodeHotRank(fixture(t, "emappdata_hotrank_getAllCurrentList_top3_excerpt.json"), chk)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || rows[0].Code != market.MustCode("600127.SH") || rows[1].Code != market.MustCode("003040.SZ") ||
		rows[2].Rank != 3 || rows[2].Code != market.MustCode("601086.SH") {
		t.Errorf("rows %+v", rows)
	}
	row := fixture(t, "emappdata_hotrank_getAllCurrentList_row_2026-10-03.json")
	body := append(append([]byte(`{"code":0,"message":"OK","data":[`), row...), `]}`...)
	rows, err = decodeHotRank(body, chk)
	if err != nil || len(rows) != 1 || rows[0] != (HotRankRow{Code: market.MustCode("601127.SH"), Rank: 1}) {
		t.Errorf("row capture: %+v, %v", rows, err)
	}
	// The Python literal of the same excerpt has trailing commas: broken,
	// not cut short.
	_, err = decodeHotRank(fixture(t, "emappdata_hotrank_getAllCurrentList_top3_excerpt.pydict.txt"), chk)
	wantErr(t, err, KindMalformed, 0, "")
	if chk.err != nil || len(chk.drift) != 0 {
		t.Errorf("check %+v", chk)
	}
}

func TestHotRankEmptyAndEnd(t *testing.T) {
	c, rec := hotRankServer(t, serve("made_emappdata_hotrank_empty.json")(t), serve("made_push2_ulist_hotrank_names.json")(t))
	// Page 1 empty: the list always has rows, so this is a failure...
	_, err := c.Page(context.Background(), 1, 100)
	wantErr(t, err, KindEmpty, 1, "")
	// ...while an empty page 2 is the end of the list (the upstream's
	// known quirk), with no name lookup.
	p, err := c.Page(context.Background(), 2, 100)
	if err != nil || len(p.Rows) != 0 || p.Page != 2 {
		t.Fatalf("page 2: %+v, %v", p, err)
	}
	if rec.count() != 2 {
		t.Errorf("requests = %d, want 2 (no name lookups for empty pages)", rec.count())
	}
}

func TestHotRankBrokenReplies(t *testing.T) {
	for _, tc := range []struct {
		name     string
		list     string
		names    string
		kind     Kind
		field    string
		requests int
	}{
		{"status -1", "made_emappdata_hotrank_status_error.json", "", KindRC, "", 1},
		{"sc renamed", "made_emappdata_hotrank_renamed_sc.json", "", KindSchema, "sc", 1},
		{"fractional rank", "made_emappdata_hotrank_bad_rk.json", "", KindSchema, "rk", 1},
		{"truncated, retried", "made_emappdata_hotrank_p1_truncated.json", "", KindTruncated, "", 3},
		{"names rc error", "made_emappdata_hotrank_p1.json", "made_push2_clist_rc102.json", KindRC, "", 2},
		{"names null", "made_emappdata_hotrank_p1.json", "made_push2_clist_data_null.json", KindEmpty, "", 2},
		{"names html", "made_emappdata_hotrank_p1.json", "made_nginx_502.html", KindHTML, "", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			names := func(w http.ResponseWriter, _ int) {
				if strings.HasSuffix(tc.names, ".html") {
					write(w, 200, "text/html", fixture(t, tc.names))
					return
				}
				write(w, 200, jsonCT, fixture(t, tc.names))
			}
			c, rec := hotRankServer(t, serve(tc.list)(t), names)
			p, err := c.Page(context.Background(), 1, 100)
			wantErr(t, err, tc.kind, 0, tc.field)
			if len(p.Rows) != 0 {
				t.Errorf("a failed page returned rows %+v", p.Rows)
			}
			if rec.count() != tc.requests {
				t.Errorf("requests = %d, want %d", rec.count(), tc.requests)
			}
			if st := c.Status(); st.Failures != 1 || st.LastErrorKind != tc.kind {
				t.Errorf("status %+v", st)
			}
		})
	}
}

func TestHotRankMissingNameIsDrift(t *testing.T) {
	c, _ := hotRankServer(t, serve("made_emappdata_hotrank_p1.json")(t), serve("made_push2_ulist_hotrank_names_missing_bj.json")(t))
	p, err := c.Page(context.Background(), 1, 100)
	if err != nil {
		t.Fatal(err)
	}
	if p.Rows[3].Code != market.MustCode("871245.BJ") || p.Rows[3].Name != "" || p.Rows[4].Name != "宁德时代" {
		t.Errorf("rows %+v", p.Rows)
	}
	if st := c.Status(); !strings.Contains(st.Drift, "f14 missing for a listed code in 1 rows") {
		t.Errorf("drift %q", st.Drift)
	}
}

func TestHotRankRefusesBadPaging(t *testing.T) {
	c := newTestHotRank(t, "http://127.0.0.1:1")
	for _, tc := range [][2]int{{0, 10}, {1, 0}, {1, 101}} {
		if _, err := c.Page(context.Background(), tc[0], tc[1]); market.KindOf(err) != market.KindInvalid {
			t.Errorf("Page(%d, %d) = %v, want invalid", tc[0], tc[1], err)
		}
	}
}

func TestHotRankCode(t *testing.T) {
	for in, want := range map[string]string{
		"SH600519": "600519.SH", "sz000001": "000001.SZ", "SZ871245": "871245.BJ", "SZ920118": "920118.BJ",
		"BJ430047": "430047.BJ", "SZ300750": "300750.SZ",
	} {
		got, err := hotRankCode(in)
		if err != nil || got.String() != want {
			t.Errorf("hotRankCode(%q) = %v, %v; want %s", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "600519", "1.600519", "SH60051", "HK000700", "SHABCDEF"} {
		if _, err := hotRankCode(bad); err == nil {
			t.Errorf("hotRankCode(%q) accepted", bad)
		}
	}
}

func TestHotRankDefaults(t *testing.T) {
	d := DefaultHotRankConfig()
	if d.BaseURL != "https://emappdata.eastmoney.com" || d.Names.BaseURL != "https://push2.eastmoney.com" || d.Rate != 2 {
		t.Errorf("defaults %+v", d)
	}
}

// A POST that is retried sends its whole body again on every attempt.
func TestHotRankRetryResendsBody(t *testing.T) {
	posts := &postLog{}
	c, _ := hotRankServer(t, func(w http.ResponseWriter, n int) {
		if n < 3 {
			write(w, 503, "text/plain", []byte("busy"))
			return
		}
		write(w, 200, jsonCT, fixture(t, "made_emappdata_hotrank_p1.json"))
	}, serve("made_push2_ulist_hotrank_names.json")(t), posts)
	p, err := c.Page(context.Background(), 1, 50)
	if err != nil || len(p.Rows) != 6 {
		t.Fatalf("Page after two 503s: %d rows, %v", len(p.Rows), err)
	}
	for i := 0; i < 3; i++ {
		if b := posts.body(i); !bytes.Equal(b, posts.body(0)) || !bytes.Contains(b, []byte(`"pageNo":1,"pageSize":50`)) {
			t.Errorf("attempt %d sent %q", i+1, b)
		}
	}
}
