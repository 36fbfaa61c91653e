package api

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// Issue 20: a head over the bounds is the envelope, naming what to shorten.
func TestHeadOverBoundsIsTheEnvelope(t *testing.T) {
	h := newHarness(t)
	r := h.do(http.MethodGet, "/v1/api/health/db?x="+strings.Repeat("a", maxURIBytes), nil, nil)
	r.expect(t, http.StatusRequestURITooLong, "request URI too long")
	if !strings.Contains(r.detail, "at most 65536") {
		t.Errorf("414 detail = %q, want the bound", r.detail)
	}
	r = h.do(http.MethodGet, "/v1/api/health/db", nil, http.Header{"X-Big": {strings.Repeat("a", maxHeaderBytes)}})
	r.expect(t, http.StatusRequestHeaderFieldsTooLarge, "request header fields too large")
	if !strings.Contains(r.detail, "X-Big") {
		t.Errorf("431 detail = %q, want the largest field named", r.detail)
	}
	// Within the bounds nothing changes.
	h.do(http.MethodGet, "/v1/api/health/db", nil, http.Header{"X-Big": {strings.Repeat("a", 8<<10)}}).expect(t, 200, "OK")
}

// Issue 20: the answers net/http writes by itself, before any handler, are
// the envelope too; every other answer passes through untouched.
func TestListenerMakesNetHTTPAnswersTheEnvelope(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/text" { // a handler's own plain-text error stays as it is
			http.Error(w, "400 Bad Request", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		io.WriteString(w, `{"code":1,"message":"OK"}`)
	}))
	srv.Listener = Listener(srv.Listener)
	srv.Config.MaxHeaderBytes = 4 << 10 // net/http's own 431 at about 8 KiB
	srv.Start()
	t.Cleanup(srv.Close)
	addr := srv.Listener.Addr().String()

	for _, tt := range []struct {
		name, raw string
		status    int
		message   string
	}{
		{"head over MaxHeaderBytes", "GET / HTTP/1.1\r\nHost: a\r\nX-Big: " + strings.Repeat("a", 16<<10) + "\r\n\r\n", 431, "request header fields too large"},
		{"URI over MaxHeaderBytes", "GET /?" + strings.Repeat("a", 16<<10) + " HTTP/1.1\r\nHost: a\r\n\r\n", 431, "request header fields too large"},
		{"not HTTP", "GARBAGE\r\n\r\n", 400, "missing or invalid params"},
		{"malformed header", "GET / HTTP/1.1\r\nHost: a\r\nno colon\r\n\r\n", 400, "missing or invalid params"},
		{"unknown version", "GET / HTTP/3.0\r\nHost: a\r\n\r\n", 400, "missing or invalid params"},
		{"unknown transfer coding", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n", 400, "missing or invalid params"},
		{"unknown expectation", "GET / HTTP/1.1\r\nHost: a\r\nExpect: teapot\r\n\r\n", 400, "missing or invalid params"},
		{"a good request", "GET / HTTP/1.1\r\nHost: a\r\n\r\n", 200, "OK"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, body := rawRequest(t, addr, tt.raw)
			var env struct {
				Code    *int   `json:"code"`
				Message string `json:"message"`
				Detail  string `json:"detail"`
			}
			if res.StatusCode != tt.status || json.Unmarshal(body, &env) != nil || env.Code == nil || env.Message != tt.message {
				t.Fatalf("%d %s %q, want %d and the envelope %q", res.StatusCode, res.Header.Get("Content-Type"), body, tt.status, tt.message)
			}
			if ct := res.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
				t.Errorf("Content-Type = %q", ct)
			}
			if tt.status >= 400 && env.Detail == "" {
				t.Errorf("no detail saying what to fix: %s", body)
			}
		})
	}
	res, body := rawRequest(t, addr, "GET /text HTTP/1.1\r\nHost: a\r\n\r\n")
	if res.StatusCode != 400 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/plain") || string(body) != "400 Bad Request\n" {
		t.Errorf("a handler's own answer was changed: %d %s %q", res.StatusCode, res.Header.Get("Content-Type"), body)
	}
}

func rawRequest(t *testing.T, addr, raw string) (*http.Response, []byte) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Minute))
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res, body
}
