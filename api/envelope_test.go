package api

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestUnknownPathsAndMethods(t *testing.T) {
	h := newHarness(t)
	h.do(http.MethodGet, "/v1/api/nothing", nil, nil).expect(t, 404, "not found")
	h.do(http.MethodGet, "/index.html", nil, nil).expect(t, 404, "not found") // / is the dashboard
	// No redirects: a wrong case or a trailing slash is simply not found.
	h.do(http.MethodGet, "/V1/API/WHOAMI", nil, nil).expect(t, 404, "not found")
	h.do(http.MethodGet, "/v1/api/whoami/", nil, nil).expect(t, 404, "not found")

	r := h.do(http.MethodGet, "/v1/auth/token", nil, nil)
	r.expect(t, 405, "method not allowed")
	if allow := r.header.Get("Allow"); !strings.Contains(allow, "POST") {
		t.Errorf("405 Allow = %q, want POST listed", allow)
	}
	r = h.do(http.MethodDelete, "/v1/api/health/db", nil, nil)
	r.expect(t, 405, "method not allowed")
	if allow := r.header.Get("Allow"); allow != "GET, HEAD, OPTIONS" || !strings.Contains(r.detail, "allowed: GET, HEAD, OPTIONS") {
		t.Errorf("405 Allow = %q, detail %q", allow, r.detail)
	}
	h.do(http.MethodOptions, "/v1/api/nothing", nil, nil).expect(t, 404, "not found")
}

// Issue 27: a 405 lists OPTIONS as allowed, so every route answers it:
// 204 with the same Allow, nothing else. Never a CORS header: a page of
// another origin asking in a preflight gets no permission.
func TestOptionsListsTheMethods(t *testing.T) {
	h := newHarness(t)
	for path, allow := range map[string]string{
		"/v1/auth/token":      "OPTIONS, POST",
		"/v1/api/token":       "OPTIONS, POST",
		"/v1/api/health/db":   "GET, HEAD, OPTIONS",
		"/v1/api/whoami":      "GET, HEAD, OPTIONS",
		"/v1/api/alerts":      "DELETE, GET, HEAD, OPTIONS, POST",
		"/v1/api/stream":      "GET, HEAD, OPTIONS",
		"/metrics":            "GET, HEAD, OPTIONS",
		"/debug/pprof/symbol": "GET, HEAD, OPTIONS, POST",
		"/":                   "GET, HEAD, OPTIONS",
		"/v1/api/refresh":     "OPTIONS, POST",
	} {
		req, _ := http.NewRequest(http.MethodOptions, h.srv.URL+path, nil)
		// What a browser's preflight sends.
		req.Header.Set("Origin", "http://attacker.example")
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "authorization, x-signature")
		res, err := h.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusNoContent || res.Header.Get("Allow") != allow || len(body) != 0 {
			t.Errorf("OPTIONS %s: %d, Allow %q, body %q; want 204, Allow %q", path, res.StatusCode, res.Header.Get("Allow"), body, allow)
		}
		for name := range res.Header {
			if strings.HasPrefix(name, "Access-Control-") {
				t.Errorf("OPTIONS %s: CORS header %s: %q", path, name, res.Header.Get(name))
			}
		}
		// A wrong method's 405 lists the same methods.
		r := h.do(http.MethodPut, path, nil, nil)
		if r.status != 405 || r.header.Get("Allow") != allow {
			t.Errorf("PUT %s: %d, Allow %q; want 405, Allow %q", path, r.status, r.header.Get("Allow"), allow)
		}
	}
	if n := mustSample(t, h.scrape(), "mdqs_http_requests_total", map[string]string{"route": "/v1/auth/token", "method": "OPTIONS", "code": "204"}); n != 1 {
		t.Errorf("OPTIONS counted under its route %v times, want 1", n)
	}
}

func TestHeadIsAnsweredLikeGet(t *testing.T) {
	h := newHarness(t)
	r := h.do(http.MethodHead, "/v1/api/health/db", nil, nil)
	if r.status != 200 || len(r.raw) != 0 || r.header.Get("Content-Type") != "application/json; charset=utf-8" {
		t.Fatalf("HEAD = %d, %d body bytes, %q", r.status, len(r.raw), r.header.Get("Content-Type"))
	}
}

func TestOversizedBodiesGet413(t *testing.T) {
	h := newHarness(t)
	h.addClient("c", "secret-c", clientOpts{})
	tok := h.token("c", "secret-c")
	big := bytes.Repeat([]byte("a"), 1<<20+1)
	h.signed(http.MethodPost, "/test/echo", tok, big).expect(t, 413, "request body too large")
	h.do(http.MethodPost, "/v1/auth/token", big, nil).expect(t, 413, "request body too large")
	// Exactly the limit is fine.
	limit := bytes.Repeat([]byte("a"), 1<<20)
	h.signed(http.MethodPost, "/test/echo", tok, limit).expect(t, 200, "OK")

	// A body without Content-Length (chunked) is caught while reading.
	req, _ := http.NewRequest(http.MethodPost, h.srv.URL+"/test/echo", io.MultiReader(bytes.NewReader(big)))
	req.ContentLength = -1
	for k, v := range h.signedHeader(tok, big) {
		req.Header[k] = v
	}
	res, err := h.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 413 {
		t.Fatalf("chunked oversized body: %d, want 413", res.StatusCode)
	}
}

func TestPanicBecomesA500EnvelopeAndTheServerCarriesOn(t *testing.T) {
	h := newHarness(t)
	r := h.do(http.MethodGet, "/test/panic", nil, nil)
	r.expect(t, 500, "internal error")
	if strings.Contains(string(r.raw), "ssh") || strings.Contains(string(r.raw), "goroutine") || r.detail != "" {
		t.Fatalf("500 body leaks internals: %s", r.raw)
	}
	if !strings.Contains(h.logs.String(), "handler panicked") {
		t.Fatalf("the panic was not logged server-side: %s", h.logs.String())
	}
	h.do(http.MethodGet, "/v1/api/health/db", nil, nil).expect(t, 200, "OK")
}

func TestAbortHandlerDropsTheConnectionQuietly(t *testing.T) {
	h := newHarness(t)
	if _, err := h.srv.Client().Get(h.srv.URL + "/test/abort"); err == nil {
		t.Fatal("http.ErrAbortHandler produced a response; net/http should have dropped the connection")
	}
	if strings.Contains(h.logs.String(), "handler panicked") {
		t.Fatal("ErrAbortHandler was treated as a crash")
	}
	h.do(http.MethodGet, "/v1/api/health/db", nil, nil).expect(t, 200, "OK")
}
