package faulttest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// failing is an upstream that answers every request 502 and counts the
// requests by target: a retry repeats its call's target.
type failing struct {
	*httptest.Server
	mu      sync.Mutex
	targets map[string]int
}

func newFailing(t *testing.T) *failing {
	t.Helper()
	f := &failing{targets: map[string]int{}}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.targets[r.URL.RequestURI()]++
		f.mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		fmt.Fprint(w, "<html><body><h1>502 Bad Gateway</h1></body></html>")
	}))
	t.Cleanup(f.Close)
	return f
}

// take returns the requests per target since the last take.
func (f *failing) take() map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.targets
	f.targets = map[string]int{}
	return out
}

// TestFirstFailuresAnswerAtOnce (issue 32): push2 and push2his answer
// 502 to everything, with the shipped retries and backoff (3 retries from
// 500 ms) and nothing stored. The first requests that need them answer a
// 503 naming the source and its failure after one attempt per call, as
// the requests after the circuit opens answer without any: before, each
// of the first failures waited out its call's four attempts and their
// backoff (2.7-7 s a request) until the circuit opened.
func TestFirstFailuresAnswerAtOnce(t *testing.T) {
	push2, push2his := newFailing(t), newFailing(t)
	s := newInProcess(t, fmt.Sprintf(`[sources]
default = "push2"
[sources.push2]
base_url = %q
[sources.push2his]
base_url = %q
[sources.akshare]
base_url = "http://127.0.0.1:1"
[demo]
enabled = false
`, push2.URL, push2his.URL))
	for _, tc := range []struct {
		path, source string
		upstream     *failing
	}{
		{"/v1/api/boards/top50", "push2", push2},
		{"/v1/api/kline?code=600519.SH&freq=D&start=2026-01-05&end=2026-06-30", "push2his", push2his},
		{"/v1/api/boards/concept", "push2", push2},
		{"/v1/api/intraday/kline?code=000001.SZ", "push2his", push2his},
	} {
		r := s.get(t, tc.path)
		env, ok := failureOf(r)
		if !ok || r.Status != http.StatusServiceUnavailable || r.Header.Get("Retry-After") == "" ||
			!strings.Contains(env.Detail, "upstream "+tc.source+" ") || !strings.Contains(env.Detail, "502") {
			t.Errorf("GET %s with %s failing: %d Retry-After=%q %.300s; want a 503 naming %s and its 502",
				tc.path, tc.source, r.Status, r.Header.Get("Retry-After"), r.Body, tc.source)
		}
		sent := tc.upstream.take()
		if len(sent) == 0 {
			t.Errorf("GET %s asked %s nothing", tc.path, tc.source)
		}
		for target, n := range sent {
			if n != 1 {
				t.Errorf("GET %s: %s was asked %s %d times before the answer, want once (no retries while a request waits on a failing source)",
					tc.path, tc.source, target, n)
			}
		}
		t.Logf("GET %s: %d after %d calls: %s", tc.path, r.Status, len(sent), env.Detail)
	}
}
