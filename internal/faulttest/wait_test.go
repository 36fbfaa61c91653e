package faulttest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"mdqs/internal/client"
	"mdqs/internal/upstream/upstreamtest"
)

// envelope is a failure answer's body.
type envelope struct {
	Code    *int   `json:"code"`
	Message string `json:"message"`
	Detail  string `json:"detail"`
}

// failureOf reads a failure envelope (code 0); ok is false for anything else.
func failureOf(r *client.Response) (env envelope, ok bool) {
	if json.Unmarshal(r.Body, &env) != nil || env.Code == nil || *env.Code != 0 {
		return env, false
	}
	return env, true
}

// TestHangingUpstreamAnswersWithinUpstreamWait (issue 20, point 3): every
// upstream hangs (3 s per attempt here, longer than the wait) and nothing
// is stored. Requests that need an upstream (top50 in auto mode,
// K-lines the store lacks, an intraday series) answer a 503 envelope naming
// the source, with Retry-After, once server.upstream_wait (here 1 s) has
// passed, while the fetches are still held at the upstream: they go on in
// the background to fill the store, the request does not wait them out.
// Before, top50 waited for its collection's two minutes and an intraday
// series for its fetch's minute, past the write deadline.
func TestHangingUpstreamAnswersWithinUpstreamWait(t *testing.T) {
	fake := upstreamtest.NewPush2(t)
	push2, push2his, akshare := hanging(t, fake.URL), hanging(t, fake.URL), hanging(t, fake.URL)
	const wait, slack = time.Second, 10 * time.Second
	s := newInProcess(t, fmt.Sprintf(`[server]
upstream_wait = %q
[sources]
default = "auto"
[sources.push2]
base_url = %q
timeout = "3s"
retries = 0
[sources.push2his]
base_url = %q
timeout = "3s"
retries = 0
[sources.akshare]
base_url = %q
timeout = "3s"
retries = 0
[demo]
enabled = false
`, wait, push2.URL, push2his.URL, akshare.URL))

	for _, tc := range []struct {
		path, source string
		held         *upstreamtest.Faulty
	}{
		{"/v1/api/boards/top50", "akshare industry snapshot", akshare},
		{"/v1/api/boards/concept", "push2 concept snapshot", push2},
		{"/v1/api/kline?code=600519.SH&freq=D&start=2026-01-05&end=2026-06-30", "push2his D bars of 600519.SH", push2his},
		{"/v1/api/intraday/kline?code=000001.SZ", "push2his intraday series of 000001.SZ", push2his},
	} {
		// Concurrent readers of the same missing data share one fetch and
		// each gets its 503.
		var wg sync.WaitGroup
		results := make([]*client.Response, 3)
		took := make([]time.Duration, len(results))
		for i := range results {
			wg.Go(func() {
				start := time.Now()
				results[i] = s.get(t, tc.path)
				took[i] = time.Since(start)
			})
		}
		wg.Wait()
		held := tc.held.Held()
		for i, r := range results {
			env, ok := failureOf(r)
			if !ok || r.Status != http.StatusServiceUnavailable || r.Header.Get("Retry-After") == "" ||
				!strings.Contains(env.Detail, tc.source) || !strings.Contains(env.Detail, "no answer within") {
				t.Errorf("GET %s #%d with the upstreams hanging: %d Retry-After=%q %.300s; want a 503 naming %q",
					tc.path, i, r.Status, r.Header.Get("Retry-After"), r.Body, tc.source)
			}
			if took[i] > wait+slack {
				t.Errorf("GET %s #%d took %v", tc.path, i, took[i])
			}
		}
		if held == 0 {
			t.Errorf("GET %s: answered after the fetch ended; it should answer while the fetch goes on", tc.path)
		}
		t.Logf("GET %s: %d after %v (fetches held at the upstream: %d): %s", tc.path, results[0].Status,
			took[0].Round(time.Millisecond), held, results[0].Body)
	}
}

// hanging is a proxy to base that accepts and never answers: one per
// upstream, since each host has its own rate cap.
func hanging(t *testing.T, base string) *upstreamtest.Faulty {
	f := upstreamtest.NewFaulty(t, base)
	f.SetDelay(10 * time.Minute)
	f.Set(upstreamtest.Slow)
	return f
}
