package api

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	"mdqs/db"
	"mdqs/internal/market"
)

// fakePush2His serves push2his kline/get in the upstream's shape: for
// 1.688147 EastMoney's recorded fqt=1 reply; for 1.600519 a reply made in
// the same shape over the harness's days, its last bar today's (forming at
// the harness's 10:00); for any other secid a 502. It keeps each request's
// query.
type fakePush2His struct {
	*httptest.Server
	mu      sync.Mutex
	queries []url.Values
}

// madeDays are the 600519 bars of the made reply: day, open, close, high,
// low, volume in lots.
var madeDays = []struct {
	day                    string
	open, close, high, low float64
	lots                   int64
}{
	{"2026-11-12", 1401.5, 1410.2, 1415, 1398.01, 30211},
	{"2026-11-13", 1410.2, 1405.66, 1412.3, 1400, 28110},
	{"2026-11-16", 1405, 1420.08, 1422, 1401.5, 35120},
	{"2026-11-17", 1421, 1418.5, 1425.9, 1415.2, 26044},
	{"2026-11-18", 1418, 1431.99, 1433, 1416, 40012},
	{"2026-11-19", 1432, 1428.4, 1436.6, 1425, 31870},
	{"2026-11-20", 1428, 1440.01, 1442, 1427.5, 38805},
	{"2026-11-23", 1441, 1437.2, 1444.4, 1436, 9120}, // today, forming
}

func newFakePush2His(t *testing.T) *fakePush2His {
	t.Helper()
	recorded, err := os.ReadFile("testdata/push2his_kline_daily_688147_fqt1_2023-02-02.json")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	prev := 1398.88
	for _, d := range madeDays {
		lines = append(lines, fmt.Sprintf(`"%s,%.2f,%.2f,%.2f,%.2f,%d,%.2f,%.2f,%.2f,%.2f,%.2f"`, d.day, d.open, d.close, d.high, d.low, d.lots,
			float64(d.lots)*100*d.close, (d.high-d.low)/prev*100, (d.close/prev-1)*100, d.close-prev, 0.02))
		prev = d.close
	}
	made := []byte(`{"rc":0,"rt":17,"svr":181669633,"lt":1,"full":0,"dlmkts":"","data":{"code":"600519","market":1,"name":"贵州茅台",` +
		`"decimal":2,"dktotal":5843,"preKPrice":1398.88,"klines":[` + strings.Join(lines, ",") + `]}}`)
	f := &fakePush2His{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.queries = append(f.queries, r.URL.Query())
		f.mu.Unlock()
		if r.URL.Path != "/api/qt/stock/kline/get" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		switch r.URL.Query().Get("secid") {
		case "1.688147":
			w.Write(recorded)
		case "1.600519":
			w.Write(made)
		default:
			w.WriteHeader(http.StatusBadGateway)
		}
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakePush2His) requests() []url.Values {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]url.Values(nil), f.queries...)
}

type upstreamAnswer struct {
	adjustedAnswer
	Source string           `json:"source"`
	Anchor *string          `json:"anchor"`
	Events *json.RawMessage `json:"events"`
}

func (h *harness) upstreamAdjusted(t *testing.T, tok, path string) upstreamAnswer {
	t.Helper()
	r := h.signed(http.MethodGet, path, tok, nil)
	r.expect(t, 200, "OK")
	var a upstreamAnswer
	if err := json.Unmarshal(r.data, &a); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if a.Method != "eastmoney-fqt" || a.ActionsSource != "eastmoney" || a.Source != "push2his" || a.Events == nil || string(*a.Events) != "[]" {
		t.Fatalf("%s: method %q actions_source %q source %q events %s; want eastmoney-fqt, eastmoney, push2his, []",
			path, a.Method, a.ActionsSource, a.Source, deref(a.Events))
	}
	return a
}

func deref(m *json.RawMessage) string {
	if m == nil {
		return "absent"
	}
	return string(*m)
}

func upstreamClient(t *testing.T) (*harness, string, *fakePush2His) {
	f := newFakePush2His(t)
	h := newHarness(t, withPush2His(f.URL))
	h.addClient("c", "secret-c", clientOpts{scopes: "kline"})
	return h, h.token("c", "secret-c"), f
}

// Without any imported corporate actions, a server with push2his answers
// EastMoney's own adjusted K-lines: the replayed prices, labelled as
// EastMoney's, never stored.
func TestAdjustedFromEastMoneyWithoutActions(t *testing.T) {
	h, tok, f := upstreamClient(t)

	// EastMoney's recorded fqt=1 reply, as it came.
	a := h.upstreamAdjusted(t, tok, "/v1/api/kline/adjusted?code=688147.SH&freq=D&start=2023-02-02&end=2023-02-02&mode=qfq&fields=open,high,low,close,volume,turnover_rate")
	if a.Anchor == nil || *a.Anchor != "2026-11-23" || a.Adj != "qfq" {
		t.Errorf("qfq anchor %v adj %q; want EastMoney's latest bar, today 2026-11-23", a.Anchor, a.Adj)
	}
	if len(a.Rows) != 1 {
		t.Fatalf("%d rows, want the recorded one", len(a.Rows))
	}
	row := a.Rows[0]
	for f, want := range map[string]float64{"open": 33.01, "close": 38.10, "high": 38.10, "low": 32.60, "volume": 7975600, "turnover_rate": 21.22} {
		if got := num(row, f); got != want {
			t.Errorf("688147 %s = %v, want %v (the recorded reply)", f, got, want)
		}
	}
	if row["trade_date"] != "2023-02-02" || row["provisional"] != false || a.FinalThrough != "2023-02-02" {
		t.Errorf("row %v, final_through %s", row, a.FinalThrough)
	}
	q := f.requests()[0]
	if q.Get("fqt") != "1" || q.Get("klt") != "101" || q.Get("end") != "20230202" {
		t.Errorf("request %v: want fqt=1 klt=101 end=20230202", q)
	}

	// A made reply reaching today: today's bar is provisional, the
	// indicators and pct run on EastMoney's prices, warm-up included.
	path := "/v1/api/kline/adjusted?code=600519.SH&freq=D&start=2026-11-18&end=2026-11-23&mode=qfq&indicators=ma3"
	a = h.upstreamAdjusted(t, tok, path)
	if len(a.Rows) != 4 {
		t.Fatalf("%d rows, want 2026-11-18..23", len(a.Rows))
	}
	for i, row := range a.Rows {
		d := madeDays[i+4]
		if row["trade_date"] != d.day || num(row, "open") != d.open || num(row, "close") != d.close || num(row, "high") != d.high ||
			num(row, "low") != d.low || num(row, "volume") != float64(d.lots*100) {
			t.Errorf("row %d = %v, want the replayed %+v", i, row, d)
		}
		if want := i == 3; row["provisional"] != want {
			t.Errorf("row %s provisional %v, want %v", d.day, row["provisional"], want)
		}
		prev := madeDays[i+3].close
		if want := math.Round((d.close/prev-1)*100*1e4) / 1e4; math.Abs(num(row, "pct")-want) > 1e-4 {
			t.Errorf("row %s pct %v, want %v", d.day, num(row, "pct"), want)
		}
		if want := (madeDays[i+2].close + madeDays[i+3].close + d.close) / 3; math.Abs(num(row, "ma3")-want) > 1e-3 {
			t.Errorf("row %s ma3 %v, want %v (warmed up)", d.day, num(row, "ma3"), want)
		}
	}
	if a.ProvisionalRows != 1 || a.FinalThrough != "2026-11-20" || a.RealtimeAsOf == nil {
		t.Errorf("provisional_rows %d final_through %s realtime_as_of %v; want 1, 2026-11-20, set", a.ProvisionalRows, a.FinalThrough, a.RealtimeAsOf)
	}
	last := f.requests()[len(f.requests())-1]
	if last.Get("fqt") != "1" || last.Get("secid") != "1.600519" || last.Get("end") != "20261123" || last.Get("beg") >= "20261118" {
		t.Errorf("request %v: want fqt=1, end 20261123 and beg before the range (warm-up)", last)
	}

	// hfq is EastMoney's fqt=2, without an anchor.
	hq := h.upstreamAdjusted(t, tok, "/v1/api/kline/adjusted?code=600519.SH&freq=D&start=2026-11-18&end=2026-11-20&mode=hfq")
	if hq.Anchor != nil || hq.Adj != "hfq" || len(hq.Rows) != 3 || f.requests()[len(f.requests())-1].Get("fqt") != "2" {
		t.Errorf("hfq: anchor %v adj %q rows %d, fqt %q; want null, hfq, 3, 2", hq.Anchor, hq.Adj, len(hq.Rows), f.requests()[len(f.requests())-1].Get("fqt"))
	}
	// The default anchor, asked explicitly, is EastMoney's.
	h.upstreamAdjusted(t, tok, "/v1/api/kline/adjusted?code=600519.SH&freq=D&start=2026-11-18&end=2026-11-20&mode=qfq&anchor=2026-11-23")

	// Nothing was stored: the store holds unadjusted bars only.
	bars, err := h.store.Bars(context.Background(), db.BarQuery{Code: market.MustCode("600519.SH"), Freq: market.Daily,
		FromTS: market.Day(20261101).Start().Unix(), ToTS: market.Day(20261130).Start().Unix()})
	if err != nil || len(bars) != 0 {
		t.Errorf("stored bars %d (%v); EastMoney's adjusted bars must not be stored", len(bars), err)
	}
}

func TestAdjustedFromEastMoneyRefusals(t *testing.T) {
	h, tok, f := upstreamClient(t)
	base := "/v1/api/kline/adjusted?code=600519.SH&freq=D&start=2026-11-18&end=2026-11-20"
	for _, tt := range []struct {
		path   string
		status int
		detail []string
	}{
		{base + "&mode=qfq&anchor=2026-11-12", 400, []string{"anchor 2026-11-12", "tdx.dir"}},
		{base + "&mode=hfq&anchor=2001-08-27", 400, []string{"anchor 2001-08-27", "tdx.dir"}},
		{base + "&mode=qfq&fields=close,adj_factor", 400, []string{"adj_factor", "tdx.dir"}},
		// An upstream failure is an outage naming EastMoney.
		{"/v1/api/kline/adjusted?code=000001.SZ&freq=D&start=2026-11-18&end=2026-11-20&mode=qfq", 503, []string{"EastMoney", "tdx.dir"}},
	} {
		before := len(f.requests())
		r := h.signed(http.MethodGet, tt.path, tok, nil)
		if r.status != tt.status {
			t.Errorf("%s: %d %s, want %d", tt.path, r.status, r.raw, tt.status)
			continue
		}
		for _, want := range tt.detail {
			if !strings.Contains(r.detail, want) {
				t.Errorf("%s: detail %q lacks %q", tt.path, r.detail, want)
			}
		}
		if tt.status == 400 && len(f.requests()) != before {
			t.Errorf("%s: a refused request reached EastMoney", tt.path)
		}
	}
}

// Once actions are imported, the terminal's events apply: the local path,
// without asking EastMoney.
func TestAdjustedPrefersImportedActions(t *testing.T) {
	h, tok, f := upstreamClient(t)
	putTestActions(t, h)
	r, a := h.adjusted(t, tok, "/v1/api/kline/adjusted?code=600519.SH&freq=D&start=2026-11-02&end=2026-11-20&mode=qfq")
	if r.status != 200 || a.Method != "tdx-affine" || a.ActionsSource != "tdx" || len(a.Events) != 3 {
		t.Fatalf("%d method %q actions_source %q events %d; want the terminal's path", r.status, a.Method, a.ActionsSource, len(a.Events))
	}
	var src struct{ Source string }
	json.Unmarshal(r.data, &src)
	if src.Source != "store" {
		t.Errorf("source %q, want store", src.Source)
	}
	if n := len(f.requests()); n != 0 {
		t.Errorf("%d requests to push2his; the imported actions must be used", n)
	}
}

// The fallback's answers are the document's: its adj_method, source and
// actions_source are named there, and its refusals are documented codes.
func TestAdjustedFromEastMoneyMatchesOpenAPI(t *testing.T) {
	h, tok, _ := upstreamClient(t)
	c := newContract(t, h)
	for _, tt := range []struct {
		status int
		target string
	}{
		{200, "/v1/api/kline/adjusted?code=600519.SH&freq=D&start=2026-11-18&end=2026-11-23&mode=qfq&indicators=ma3"},
		{200, "/v1/api/kline/adjusted?code=600519.SH&freq=D&start=2026-11-18&end=2026-11-20&mode=hfq"},
		{400, "/v1/api/kline/adjusted?code=600519.SH&freq=D&start=2026-11-18&end=2026-11-20&mode=qfq&anchor=2026-11-12"},
		{503, "/v1/api/kline/adjusted?code=000001.SZ&freq=D&start=2026-11-18&end=2026-11-20&mode=qfq"},
	} {
		hdr := h.signedHeader(tok, nil)
		r := h.raw(http.MethodGet, tt.target, nil, hdr)
		if r.status != tt.status {
			t.Errorf("%s = %d, want %d: %.300s", tt.target, r.status, tt.status, r.raw)
		}
		c.check(http.MethodGet, tt.target, nil, hdr, r)
	}
}
