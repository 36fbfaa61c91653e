//go:build faults

package faulttest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"mdqs/internal/client"
	"mdqs/internal/market"
	"mdqs/internal/upstream/upstreamtest"
)

// TestHungUpstreamWithShippedTimeouts: push2 accepts connections and never
// answers, with the shipped per-attempt timeout and retries (10 s, 3) and
// the shipped server.write_timeout (60 s). The ranking must still answer,
// stale, before the server's write deadline cuts the connection: a client
// must get the previous ranking, not a dropped connection.
func TestHungUpstreamWithShippedTimeouts(t *testing.T) {
	fake := upstreamtest.NewPush2(t)
	fake.SetSectors(market.Industry, t0, upstreamtest.Sectors("行业", 12))
	fake.SetSectors(market.Concept, t0, upstreamtest.Sectors("概念", 30))
	faulty := upstreamtest.NewFaulty(t, fake.URL)
	faulty.SetDelay(10 * time.Minute)
	s := newInProcess(t, fmt.Sprintf(`[sources]
default = "push2"
[sources.push2]
base_url = %q
[sources.push2his]
base_url = "http://127.0.0.1:1"
[sources.akshare]
base_url = "http://127.0.0.1:1"
[demo]
enabled = false
`, faulty.URL))
	if r := s.get(t, "/v1/api/boards/top50"); r.Status != http.StatusOK {
		t.Fatalf("healthy top50: %d %.300s", r.Status, r.Body)
	}
	faulty.Set(upstreamtest.Slow)
	s.clock.Advance(61 * time.Second)
	start := time.Now()
	t.Logf("top50 asked at %s", start.Format("15:04:05.000"))
	tok, err := s.client.Token(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodGet, s.url+"/v1/api/boards/top50", nil)
	s.client.Sign(req.Header, tok, nil)
	hc := &http.Client{Timeout: 10 * time.Minute, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := hc.Do(req)
	took := time.Since(start)
	var r *client.Response
	if err == nil {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		r = &client.Response{Status: resp.StatusCode, Header: resp.Header, Body: body}
	}
	if err != nil {
		t.Fatalf("FINDING: top50 with push2 hanging failed after %v: %v (server.write_timeout is 60s)\n%s", took.Round(time.Millisecond), err, s.logs)
	}
	if r.Status != http.StatusOK || r.Header.Get("X-Ranking-Stale") != "true" {
		t.Fatalf("top50 with push2 hanging: %d stale=%q after %v: %.300s", r.Status, r.Header.Get("X-Ranking-Stale"), took, r.Body)
	}
	t.Logf("stale top50 after %v with push2 hanging", took.Round(time.Millisecond))
}
