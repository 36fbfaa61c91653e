package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"runtime/pprof"
	"slices"
	"strings"
	"testing"
	"time"
)

// gzipped is how pprof's binary profiles start (gzip'd protobuf).
var gzipMagic = []byte{0x1f, 0x8b}

// From this machine the profiler needs no credentials, like /metrics: each
// route answers in the runtime's own format.
func TestPprofFromLoopback(t *testing.T) {
	h := newHarness(t)
	for _, tc := range []struct {
		method, target string
		body           []byte
		want           func(b []byte) bool
	}{
		{"GET", "/debug/pprof/", nil, func(b []byte) bool { return bytes.Contains(b, []byte("goroutine?debug=1")) }},
		{"GET", "/debug/pprof/cmdline", nil, func(b []byte) bool { return len(b) > 0 }},
		{"GET", "/debug/pprof/symbol", nil, func(b []byte) bool { return bytes.HasPrefix(b, []byte("num_symbols:")) }},
		{"POST", "/debug/pprof/symbol", []byte("0x1"), func(b []byte) bool { return bytes.HasPrefix(b, []byte("num_symbols:")) }},
		{"GET", "/debug/pprof/heap", nil, func(b []byte) bool { return bytes.HasPrefix(b, gzipMagic) }},
		{"GET", "/debug/pprof/heap?debug=1&gc=1", nil, func(b []byte) bool { return bytes.Contains(b, []byte("heap profile:")) }},
		{"GET", "/debug/pprof/goroutine?debug=2", nil, func(b []byte) bool { return bytes.Contains(b, []byte("goroutine ")) }},
		{"GET", "/debug/pprof/allocs", nil, func(b []byte) bool { return bytes.HasPrefix(b, gzipMagic) }},
		{"GET", "/debug/pprof/block", nil, func(b []byte) bool { return bytes.HasPrefix(b, gzipMagic) }},
		{"GET", "/debug/pprof/mutex", nil, func(b []byte) bool { return bytes.HasPrefix(b, gzipMagic) }},
		{"GET", "/debug/pprof/threadcreate?debug=1", nil, func(b []byte) bool { return bytes.Contains(b, []byte("threadcreate profile:")) }},
		{"GET", "/debug/pprof/trace?seconds=1", nil, func(b []byte) bool { return len(b) > 0 }},
	} {
		r := h.raw(tc.method, tc.target, tc.body, nil)
		if r.status != 200 || !tc.want(r.raw) {
			t.Errorf("%s %s: %d %q %.200q", tc.method, tc.target, r.status, r.header.Get("Content-Type"), r.raw)
		}
	}
	// The requests are counted like any other, under their route.
	if n := mustSample(t, h.scrape(), "mdqs_http_requests_total", map[string]string{"route": "/debug/pprof/heap", "code": "200"}); n != 2 {
		t.Errorf("heap requests counted %v, want 2", n)
	}
}

// From another address the profiler is an admin endpoint: it shows the
// command line, every goroutine's stack and the heap.
func TestPprofNeedsAdminFromOtherAddresses(t *testing.T) {
	h := newHarness(t)
	h.addClient("m", "secret-m", clientOpts{scopes: "market"})
	h.addClient("a", "secret-a", clientOpts{scopes: "admin"})
	market, admin := h.token("m", "secret-m"), h.token("a", "secret-a")
	for _, target := range []string{"/debug/pprof/", "/debug/pprof/goroutine?debug=1", "/debug/pprof/cmdline"} {
		get := func(header http.Header) *httptest.ResponseRecorder {
			req := httptest.NewRequest(http.MethodGet, target, nil)
			req.RemoteAddr = "192.0.2.7:50123"
			for k, v := range header {
				req.Header[k] = v
			}
			rec := httptest.NewRecorder()
			h.api.Handler().ServeHTTP(rec, req)
			return rec
		}
		if rec := get(nil); rec.Code != 401 || !strings.Contains(rec.Body.String(), `"code":0`) {
			t.Errorf("anonymous remote %s: %d %.200s", target, rec.Code, rec.Body)
		}
		if rec := get(h.signedHeader(market, nil)); rec.Code != 403 {
			t.Errorf("market-scope remote %s: %d %.200s", target, rec.Code, rec.Body)
		}
		if rec := get(h.signedHeader(admin, nil)); rec.Code != 200 || rec.Body.Len() == 0 || strings.Contains(rec.Body.String(), `"code":0`) {
			t.Errorf("admin remote %s: %d %.200s", target, rec.Code, rec.Body)
		}
	}
}

// Bad parameters are the API's 400 envelope, not pprof's plain text, and
// a profile longer than the server may take to answer is refused before
// it starts.
func TestPprofParameters(t *testing.T) {
	h := newHarness(t)
	for _, target := range []string{
		"/debug/pprof/profile?seconds=0", "/debug/pprof/profile?seconds=abc", "/debug/pprof/profile?seconds=301",
		"/debug/pprof/trace?seconds=-1", "/debug/pprof/heap?debug=9", "/debug/pprof/heap?gc=x", "/debug/pprof/goroutine?seconds=",
	} {
		r := h.raw(http.MethodGet, target, nil, nil)
		var env struct {
			Code   *int   `json:"code"`
			Detail string `json:"detail"`
		}
		if r.status != 400 || json.Unmarshal(r.raw, &env) != nil || env.Code == nil || *env.Code != 0 || env.Detail == "" {
			t.Errorf("GET %s: %d %.200s, want a 400 envelope", target, r.status, r.raw)
		}
	}
	if r := h.raw(http.MethodGet, "/debug/pprof/nosuch", nil, nil); r.status != 404 || !bytes.Contains(r.raw, []byte(`"code":0`)) {
		t.Errorf("an unknown profile: %d %.200s", r.status, r.raw)
	}

	srv := httptest.NewUnstartedServer(h.api.Handler())
	srv.Config.WriteTimeout = 5 * time.Second
	srv.Start()
	t.Cleanup(srv.Close)
	res, err := srv.Client().Get(srv.URL + "/debug/pprof/profile?seconds=5")
	if err != nil {
		t.Fatal(err)
	}
	var body bytes.Buffer
	body.ReadFrom(res.Body)
	res.Body.Close()
	if res.StatusCode != 400 || !strings.Contains(body.String(), "write timeout") {
		t.Errorf("a 5 s profile with a 5 s write timeout: %d %.300s", res.StatusCode, body.Bytes())
	}
}

// The runtime takes one CPU profile at a time: a second caller is told
// when to come back (429 with Retry-After), not answered with pprof's 500.
func TestPprofOneCPUProfileAtATime(t *testing.T) {
	h := newHarness(t)
	answers := make(chan response, 2)
	for range 2 {
		go func() { answers <- h.raw(http.MethodGet, "/debug/pprof/profile?seconds=2", nil, nil) }()
	}
	a, b := <-answers, <-answers
	if a.status == 429 {
		a, b = b, a
	}
	if a.status != 200 || !bytes.HasPrefix(a.raw, gzipMagic) {
		t.Errorf("the profile taken: %d %.200q", a.status, a.raw)
	}
	if b.status != 429 || b.header.Get("Retry-After") == "" || !bytes.Contains(b.raw, []byte("CPU profile")) {
		t.Errorf("the profile asked for meanwhile: %d Retry-After %q %.300q", b.status, b.header.Get("Retry-After"), b.raw)
	}
}

// Every profile the runtime keeps has its route, so the index page links
// to nothing that is missing.
func TestPprofRoutesEveryRuntimeProfile(t *testing.T) {
	routes := newHarness(t).api.Routes()
	for _, p := range pprof.Profiles() {
		if !slices.Contains(routes, "GET /debug/pprof/"+p.Name()) {
			t.Errorf("the runtime keeps profile %q, which has no route", p.Name())
		}
	}
}
