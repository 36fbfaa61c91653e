package upstream

import (
	"bytes"
	"compress/gzip"
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"mdqs/internal/market"
)

func checkSector(t *testing.T, got, want market.Sector) {
	t.Helper()
	if got.Code != want.Code || got.Name != want.Name || got.LeaderCode != want.LeaderCode || got.LeaderName != want.LeaderName ||
		got.Up != want.Up || got.Down != want.Down || got.Flat != want.Flat {
		t.Errorf("sector %s: got %+v\nwant %+v", want.Code, got, want)
	}
	for _, f := range []struct {
		n    string
		g, w float64
	}{
		{"Price", got.Price, want.Price}, {"Pct", got.Pct, want.Pct}, {"Amount", got.Amount, want.Amount},
		{"Turnover", got.Turnover, want.Turnover}, {"MainNet", got.MainNet, want.MainNet},
		{"MainNetRatio", got.MainNetRatio, want.MainNetRatio}, {"LeaderPct", got.LeaderPct, want.LeaderPct},
	} {
		checkF(t, want.Code+" "+f.n, f.g, f.w)
	}
}

func TestSectorsMultiPage(t *testing.T) {
	srv, rec := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		pn := r.URL.Query().Get("pn")
		write(w, 200, jsonCT, fixture(t, "made_push2_clist_industry_sectors_p"+pn+".json"))
	})
	c := newTestPush2(t, srv.URL, 2)
	snap, err := c.Sectors(context.Background(), market.Industry)
	if err != nil {
		t.Fatal(err)
	}
	if rec.count() != 3 {
		t.Fatalf("requests = %d, want 3 (pages 1..3)", rec.count())
	}
	for i := 0; i < 3; i++ {
		r := rec.req(i)
		q := r.URL.Query()
		if r.URL.Path != "/api/qt/clist/get" || q.Get("pn") != strconv.Itoa(i+1) || q.Get("pz") != "2" ||
			q.Get("fs") != "m:90 t:2 f:!50" || q.Get("fid") != "f12" || q.Get("np") != "1" || q.Get("fltt") != "2" ||
			q.Get("fields") != sectorFields {
			t.Errorf("request %d: %s", i, r.URL)
		}
		if ua := r.Header.Get("User-Agent"); !strings.Contains(ua, "Chrome/") {
			t.Errorf("User-Agent %q", ua)
		}
		if r.Header.Get("Referer") != "https://data.eastmoney.com/bkzj/hy.html" ||
			!strings.HasPrefix(r.Header.Get("Accept-Language"), "zh-CN") ||
			!strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			t.Errorf("headers %v", r.Header)
		}
	}
	if snap.Kind != market.Industry || snap.Source != "push2" || len(snap.Sectors) != 6 {
		t.Fatalf("snapshot %+v", snap)
	}
	if want := time.Date(2025, 10, 27, 15, 39, 42, 0, market.Shanghai()); !snap.At.Equal(want) {
		t.Errorf("At = %v, want %v (f124)", snap.At, want)
	}
	checkSector(t, snap.Sectors[0], market.Sector{Code: "BK1650", Name: "固态电池", Price: nan, Pct: nan, Amount: nan, Turnover: nan,
		MainNet: nan, MainNetRatio: nan, Up: -1, Down: -1, Flat: -1, LeaderPct: nan})
	checkSector(t, snap.Sectors[1], market.Sector{Code: "BK1037", Name: "消费电子", Price: 1987.6, Pct: 1.54, Amount: 97848543492,
		Turnover: 1.37, MainNet: 2465783296, MainNetRatio: 2.52, Up: 71, Down: 18, Flat: 2,
		LeaderCode: "002475", LeaderName: "立讯精密", LeaderPct: 10})
	checkSector(t, snap.Sectors[5], market.Sector{Code: "BK0459", Name: "电子元件", Price: 35063.87, Pct: 1.9, Amount: 142152551489,
		Turnover: 2.21, MainNet: 2672467968, MainNetRatio: 1.88, Up: 38, Down: 12, Flat: 1,
		LeaderCode: "300476", LeaderName: "胜宏科技", LeaderPct: 12.46})
	st := c.Status()
	if st.Calls != 1 || st.Failures != 0 || st.Requests != 3 || st.Drift != "" || !st.LastSuccess.Equal(testNow()) {
		t.Errorf("status %+v", st)
	}
}

func TestSectorsConceptUniverse(t *testing.T) {
	srv, rec := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		write(w, 200, jsonCT, fixture(t, "made_push2_clist_industry_sectors_diff_object.json"))
	})
	c := newTestPush2(t, srv.URL, 0)
	snap, err := c.Sectors(context.Background(), market.Concept)
	if err != nil {
		t.Fatal(err)
	}
	q := rec.req(0).URL.Query()
	if q.Get("fs") != "m:90 t:3 f:!50" || q.Get("pz") != "100" || rec.req(0).Header.Get("Referer") != "https://data.eastmoney.com/bkzj/gn.html" {
		t.Errorf("request %s", rec.req(0).URL)
	}
	// diff as an object keyed "0","1" reads like the array.
	if len(snap.Sectors) != 2 || snap.Sectors[0].Code != "BK1037" || snap.Sectors[1].Code != "BK0459" || snap.Kind != market.Concept {
		t.Errorf("sectors %+v", snap.Sectors)
	}
	if _, err := c.Sectors(context.Background(), "region"); market.KindOf(err) != market.KindInvalid {
		t.Errorf("unknown kind: %v", err)
	}
}

func gz(t *testing.T, b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// The real 2025-10-27 industry fund-flow capture is page 1 (50 of 86 rows);
// it has no board-list fields. Served as JSON, JSONP and gzip, it must read
// the same; page 2 comes back data:null, so the walk ends partial.
func TestSectorsRealCapture(t *testing.T) {
	for _, tc := range []struct {
		name string
		page func(t *testing.T, w http.ResponseWriter)
	}{
		{"json", func(t *testing.T, w http.ResponseWriter) {
			write(w, 200, jsonCT, fixture(t, "push2_clist_industry_fundflow_2025-10-27.json"))
		}},
		{"jsonp", func(t *testing.T, w http.ResponseWriter) {
			write(w, 200, "application/javascript; charset=UTF-8", fixture(t, "push2_clist_industry_fundflow_2025-10-27.jsonp.txt"))
		}},
		{"gzip", func(t *testing.T, w http.ResponseWriter) {
			w.Header().Set("Content-Encoding", "gzip")
			write(w, 200, jsonCT, gz(t, fixture(t, "push2_clist_industry_fundflow_2025-10-27.json")))
		}},
		{"gzip-unlabelled", func(t *testing.T, w http.ResponseWriter) {
			write(w, 200, jsonCT, gz(t, fixture(t, "push2_clist_industry_fundflow_2025-10-27.json")))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, rec := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) {
				if r.URL.Query().Get("pn") == "1" {
					tc.page(t, w)
					return
				}
				write(w, 200, jsonCT, fixture(t, "made_push2_clist_data_null.json"))
			})
			c := newTestPush2(t, srv.URL, 0)
			snap, err := c.Sectors(context.Background(), market.Industry)
			e := wantErr(t, err, KindPartial, 0, "")
			if !strings.Contains(e.Detail, "50 of 86") || rec.count() != 2 {
				t.Errorf("partial detail %q after %d requests", e.Detail, rec.count())
			}
			if len(snap.Sectors) != 50 {
				t.Fatalf("got %d sectors with the partial error, want 50", len(snap.Sectors))
			}
			checkSector(t, snap.Sectors[0], market.Sector{Code: "BK0459", Name: "电子元件", Price: 35063.87, Pct: 1.9, Amount: nan,
				Turnover: nan, MainNet: 2672467968, MainNetRatio: 1.88, Up: -1, Down: -1, Flat: -1, LeaderPct: nan})
			checkSector(t, snap.Sectors[4], market.Sector{Code: "BK1036", Name: "半导体", Price: 2027.18, Pct: 2.13, Amount: nan,
				Turnover: nan, MainNet: 1888555776, MainNetRatio: 0.78, Up: -1, Down: -1, Flat: -1, LeaderPct: nan})
			st := c.Status()
			if st.Failures != 1 || st.LastErrorKind != KindPartial || !strings.Contains(st.Drift, "f6 absent in 50 rows") {
				t.Errorf("status %+v", st)
			}
		})
	}
}

func TestSectorsBrokenReplies(t *testing.T) {
	type reply func(t *testing.T, w http.ResponseWriter, n int)
	file := func(status int, ct, name string) reply {
		return func(t *testing.T, w http.ResponseWriter, _ int) { write(w, status, ct, fixture(t, name)) }
	}
	for _, tc := range []struct {
		name     string
		reply    reply
		kind     Kind
		requests int // also the attempts: 3 = retried twice
		field    string
		detail   string
	}{
		{"empty list", file(200, jsonCT, "made_push2_clist_empty.json"), KindEmpty, 1, "", "empty"},
		{"data null", file(200, jsonCT, "made_push2_clist_data_null.json"), KindEmpty, 1, "", "null"},
		{"rc 102 not retried", file(200, jsonCT, "made_push2_clist_rc102.json"), KindRC, 1, "", ""},
		{"nginx page with 200", file(200, "text/html", "made_nginx_502.html"), KindHTML, 1, "", "502 Bad Gateway"},
		{"nginx page with 502 retried", file(502, "text/html", "made_nginx_502.html"), KindHTTPStatus, 3, "", "502 Bad Gateway"},
		{"429 retried", file(429, "text/plain", "made_aktools_500.txt"), KindHTTPStatus, 3, "", ""},
		{"404 not retried", file(404, "text/plain", "made_aktools_500.txt"), KindHTTPStatus, 1, "", ""},
		{"truncated retried", file(200, jsonCT, "made_push2_clist_industry_fundflow_2025-10-27_truncated.json"), KindTruncated, 3, "", ""},
		{"short of Content-Length retried", func(t *testing.T, w http.ResponseWriter, _ int) {
			body := fixture(t, "push2_clist_industry_fundflow_2025-10-27.json")
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			w.WriteHeader(200)
			_, _ = w.Write(body[:len(body)/2])
		}, KindTruncated, 3, "", ""},
		{"gzip cut short retried", func(t *testing.T, w http.ResponseWriter, _ int) {
			z := gz(t, fixture(t, "push2_clist_industry_fundflow_2025-10-27.json"))
			w.Header().Set("Content-Encoding", "gzip")
			write(w, 200, jsonCT, z[:len(z)/2])
		}, KindTruncated, 3, "", ""},
		{"renamed f62", file(200, jsonCT, "made_push2_clist_industry_sectors_renamed_f62.json"), KindSchema, 1, "f62", "missing"},
		{"real abridged XHR without f3", file(200, jsonCT, "data_dataapi_bkzj_getbkzj_concept_2026-07-23_abridged.json"), KindSchema, 1, "f3", ""},
		{"real capture missing its ]", file(200, jsonCT, "push2_clist_concept_fundflow_2026-07-23_abridged.jsonp.txt"), KindMalformed, 1, "", ""},
		{"plain text with 200", file(200, "text/plain", "made_aktools_500.txt"), KindMalformed, 1, "", ""},
		{"top level array", func(t *testing.T, w http.ResponseWriter, _ int) { write(w, 200, jsonCT, []byte(`[1,2]`)) }, KindSchema, 1, "(top level)", ""},
		{"total missing", func(t *testing.T, w http.ResponseWriter, _ int) {
			write(w, 200, jsonCT, []byte(`{"rc":0,"data":{"diff":[]}}`))
		}, KindSchema, 1, "data.total", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, rec := stub(t, func(w http.ResponseWriter, r *http.Request, n int) { tc.reply(t, w, n) })
			c := newTestPush2(t, srv.URL, 0)
			snap, err := c.Sectors(context.Background(), market.Industry)
			e := wantErr(t, err, tc.kind, 0, tc.field)
			if rec.count() != tc.requests {
				t.Errorf("requests = %d, want %d", rec.count(), tc.requests)
			}
			if tc.kind != KindEmpty && e.Attempts != tc.requests {
				t.Errorf("attempts = %d, want %d", e.Attempts, tc.requests)
			}
			if !strings.Contains(e.Detail, tc.detail) {
				t.Errorf("detail %q, want it to contain %q", e.Detail, tc.detail)
			}
			if e.Source != "push2" || e.Path != "/api/qt/clist/get" {
				t.Errorf("source/path %q %q", e.Source, e.Path)
			}
			if snap.Sectors != nil {
				t.Errorf("rows returned with a %s error", tc.kind)
			}
			st := c.Status()
			if st.Failures != 1 || st.ConsecutiveFailures != 1 || st.LastErrorKind != tc.kind || st.LastError == "" || st.Requests != int64(tc.requests) {
				t.Errorf("status %+v", st)
			}
		})
	}
}

func TestTruncatedThenWhole(t *testing.T) {
	srv, rec := stub(t, func(w http.ResponseWriter, r *http.Request, n int) {
		switch {
		case n == 1:
			write(w, 200, jsonCT, fixture(t, "made_push2_clist_industry_fundflow_2025-10-27_truncated.json"))
		default:
			write(w, 200, jsonCT, fixture(t, "made_push2_clist_industry_sectors_diff_object.json"))
		}
	})
	c := newTestPush2(t, srv.URL, 0)
	snap, err := c.Sectors(context.Background(), market.Industry)
	if err != nil || len(snap.Sectors) != 2 || rec.count() != 2 {
		t.Fatalf("err %v, %d sectors, %d requests", err, len(snap.Sectors), rec.count())
	}
	if st := c.Status(); st.Calls != 1 || st.Failures != 0 || st.Requests != 2 {
		t.Errorf("status %+v", st)
	}
}

func checkQuote(t *testing.T, got, want market.Quote) {
	t.Helper()
	if got.Code != want.Code || got.Name != want.Name || got.Volume != want.Volume || !got.At.Equal(want.At) {
		t.Errorf("quote %s: got %+v\nwant %+v", want.Code, got, want)
	}
	for _, f := range []struct {
		n    string
		g, w float64
	}{
		{"Price", got.Price, want.Price}, {"Pct", got.Pct, want.Pct}, {"Change", got.Change, want.Change},
		{"Open", got.Open, want.Open}, {"High", got.High, want.High}, {"Low", got.Low, want.Low},
		{"PrevClose", got.PrevClose, want.PrevClose}, {"Amount", got.Amount, want.Amount},
		{"Turnover", got.Turnover, want.Turnover}, {"Amplitude", got.Amplitude, want.Amplitude},
		{"VolumeRatio", got.VolumeRatio, want.VolumeRatio}, {"PE", got.PE, want.PE}, {"PB", got.PB, want.PB},
		{"MarketCap", got.MarketCap, want.MarketCap}, {"FloatCap", got.FloatCap, want.FloatCap},
		{"MainNet", got.MainNet, want.MainNet}, {"MainNetRatio", got.MainNetRatio, want.MainNetRatio}, {"Speed", got.Speed, want.Speed},
	} {
		checkF(t, want.Code.String()+" "+f.n, f.g, f.w)
	}
}

func TestQuotesAllA(t *testing.T) {
	srv, rec := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		write(w, 200, jsonCT, fixture(t, "made_push2_clist_stocks_all_a_p"+r.URL.Query().Get("pn")+".json"))
	})
	c := newTestPush2(t, srv.URL, 2)
	qs, err := c.Quotes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	q0 := rec.req(0).URL.Query()
	if q0.Get("fs") != "m:0 t:6,m:0 t:80,m:1 t:2,m:1 t:23,m:0 t:81 s:2048" || q0.Get("fields") != quoteFields || rec.count() != 2 {
		t.Errorf("request %s (%d requests)", rec.req(0).URL, rec.count())
	}
	if len(qs) != 4 {
		t.Fatalf("%d quotes", len(qs))
	}
	at := time.Date(2026, 7, 10, 15, 10, 0, 0, market.Shanghai())
	checkQuote(t, qs[0], market.Quote{Code: market.MustCode("831445.BJ"), Name: "龙竹科技", Price: 4.97, Pct: 29.77, Change: 1.14,
		Open: 3.91, High: 4.97, Low: 3.91, PrevClose: 3.83, Volume: 3469300, Amount: 16598786.95, Turnover: 3.75, Amplitude: 27.68,
		VolumeRatio: 8.23, PE: 101.11, PB: 2, MarketCap: 741255744, FloatCap: 459508676, MainNet: 1325600, MainNetRatio: 7.99, Speed: 0, At: at})
	checkQuote(t, qs[1], market.Quote{Code: market.MustCode("600107.SH"), Name: "美尔雅", Price: 3.69, Pct: 10.15, Change: 0.34,
		Open: 3.5, High: 3.69, Low: 3.48, PrevClose: 3.35, Volume: 8958500, Amount: 32711449, Turnover: 2.49, Amplitude: 6.27,
		VolumeRatio: 0.48, PE: -24.51, PB: 2.43, MarketCap: 1328400000, FloatCap: 1328400000, MainNet: 20829178, MainNetRatio: 63.68, Speed: 0, At: at})
	checkQuote(t, qs[2], market.Quote{Code: market.MustCode("000725.SZ"), Name: "京东方Ａ", Price: 7.59, Pct: -6.87, Change: -0.56,
		Open: 8.16, High: 8.34, Low: 7.59, PrevClose: 8.15, Volume: 3804619900, Amount: 30277260673.71, Turnover: 10.76, Amplitude: 9.2,
		VolumeRatio: 1.05, PE: -146.58, PB: 1.98, MarketCap: 281166450005, FloatCap: 268436547948, MainNet: -5088655104, MainNetRatio: -16.81, Speed: 0, At: at})
	// Suspended: "-" everywhere but the previous close and the caps.
	checkQuote(t, qs[3], market.Quote{Code: market.MustCode("000040.SZ"), Name: "（停牌示例）", Price: nan, Pct: nan, Change: nan,
		Open: nan, High: nan, Low: nan, PrevClose: 2.18, Volume: -1, Amount: nan, Turnover: nan, Amplitude: nan,
		VolumeRatio: nan, PE: nan, PB: 1.12, MarketCap: 4641000000, FloatCap: 4641000000, MainNet: nan, MainNetRatio: nan, Speed: nan, At: at})
}

// The real 2024-08-08 SH capture is page 1 (20 of 2384) without f124/f184.
func TestQuotesRealCapturePartial(t *testing.T) {
	srv, _ := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		if r.URL.Query().Get("pn") == "1" {
			write(w, 200, "application/javascript; charset=UTF-8", fixture(t, "push2_clist_stocks_sh_a_2024-08-08.jsonp.txt"))
			return
		}
		write(w, 200, jsonCT, fixture(t, "made_push2_clist_data_null.json"))
	})
	c := newTestPush2(t, srv.URL, 20)
	qs, err := c.Quotes(context.Background())
	wantErr(t, err, KindPartial, 0, "")
	if len(qs) != 20 {
		t.Fatalf("%d quotes with the partial error", len(qs))
	}
	checkQuote(t, qs[0], market.Quote{Code: market.MustCode("600107.SH"), Name: "美尔雅", Price: 3.69, Pct: 10.15, Change: 0.34,
		Open: 3.5, High: 3.69, Low: 3.48, PrevClose: 3.35, Volume: 8958500, Amount: 32711449, Turnover: 2.49, Amplitude: 6.27,
		VolumeRatio: 0.48, PE: -24.51, PB: 2.43, MarketCap: 1328400000, FloatCap: 1328400000, MainNet: 20829178, MainNetRatio: nan,
		Speed: 0, At: testNow()})
	if st := c.Status(); !strings.Contains(st.Drift, "f124 absent in 20 rows") || !strings.Contains(st.Drift, "f184 absent") {
		t.Errorf("drift %q", st.Drift)
	}
}

func TestQuotesSchema(t *testing.T) {
	for _, tc := range []struct {
		name, row, field string
	}{
		{"market id 2", `{"f2":1,"f3":1,"f5":1,"f6":1,"f12":"600107","f13":2,"f14":"x"}`, "f13"},
		{"code not six digits", `{"f2":1,"f3":1,"f5":1,"f6":1,"f12":"BK0001","f13":1,"f14":"x"}`, "f12"},
		{"code as number", `{"f2":1,"f3":1,"f5":1,"f6":1,"f12":600107,"f13":1,"f14":"x"}`, "f12"},
		{"price missing", `{"f3":1,"f5":1,"f6":1,"f12":"600107","f13":1,"f14":"x"}`, "f2"},
		{"volume wrong type", `{"f2":1,"f3":1,"f5":true,"f6":1,"f12":"600107","f13":1,"f14":"x"}`, "f5"},
		{"name dash", `{"f2":1,"f3":1,"f5":1,"f6":1,"f12":"600107","f13":1,"f14":"-"}`, "f14"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) {
				write(w, 200, jsonCT, []byte(`{"rc":0,"data":{"total":1,"diff":[`+tc.row+`]}}`))
			})
			qs, err := newTestPush2(t, srv.URL, 0).Quotes(context.Background())
			wantErr(t, err, KindSchema, 1, tc.field)
			if qs != nil {
				t.Error("quotes returned with a schema error")
			}
		})
	}
}

// A server that ignores pn (same page forever) must not loop.
func TestWalkStopsWhenPagesRepeat(t *testing.T) {
	srv, rec := stub(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		write(w, 200, jsonCT, fixture(t, "made_push2_clist_industry_sectors_p1.json"))
	})
	snap, err := newTestPush2(t, srv.URL, 2).Sectors(context.Background(), market.Industry)
	e := wantErr(t, err, KindPartial, 0, "")
	if rec.count() != 2 || len(snap.Sectors) != 2 || !strings.Contains(e.Detail, "2 of 6") {
		t.Errorf("%d requests, %d rows, %v", rec.count(), len(snap.Sectors), err)
	}
}
