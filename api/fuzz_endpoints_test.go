package api

import (
	"bytes"
	"encoding/json"
	"hash/crc32"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// unavailableInHarness are the routes that answer 503 by design in the
// test harness: the bridge has no terminal folder configured, and the
// hot-rank, news and financial-report services are not built (Info is
// empty). Every other route must never answer a 5xx.
var unavailableInHarness = []string{
	"GET /v1/api/meta/stocks", "GET /v1/api/blocks", "GET /v1/api/block/members", "GET /v1/api/minutes",
	"POST /v1/api/refresh",
	"GET /v1/api/hot_rank", "GET /v1/api/hot_rank/detail", "GET /v1/api/hot_rank_list", "POST /v1/api/hot_rank/import",
	"GET /v1/api/news/list", "GET /v1/api/news/view", "POST /v1/api/update-news",
	"GET /v1/api/financial-reports",
}

// allowed503 says whether a 503 is one the harness gives by design. (A
// ?source= the server does not have is a 400, not one of these.)
func allowed503(route string) bool {
	return slices.Contains(unavailableInHarness, route)
}

// maxAnswer bounds any answer: the largest legitimate one is a K-line of
// kline.max_rows rows with every indicator, well under this.
const maxAnswer = 16 << 20

// fuzzNonceCapacity keeps the nonce set from filling during a long run (the
// harness clock never moves, so no nonce ever expires).
func fuzzNonceCapacity(c *harnessConfig) { c.auth.NonceCapacity = 50_000_000 }

// FuzzEndpoints sends a validly signed request to every registered route
// with a fuzzed query string and body. route names a registered route
// ("GET /v1/api/kline"); any other text picks one by its hash, so the
// fuzzer reaches them all. Whatever arrives: no 5xx (except 503 where the
// harness has no such service or source), no panic, a JSON envelope (on success,
// top50's own object; routes whose success is a document of their own,
// such as /v1/openapi.json or the dashboard's assets, are exempt on
// success only), and a bounded answer.
//
//	go test -run '^$' -fuzz FuzzEndpoints -fuzztime 30s ./api
func FuzzEndpoints(f *testing.F) {
	h := newHarness(f, fuzzNonceCapacity)
	h.addClient("fz", "secret-fz", clientOpts{scopes: "*"})
	tok := h.token("fz", "secret-fz")
	handler := h.api.Handler()

	var routes []string
	for _, r := range h.api.Routes() {
		if strings.Contains(r, " /test/") {
			continue // the harness's own routes, /test/panic among them
		}
		routes = append(routes, r)
	}
	slices.Sort(routes)
	for _, r := range routes {
		f.Add(r, "", []byte(nil))
	}

	// Routes whose success is a document of its own rather than the
	// envelope (the OpenAPI document, the dashboard's page and assets,
	// metrics text): found by asking each once without parameters.
	ownFormat := map[string]bool{}
	for _, r := range routes {
		method, path, _ := strings.Cut(r, " ")
		rec := serveSigned(h, handler, tok, method, path, "", nil)
		var env struct {
			Code *int `json:"code"`
		}
		if rec.Code < 300 && (json.Unmarshal(rec.Body.Bytes(), &env) != nil || env.Code == nil) {
			ownFormat[r] = true
		}
	}

	f.Fuzz(func(t *testing.T, route, query string, body []byte) {
		if !slices.Contains(routes, route) {
			route = routes[int(crc32.ChecksumIEEE([]byte(route))%uint32(len(routes)))]
		}
		method, path, _ := strings.Cut(route, " ")
		rec := serveSigned(h, handler, tok, method, path, query, body)
		raw := rec.Body.Bytes()
		report := func(why string) {
			t.Helper()
			t.Fatalf("%s\nroute: %s\nquery: %q\nbody:  %q\nstatus: %d\nanswer: %.2000s", why, route, query, body, rec.Code, raw)
		}
		if rec.Code >= 500 && !(rec.Code == http.StatusServiceUnavailable && allowed503(route)) {
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
			if rec.Code == http.StatusServiceUnavailable && rec.Header().Get("Retry-After") == "" {
				report("a 503 without Retry-After")
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
	rec := httptest.NewRecorder()
	handler.ServeHTTP(rec, req)
	return rec
}
