package api

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"mdqs/internal/market"
)

// top50 is the ranking object (no envelope).
type top50 struct {
	TS        int64  `json:"ts"`
	Day       string `json:"day"`
	Source    string `json:"source"`
	UpdatedMS int64  `json:"updated_ms"`
	Lists     map[string][]map[string]any
}

func decodeTop50(t *testing.T, raw []byte) top50 {
	t.Helper()
	var r top50
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("top50 is not JSON: %v\n%s", err, raw)
	}
	var lists map[string]json.RawMessage
	json.Unmarshal(raw, &lists)
	r.Lists = map[string][]map[string]any{}
	for _, lt := range market.ListTypes() {
		var l []map[string]any
		if err := json.Unmarshal(lists[lt], &l); err != nil {
			t.Fatalf("list %s: %v", lt, err)
		}
		r.Lists[lt] = l
	}
	return r
}

func (h *harness) top50(token, query string, header http.Header) (int, http.Header, []byte) {
	h.t.Helper()
	hd := h.signedHeader(token, nil)
	for k, v := range header {
		hd[k] = v
	}
	req, _ := http.NewRequest(http.MethodGet, h.srv.URL+"/v1/api/boards/top50"+query, nil)
	req.Header = hd
	// Keep Go's transport from negotiating gzip itself: the test decides.
	tr := &http.Transport{DisableCompression: true}
	res, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, b
}

func TestTop50ShapeAndRules(t *testing.T) {
	h := newHarness(t)
	h.addClient("c", "secret-c", clientOpts{scopes: "market"})
	tok := h.token("c", "secret-c")
	status, hdr, raw := h.top50(tok, "", nil)
	if status != 200 || hdr.Get("Content-Type") != "application/json; charset=utf-8" {
		t.Fatalf("top50: %d %s %s", status, hdr.Get("Content-Type"), raw)
	}
	if bytes.Contains(raw, []byte(`"code":`)) {
		t.Fatal("top50 is wrapped in the envelope; spec 4.3 returns the object directly")
	}
	r := decodeTop50(t, raw)
	if r.Day != "20261123" || r.Source != "push2" || r.TS != t0.Unix() || r.UpdatedMS != t0.UnixMilli() {
		t.Fatalf("header = %+v", r)
	}
	want := map[string]int{"industry": 12, "concept": 30, "industry_out": 12, "concept_out": 30, "sectors": 42, "sectors_out": 42}
	for lt, n := range want {
		l := r.Lists[lt]
		if len(l) != n {
			t.Fatalf("%s has %d entries, want %d", lt, len(l), n)
		}
		for i, e := range l {
			if int(e["rank"].(float64)) != i {
				t.Fatalf("%s[%d] has rank %v", lt, i, e["rank"])
			}
			for _, field := range []string{"sector_name", "count", "pct", "turnover", "main_net", "flow", "signal", "signal_rank", "flow_tag"} {
				if _, ok := e[field]; !ok {
					t.Fatalf("%s[%d] lacks %s: %v", lt, i, field, e)
				}
			}
			if i > 0 {
				prev, cur := l[i-1]["main_net"].(float64), e["main_net"].(float64)
				if strings.HasSuffix(lt, "_out") && cur < prev || !strings.HasSuffix(lt, "_out") && cur > prev {
					t.Fatalf("%s is not ordered by main_net at %d: %v then %v", lt, i, prev, cur)
				}
			}
		}
	}
	if first := r.Lists["industry"][0]; first["sector_name"] != "行业0" || first["flow"] != "in" {
		t.Fatalf("industry[0] = %v", first)
	}

	// top truncates every list.
	_, _, raw = h.top50(tok, "?top=5", nil)
	r = decodeTop50(t, raw)
	for lt, l := range r.Lists {
		if len(l) != 5 {
			t.Fatalf("top=5: %s has %d entries", lt, len(l))
		}
	}
}

func TestTop50GzipAndETag(t *testing.T) {
	h := newHarness(t)
	h.addClient("c", "secret-c", clientOpts{})
	tok := h.token("c", "secret-c")
	_, plainHdr, plain := h.top50(tok, "?top=3", nil)
	status, hdr, zipped := h.top50(tok, "?top=3", http.Header{"Accept-Encoding": {"gzip, br"}})
	if status != 200 || hdr.Get("Content-Encoding") != "gzip" || hdr.Get("Vary") != "Accept-Encoding" {
		t.Fatalf("gzip: %d, encoding %q, vary %q", status, hdr.Get("Content-Encoding"), hdr.Get("Vary"))
	}
	zr, err := gzip.NewReader(bytes.NewReader(zipped))
	if err != nil {
		t.Fatal(err)
	}
	unzipped, _ := io.ReadAll(zr)
	if !bytes.Equal(unzipped, plain) {
		t.Fatal("the gzip body differs from the plain one")
	}
	if _, hdr, _ := h.top50(tok, "?top=3", http.Header{"Accept-Encoding": {"gzip;q=0"}}); hdr.Get("Content-Encoding") != "" {
		t.Fatal("gzip;q=0 still got gzip")
	}
	etag := plainHdr.Get("ETag")
	if status, _, body := h.top50(tok, "?top=3", http.Header{"If-None-Match": {etag}}); status != http.StatusNotModified || len(body) != 0 {
		t.Fatalf("If-None-Match with the current ETag: %d, %d bytes", status, len(body))
	}
}

func TestTop50Parameters(t *testing.T) {
	h := newHarness(t)
	h.addClient("c", "secret-c", clientOpts{})
	tok := h.token("c", "secret-c")
	for _, tt := range []struct {
		query  string
		status int
		detail string
	}{
		{"?top=0", 400, "top"},
		{"?top=x", 400, "top"},
		{"?day=2026-13-01", 400, "day"},
		{"?day=20261124", 400, "future"},
		{"?refresh=perhaps", 400, "refresh"},
		{"?day=20261118", 404, ""}, // a past day with no data
	} {
		status, _, raw := h.top50(tok, tt.query, nil)
		var env struct {
			Code   *int   `json:"code"`
			Detail string `json:"detail"`
		}
		json.Unmarshal(raw, &env)
		if status != tt.status || env.Code == nil || *env.Code != 0 || !strings.Contains(env.Detail, tt.detail) {
			t.Errorf("%s: %d %s; want %d with detail containing %q", tt.query, status, raw, tt.status, tt.detail)
		}
	}
	// A Saturday means the Friday before it; Friday has no data here.
	status, _, raw := h.top50(tok, "?day=20261121", nil)
	if status != 404 || !strings.Contains(string(raw), "2026-11-20") {
		t.Fatalf("Saturday: %d %s; want Friday's (missing) ranking", status, raw)
	}
	// refresh=1 rebuilds: updated_ms moves on.
	_, _, raw = h.top50(tok, "", nil)
	first := decodeTop50(t, raw)
	h.clock.Advance(3 * time.Second)
	_, _, raw = h.top50(tok, "?refresh=1", nil)
	if second := decodeTop50(t, raw); second.UpdatedMS != first.UpdatedMS+3000 {
		t.Fatalf("refresh=1: updated_ms %d -> %d, want +3000", first.UpdatedMS, second.UpdatedMS)
	}
	_, _, raw = h.top50(tok, "?refresh=true&day=2026-11-23", nil)
	if third := decodeTop50(t, raw); third.Day != "20261123" {
		t.Fatalf("dashed day: %s", third.Day)
	}
}

func TestTop50AuthAndUnavailable(t *testing.T) {
	h := newHarness(t)
	h.addClient("news", "secret-n", clientOpts{scopes: "news"})
	h.addClient("c", "secret-c", clientOpts{})
	h.do(http.MethodGet, "/v1/api/boards/top50", nil, nil).expect(t, 401, "unauthorized")
	h.signed(http.MethodGet, "/v1/api/boards/top50", h.token("news", "secret-n"), nil).expect(t, 403, "forbidden")
	h.push2.Fail(market.Industry, http.StatusBadGateway)
	r := h.signed(http.MethodGet, "/v1/api/boards/top50", h.token("c", "secret-c"), nil)
	r.expect(t, 503, "service unavailable")
	if r.header.Get("Retry-After") == "" {
		t.Fatal("503 without Retry-After")
	}
}

func TestAuctionAndStatsRange(t *testing.T) {
	h := newHarness(t)
	h.addClient("c", "secret-c", clientOpts{})
	tok := h.token("c", "secret-c")
	r := h.signed(http.MethodGet, "/v1/api/strategy/auction/today", tok, nil)
	r.expect(t, 200, "OK")
	var a struct {
		Day     string           `json:"day"`
		Phase   string           `json:"phase"`
		Sectors []map[string]any `json:"sectors"`
		Breadth *struct{ Up, Down, Flat int }
		Leaders []map[string]any `json:"leaders"`
		Signals map[string]int   `json:"signals"`
	}
	json.Unmarshal(r.data, &a)
	if a.Day != "20261123" || a.Phase != "morning" || len(a.Sectors) != 42 || a.Breadth == nil || len(a.Leaders) != 10 {
		t.Fatalf("auction = %s", r.data)
	}
	// 12 industries with up = 10+i: 10+...+21 = 186 rising stocks.
	if a.Breadth.Up != 186 || a.Breadth.Down != 60 {
		t.Fatalf("breadth = %+v, want up 186, down 60", a.Breadth)
	}
	total := 0
	for _, n := range a.Signals {
		total += n
	}
	if total != 42 {
		t.Fatalf("signals count %d sectors, want 42", total)
	}

	r = h.signed(http.MethodGet, "/v1/api/market/stats/range?start=20261116&end=20261123&top=3", tok, nil)
	r.expect(t, 200, "OK")
	var st struct {
		Start      string `json:"start"`
		DailyStats []struct {
			TradeDay           string   `json:"trade_day"`
			IndustryTopInNames []string `json:"industry_top_in_names"`
			ConceptTopInNames  []string `json:"concept_top_in_names"`
			Provisional        bool     `json:"provisional"`
		} `json:"daily_stats"`
		MissingDays []string `json:"missing_days"`
	}
	json.Unmarshal(r.data, &st)
	if len(st.DailyStats) != 1 || len(st.MissingDays) != 5 {
		t.Fatalf("stats/range = %s; want today (provisional) and five missing days", r.data)
	}
	d := st.DailyStats[0]
	if d.TradeDay != "20261123" || !d.Provisional || strings.Join(d.IndustryTopInNames, ",") != "行业0,行业1,行业2" ||
		strings.Join(d.ConceptTopInNames, ",") != "概念0,概念1,概念2" {
		t.Fatalf("today's stats = %+v", d)
	}
	h.signed(http.MethodGet, "/v1/api/market/stats/range?start=20261123&end=20261101", tok, nil).expect(t, 400, "missing or invalid params")
	h.signed(http.MethodGet, "/v1/api/market/stats/range?start=20240101&end=20261123", tok, nil).expect(t, 400, "missing or invalid params")
	h.signed(http.MethodGet, "/v1/api/market/stats/range?top=1000", tok, nil).expect(t, 400, "missing or invalid params")
}

func TestHealthSourcesShowsUpstreamErrors(t *testing.T) {
	h := newHarness(t)
	h.addClient("c", "secret-c", clientOpts{})
	h.push2.Fail(market.Concept, http.StatusBadGateway)
	h.signed(http.MethodGet, "/v1/api/boards/top50", h.token("c", "secret-c"), nil)
	r := h.do(http.MethodGet, "/v1/api/health/sources", nil, nil)
	r.expect(t, 200, "OK")
	var d struct {
		Default  string `json:"default"`
		Calendar struct {
			CoversToday bool `json:"covers_today"`
			LastYear    int  `json:"last_year"`
		}
		Sources []struct {
			Source    string `json:"source"`
			Failures  int    `json:"failures"`
			LastError string `json:"last_error"`
		}
	}
	json.Unmarshal(r.data, &d)
	if d.Default != "push2" || !d.Calendar.CoversToday || d.Calendar.LastYear != 2026 || len(d.Sources) != 1 ||
		d.Sources[0].Failures == 0 || d.Sources[0].LastError == "" {
		t.Fatalf("health/sources = %s", r.data)
	}
}
