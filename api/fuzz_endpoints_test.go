package api

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"hash/crc32"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"mdqs/internal/finance"
	"mdqs/internal/hotrank"
	"mdqs/internal/market"
	"mdqs/internal/news"
)

// newFuzzHarness is a server with every service configured and data in
// each, so that a fuzzed request reaches the handler's own logic instead
// of stopping at "not configured": the terminal bridge on a fake folder
// (imported), hot rank, news and reports from a demo market (two days of
// lists, the news, a quarter of reports), and the sectors from push2's
// fake, or from the demo market withDemoMode.
func newFuzzHarness(f *testing.F, opts ...harnessOpt) (*harness, string) {
	f.Helper()
	h := newHarness(f, append([]harnessOpt{fuzzNonceCapacity, withTerminal(f), withMCP(refusingFront, false)}, opts...)...)
	serveInfoFromDemo(f, h)
	ctx := context.Background()
	if _, err := h.api.Bridge.Refresh(ctx, nil); err != nil {
		f.Fatal(err)
	}
	for _, d := range []market.Day{20261120, 20261123} {
		if _, err := h.api.Info.HotRank.Import(ctx, hotrank.ImportRequest{Day: d}); err != nil {
			f.Fatal(err)
		}
	}
	if _, err := h.api.Info.News.Update(ctx, news.UpdateRequest{}); err != nil {
		f.Fatal(err)
	}
	if _, err := h.api.Info.Finance.Import(ctx, finance.ImportRequest{Period: 20260930}); err != nil {
		f.Fatal(err)
	}
	if err := h.api.LHB.Job(ctx); err != nil {
		f.Fatal(err)
	}
	h.addClient("fz", "secret-fz", clientOpts{scopes: "*"})
	return h, h.token("fz", "secret-fz")
}

// refusingFront stands for the MCP front behind /mcp's door, which the
// fuzzer's client (scope "*", without mcp) never passes: the door is what
// is fuzzed here; MCP itself is mcp_test.go's and the conformance suite's.
func refusingFront(http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "the fuzzer's client reached the MCP front", http.StatusInternalServerError)
	})
}

// maxAnswer bounds any answer: the largest legitimate one is a K-line of
// kline.max_rows rows with every indicator, well under this.
const maxAnswer = 16 << 20

// fuzzNonceCapacity keeps the nonce set from filling during a long run (the
// harness clock never moves, so no nonce ever expires).
func fuzzNonceCapacity(c *harnessConfig) { c.auth.NonceCapacity = 50_000_000 }

// FuzzEndpoints sends a validly signed request to every registered route
// with a fuzzed query string and body, on a server with every service
// configured. target names a registered route ("GET /v1/api/kline"), or
// one prefixed "demo " for the server in demo mode; any other text picks
// one of those by its hash, so the fuzzer reaches them all. Whatever
// arrives: no 5xx (bad input is the client's error, and nothing here is
// down), no panic, a JSON envelope (on success, top50's own object;
// routes whose success is a document of their own, such as
// /v1/openapi.json or the dashboard's assets, are exempt on success only),
// and a bounded answer.
//
//	go test -run '^$' -fuzz FuzzEndpoints -fuzztime 3m ./api
func FuzzEndpoints(f *testing.F) {
	live, liveTok := newFuzzHarness(f)
	dm, demoTok := newFuzzHarness(f, withDemoMode)
	servers := []struct {
		prefix  string
		h       *harness
		handler http.Handler
		tok     string
	}{{"", live, live.api.Handler(), liveTok}, {"demo ", dm, dm.api.Handler(), demoTok}}

	var routes []string
	for _, r := range live.api.Routes() {
		if strings.Contains(r, " /test/") {
			continue // the harness's own routes, /test/panic among them
		}
		if strings.Contains(r, " /debug/pprof/") {
			// A profile costs the seconds it is asked for (30 by default):
			// a fuzzer would spend its time waiting. pprof_test.go checks
			// their parameters.
			continue
		}
		routes = append(routes, r)
	}
	slices.Sort(routes)
	var targets []string
	for _, sv := range servers {
		for _, r := range routes {
			targets = append(targets, sv.prefix+r)
			f.Add(sv.prefix+r, "", []byte(nil))
		}
	}
	// What 100k fuzzed requests found before the query string was bounded
	// at the edge (issue 12, point 6).
	f.Add("GET /v1/api/blocks", "keyword="+strings.Repeat("600519.SH,", 5000), []byte(nil))
	f.Add("GET /v1/api/meta/stocks", "keyword="+strings.Repeat("x", 50001), []byte(nil))
	f.Add("demo GET /v1/api/boards/top50", "day=1970-01-01", []byte(nil))
	f.Add("demo GET /v1/api/limit_pool", "date=1970-01-01&kind=broken", []byte(nil))
	f.Add("GET /v1/api/limit_ladder", "date=2099-12-31", []byte(nil))
	f.Add("demo GET /v1/api/limit_pool", "kind=yesterday", []byte(nil))
	f.Add("demo GET /v1/api/limit_pool", "kind=strong&date=2026-11-20", []byte(nil))
	f.Add("demo GET /v1/api/boards/top50", "day=2010-01-04", []byte(nil))
	f.Add("demo GET /v1/api/market/movements", "day=19700101&type=concept", []byte(nil))
	// The index membership history (issue 31): the terminal's import
	// recorded 沪深300 from block_zs.dat.
	f.Add("GET /v1/api/index/members", "code=000300.SH&date=2026-11-23", []byte(nil))
	f.Add("GET /v1/api/index/members", "code=000300&date=19700101", []byte(nil))
	f.Add("GET /v1/api/index/members", "code=%E6%B2%AA%E6%B7%B1300&date=2099-12-31", []byte(nil))
	f.Add("GET /v1/api/index/changes", "code=000300.SH&start=2026-11-24&end=2026-11-20", []byte(nil))
	f.Add("demo GET /v1/api/index/changes", "code=399001.SZ&start=20260101", []byte(nil))
	// The ETF list (issue 31).
	f.Add("GET /v1/api/etfs", "category=a_share&sort=premium&order=asc&limit=3", []byte(nil))
	f.Add("demo GET /v1/api/etfs", "sort=volume&limit=99999999999999999999", []byte(nil))
	// CSV answers (issue 35): the form's parameters on list endpoints and
	// on others, alone and with the endpoint's own.
	f.Add("GET /v1/api/kline", "code=600519.SH&freq=D&start=2026-11-02&end=2026-11-20&indicators=ma5&format=csv", []byte(nil))
	f.Add("demo GET /v1/api/boards/top50", "top=3&format=csv&bom=1", []byte(nil))
	f.Add("GET /v1/api/boards/industry", "format=csv&bom=maybe", []byte(nil))
	f.Add("GET /v1/api/limit_pool", "date=2026-11-20&kind=up&format=csv", []byte(nil))
	f.Add("GET /v1/api/alerts", "id=x&format=csv", []byte(nil))
	f.Add("GET /v1/api/whoami", "format=csv", []byte(nil))
	f.Add("GET /v1/api/lhb", "date=2026-11-20&format=CSV", []byte(nil))
	f.Add("GET /v1/api/index/members", "code=000300.SH&format=csv&format=json", []byte(nil))

	// Routes whose success is a document of its own rather than the
	// envelope (the OpenAPI document, the dashboard's page and assets,
	// metrics text): found by asking each once without parameters.
	ownFormat := map[string]bool{}
	for _, r := range routes {
		method, path, _ := strings.Cut(r, " ")
		rec := serveSigned(live, servers[0].handler, liveTok, method, path, "", nil)
		var env struct {
			Code *int `json:"code"`
		}
		if rec.Code < 300 && (json.Unmarshal(rec.Body.Bytes(), &env) != nil || env.Code == nil) {
			ownFormat[r] = true
		}
	}

	f.Fuzz(func(t *testing.T, target, query string, body []byte) {
		if !slices.Contains(targets, target) {
			target = targets[int(crc32.ChecksumIEEE([]byte(target))%uint32(len(targets)))]
		}
		sv := servers[0]
		if strings.HasPrefix(target, servers[1].prefix) {
			sv = servers[1]
		}
		route := strings.TrimPrefix(target, sv.prefix)
		method, path, _ := strings.Cut(route, " ")
		rec := serveSigned(sv.h, sv.handler, sv.tok, method, path, query, body)
		raw := rec.Body.Bytes()
		report := func(why string) {
			t.Helper()
			t.Fatalf("%s\nroute: %s\nquery: %q\nbody:  %q\nstatus: %d\nanswer: %.2000s", why, target, query, body, rec.Code, raw)
		}
		if rec.Code >= 500 {
			report("a 5xx answer")
		}
		if len(raw) > maxAnswer {
			report("an answer over 16 MiB")
		}
		if rec.Code >= 300 {
			var env struct {
				Code    *int            `json:"code"`
				Message string          `json:"message"`
				Data    json.RawMessage `json:"data"`
			}
			if err := json.Unmarshal(raw, &env); err != nil || env.Code == nil || *env.Code != 0 || env.Message == "" || env.Data != nil {
				report("a failure that is not the failure envelope")
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/json; charset=utf-8" {
				report("a failure with Content-Type " + ct)
			}
			if len(raw) > 4096 {
				report("a failure envelope over 4 KiB")
			}
			return
		}
		if ct := rec.Header().Get("Content-Type"); ct == csvType {
			// A CSV answer: well-formed, a header row, every row as wide.
			body := bytes.TrimPrefix(raw, []byte(utf8BOM))
			records, err := csv.NewReader(bytes.NewReader(body)).ReadAll()
			if err != nil || len(records) == 0 || len(records[0]) == 0 {
				report("a CSV success that is not CSV with a header row")
			}
			return
		}
		if route == "GET /v1/api/boards/top50" {
			var top struct {
				Day     *string         `json:"day"`
				Sectors json.RawMessage `json:"sectors"`
			}
			if err := json.Unmarshal(raw, &top); err != nil || top.Day == nil || top.Sectors == nil {
				report("a top50 success that is not the ranking object")
			}
			return
		}
		if ownFormat[route] {
			return
		}
		var env struct {
			Code    *int   `json:"code"`
			Message string `json:"message"`
		}
		if err := json.Unmarshal(raw, &env); err != nil || env.Code == nil || *env.Code != 1 {
			report("a success that is not the success envelope")
		}
	})
}

// serveSigned serves one request signed for tok, in-process.
func serveSigned(h *harness, handler http.Handler, tok, method, path, query string, body []byte) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, bytes.NewReader(body))
	req.URL.RawQuery = query
	req.RequestURI = path
	if query != "" {
		req.RequestURI += "?" + query
	}
	for k, v := range h.signedHeader(tok, body) {
		req.Header[k] = v
	}
	if len(body) > 0 {
		req.Header.Set("Content-Type", "application/json")
	}
	if path == "/v1/api/stream" {
		// A good stream runs until its client leaves: this one leaves soon.
		ctx, cancel := context.WithTimeout(req.Context(), 50*time.Millisecond)
		defer cancel()
		req = req.WithContext(ctx)
	}
	rec := httptest.NewRecorder()
	handler.ServeHTTP(rec, req)
	return rec
}
