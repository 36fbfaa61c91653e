package api

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"mdqs/internal/market"
	"mdqs/jobs"
)

// The health endpoints write every time as the rest of the API does:
// "YYYY-MM-DD HH:MM:SS" in Asia/Shanghai, whatever zone a package's clock
// gave (the job runner's here is UTC).
func TestHealthTimesAreTheAPIsDateTime(t *testing.T) {
	runner := jobs.NewRunner(nil, market.NewFixedClock(t0.UTC()))
	runner.Add(jobs.Job{Name: "probe", Interval: time.Hour, Run: func(context.Context) error { return nil }})
	if err := runner.RunNow(context.Background(), "probe"); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, withJobs(runner))
	h.addClient("c", "secret-c", clientOpts{})
	tok := h.token("c", "secret-c")
	if r := h.signed(http.MethodGet, "/v1/api/boards/top50", tok, nil); r.status != 200 {
		t.Fatalf("top50: %d", r.status)
	}
	// A minute later push2 is down until its circuit opens: an error
	// time, an opening and a probe time.
	h.clock.Advance(time.Minute)
	h.push2.Fail(market.Industry, http.StatusBadGateway)
	h.push2.Fail(market.Concept, http.StatusBadGateway)
	for i := 0; i < 10; i++ {
		if r := h.signed(http.MethodGet, "/v1/api/boards/top50?refresh=1", tok, nil); strings.Contains(string(r.raw), "circuit_open") {
			break
		}
	}

	r := h.do(http.MethodGet, "/v1/api/health/sources", nil, nil)
	r.expect(t, 200, "OK")
	newContract(t, h).check(http.MethodGet, "/v1/api/health/sources", nil, nil, r) // the document's pattern too
	var d struct {
		Sources []map[string]any `json:"sources"`
		Jobs    []map[string]any `json:"jobs"`
	}
	if err := json.Unmarshal(r.data, &d); err != nil || len(d.Sources) == 0 || len(d.Jobs) == 0 {
		t.Fatalf("health/sources = %s", r.data)
	}
	want := map[string]string{
		"last_success": "2026-11-23 10:00:00", "last_error_at": "2026-11-23 10:01:00",
		"breaker_opened_at": "2026-11-23 10:01:00", "breaker_probe_at": "2026-11-23 10:01:30",
		"last_start": "2026-11-23 10:00:00", "last_end": "2026-11-23 10:00:00",
	}
	for name, obj := range map[string]map[string]any{"push2": d.Sources[0], "job": d.Jobs[0]} {
		for k, v := range obj {
			if got, ok := want[k]; ok && v != got {
				t.Errorf("%s %s = %v, want %s", name, k, v, got)
			}
		}
	}
	// Nothing else that looks like a time is written another way.
	rfc3339 := regexp.MustCompile(`"\d{4}-\d\d-\d\dT\d\d:\d\d`)
	if m := rfc3339.FindString(string(r.raw)); m != "" {
		t.Errorf("health/sources still writes an RFC 3339 time (%s…): %s", m, r.raw)
	}
	for k := range want {
		if !strings.Contains(string(r.raw), `"`+k+`"`) {
			t.Errorf("health/sources has no %s: %s", k, r.raw)
		}
	}
}
