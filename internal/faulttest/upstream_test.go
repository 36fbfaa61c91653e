package faulttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"mdqs/internal/client"
	"mdqs/internal/market"
	"mdqs/internal/upstream/upstreamtest"
)

// requestBound is how long any request may take while the upstream
// misbehaves: far above the push2 client's budget here (0.5 s per attempt,
// one retry), so only a hang or a stuck wait could reach it.
const requestBound = 60 * time.Second

// TestUpstreamFaultsServeStaleData populates the ranking from a fake push2,
// then makes push2 fail in each way an upstream fails. Each time: the
// ranking keeps answering (the previous one, X-Ranking-Stale: true), the
// sector lists and movements answer from the latest collection, the health
// endpoint names the failure's kind, nothing waits past its bound, and
// once push2 heals the next rebuild is fresh again. At the end no
// goroutine is left behind.
func TestUpstreamFaultsServeStaleData(t *testing.T) {
	fake := upstreamtest.NewPush2(t)
	fake.SetSectors(market.Industry, t0, upstreamtest.Sectors("行业", 12))
	fake.SetSectors(market.Concept, t0, upstreamtest.Sectors("概念", 30))
	faulty := upstreamtest.NewFaulty(t, fake.URL)
	faulty.SetDelay(time.Minute) // slower than any timeout: Slow is a hang
	s := newInProcess(t, push2Config(faulty.URL))

	first := s.get(t, "/v1/api/boards/top50")
	if first.Status != http.StatusOK || first.Header.Get("X-Ranking-Stale") != "" {
		t.Fatalf("healthy top50: %d stale=%q %.300s", first.Status, first.Header.Get("X-Ranking-Stale"), first.Body)
	}
	want := rankingNames(t, first.Body)
	if len(want) == 0 {
		t.Fatalf("healthy top50 ranks nothing: %.300s", first.Body)
	}
	for _, p := range []string{"/v1/api/boards/industry", "/v1/api/market/movements?type=concept"} {
		if r := s.get(t, p); r.Status != http.StatusOK {
			t.Fatalf("healthy GET %s: %d %.300s", p, r.Status, r.Body)
		}
	}
	s.client.HTTP.CloseIdleConnections()
	baseline := settledGoroutines()
	baseStacks := goroutineStacks()

	for _, tc := range []struct {
		fault upstreamtest.Fault
		kind  string // last_error_kind of push2 in the health endpoint
	}{
		{upstreamtest.Down, "transport"},
		{upstreamtest.Slow, "timeout"},
		{upstreamtest.Garbage, "malformed"},
		{upstreamtest.Truncated, "truncated"},
		{upstreamtest.HTMLPage, "html"},
		{upstreamtest.BadSchema, "schema"},
	} {
		t.Run(tc.fault.String(), func(t *testing.T) {
			faulty.Set(tc.fault)
			// Past the soft freshness: the next request rebuilds, and the
			// rebuild must collect from the failing upstream.
			s.clock.Advance(61 * time.Second)
			before := faulty.Requests()

			// Several clients at once: they share one rebuild and all get
			// the previous ranking.
			var wg sync.WaitGroup
			results := make([]*client.Response, 4)
			took := make([]time.Duration, len(results))
			for i := range results {
				wg.Go(func() {
					start := time.Now()
					results[i] = s.get(t, "/v1/api/boards/top50")
					took[i] = time.Since(start)
				})
			}
			wg.Wait()
			for i, r := range results {
				if r.Status != http.StatusOK || r.Header.Get("X-Ranking-Stale") != "true" {
					t.Fatalf("top50 #%d with push2 %s: %d stale=%q %.300s", i, tc.fault, r.Status, r.Header.Get("X-Ranking-Stale"), r.Body)
				}
				if got := rankingNames(t, r.Body); !slices.Equal(got, want) {
					t.Fatalf("stale top50 #%d is not the previous ranking: %v, want %v", i, got, want)
				}
				if took[i] > requestBound {
					t.Errorf("top50 #%d took %v with push2 %s", i, took[i], tc.fault)
				}
			}
			if faulty.Requests() == before {
				t.Fatalf("the rebuild did not ask push2 at all")
			}
			st := push2Status(t, s)
			if st.LastErrorKind != tc.kind || st.ConsecutiveFailures == 0 || st.LastError == "" {
				t.Errorf("health/sources push2 with %s: kind %q (want %q), consecutive failures %d, last error %q",
					tc.fault, st.LastErrorKind, tc.kind, st.ConsecutiveFailures, st.LastError)
			}
			t.Logf("push2 %s: top50 stale in %v; health: %s: %s", tc.fault, slices.Max(took).Round(time.Millisecond), st.LastErrorKind, st.LastError)

			// The sector lists and movements answer from the latest stored
			// collection. (Each of these tries a collection first, so with a
			// hanging upstream each waits out the timeout: one is enough.)
			paths := []string{"/v1/api/boards/industry", "/v1/api/boards/concept?top=3", "/v1/api/market/movements?type=industry"}
			if tc.fault == upstreamtest.Slow {
				paths = paths[:1]
			}
			for _, p := range paths {
				start := time.Now()
				r := s.get(t, p)
				if r.Status != http.StatusOK {
					t.Errorf("GET %s with push2 %s: %d %.300s", p, tc.fault, r.Status, r.Body)
				}
				if d := time.Since(start); d > requestBound {
					t.Errorf("GET %s took %v", p, d)
				}
			}
			// A forced rebuild has nothing to fall back on but the old
			// ranking: still an answer, still marked stale.
			if tc.fault != upstreamtest.Slow {
				if r := s.get(t, "/v1/api/boards/top50?refresh=1"); r.Status != http.StatusOK || r.Header.Get("X-Ranking-Stale") != "true" {
					t.Errorf("top50?refresh=1 with push2 %s: %d stale=%q %.300s", tc.fault, r.Status, r.Header.Get("X-Ranking-Stale"), r.Body)
				}
			}

			// Healed: the next rebuild collects again and is fresh.
			faulty.Set(upstreamtest.Healthy)
			s.clock.Advance(61 * time.Second)
			fake.SetSectors(market.Industry, s.clock.Now(), upstreamtest.Sectors("行业", 12))
			fake.SetSectors(market.Concept, s.clock.Now(), upstreamtest.Sectors("概念", 30))
			r := s.get(t, "/v1/api/boards/top50")
			if r.Status != http.StatusOK || r.Header.Get("X-Ranking-Stale") != "" {
				t.Fatalf("top50 after push2 healed: %d stale=%q %.300s", r.Status, r.Header.Get("X-Ranking-Stale"), r.Body)
			}
			if st := push2Status(t, s); st.ConsecutiveFailures != 0 {
				t.Errorf("push2 healed but health shows %d consecutive failures", st.ConsecutiveFailures)
			}
		})
	}

	// Nothing left behind: no request held at the fake, no goroutine more
	// than before the faults (idle keep-alive connections come and go, so
	// allow a few and wait for them to settle).
	deadline := time.Now().Add(20 * time.Second)
	for faulty.Held() > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := faulty.Held(); n > 0 {
		t.Errorf("%d requests still held at the slow upstream: their callers never gave up", n)
	}
	s.client.HTTP.CloseIdleConnections()
	const tolerance = 6
	var now int
	for {
		now = runtime.NumGoroutine()
		if now <= baseline+tolerance || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("goroutines: %d before the faults, %d after", baseline, now)
	if now > baseline+tolerance {
		t.Errorf("goroutine leak: %d before the faults, %d after; new stacks:\n%s", baseline, now, stackDiff(baseStacks, goroutineStacks()))
	}
}

// TestNoUpstreamAtAllIsAClearError: a server that never collected and
// whose upstream is down has nothing to serve: a 503 envelope that says
// so, quickly, not a 500 or a hang.
func TestNoUpstreamAtAllIsAClearError(t *testing.T) {
	fake := upstreamtest.NewPush2(t)
	faulty := upstreamtest.NewFaulty(t, fake.URL)
	faulty.Set(upstreamtest.Down)
	s := newInProcess(t, push2Config(faulty.URL))
	for _, p := range []string{"/v1/api/boards/top50", "/v1/api/boards/industry", "/v1/api/market/movements", "/v1/api/strategy/auction/today"} {
		start := time.Now()
		r := s.get(t, p)
		var env struct {
			Code    *int   `json:"code"`
			Message string `json:"message"`
			Detail  string `json:"detail"`
		}
		if err := json.Unmarshal(r.Body, &env); err != nil || env.Code == nil || *env.Code != 0 {
			t.Errorf("GET %s with push2 down and nothing stored: not a failure envelope: %d %.300s", p, r.Status, r.Body)
			continue
		}
		if r.Status != http.StatusServiceUnavailable || r.Header.Get("Retry-After") == "" || env.Detail == "" {
			t.Errorf("GET %s with push2 down and nothing stored: %d Retry-After=%q %.300s; want a 503 saying why",
				p, r.Status, r.Header.Get("Retry-After"), r.Body)
		}
		if d := time.Since(start); d > requestBound {
			t.Errorf("GET %s took %v", p, d)
		}
		t.Logf("GET %s: %d %s", p, r.Status, r.Body)
	}
}

type sourceStatus struct {
	Source              string `json:"source"`
	LastErrorKind       string `json:"last_error_kind"`
	LastError           string `json:"last_error"`
	ConsecutiveFailures int64  `json:"consecutive_failures"`
}

func push2Status(t *testing.T, s *inProcess) sourceStatus {
	t.Helper()
	r := s.get(t, "/v1/api/health/sources")
	var env struct {
		Data struct {
			Sources []sourceStatus `json:"sources"`
		} `json:"data"`
	}
	if r.Status != http.StatusOK || json.Unmarshal(r.Body, &env) != nil {
		t.Fatalf("health/sources: %d %.300s", r.Status, r.Body)
	}
	for _, st := range env.Data.Sources {
		if st.Source == "push2" {
			return st
		}
	}
	t.Fatalf("health/sources lists no push2: %s", r.Body)
	return sourceStatus{}
}

// rankingNames is the merged inflow list of a top50 answer, by name.
func rankingNames(t *testing.T, body []byte) []string {
	t.Helper()
	var r struct {
		Sectors []struct {
			Name string `json:"sector_name"`
		} `json:"sectors"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatalf("top50 is not JSON: %v: %.300s", err, body)
	}
	out := make([]string, len(r.Sectors))
	for i, x := range r.Sectors {
		out[i] = x.Name
	}
	return out
}

// settledGoroutines waits briefly for short-lived goroutines to end and
// returns the count.
func settledGoroutines() int {
	n := runtime.NumGoroutine()
	for range 20 {
		time.Sleep(50 * time.Millisecond)
		m := runtime.NumGoroutine()
		if m == n {
			break
		}
		n = m
	}
	return n
}

// goroutineStacks counts goroutines by their stack.
func goroutineStacks() map[string]int {
	var b bytes.Buffer
	pprof.Lookup("goroutine").WriteTo(&b, 1)
	out := map[string]int{}
	for _, block := range strings.Split(b.String(), "\n\n") {
		var n int
		head, rest, _ := strings.Cut(block, "\n")
		if _, err := fmt.Sscanf(head, "%d @", &n); err != nil {
			continue
		}
		out[rest] += n
	}
	return out
}

// stackDiff lists the stacks with more goroutines after than before.
func stackDiff(before, after map[string]int) string {
	var b strings.Builder
	for stack, n := range after {
		if n > before[stack] {
			fmt.Fprintf(&b, "+%d:\n%s\n\n", n-before[stack], stack)
		}
	}
	return b.String()
}
