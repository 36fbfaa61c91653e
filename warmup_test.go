package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"mdqs/internal/client"
	"mdqs/internal/market"
)

// TestWarmUpAnswersStartingUpNeverNotFound holds every start-up job's first
// run and walks every GET endpoint of the OpenAPI document: none may answer
// 404 for data a start-up job is about to provide; the answers that wait
// for one are 503 with Retry-After naming the job. /healthz answers 200
// and /readyz 503 listing the jobs. Once the jobs run, /readyz is 200, the
// same answers are 200, and a genuine not-found is 404 again. Before, five
// of them answered 404 ("no daily signals for 600519.SH yet", "no hot rank
// is stored yet") for the first seconds of a fresh start.
func TestWarmUpAnswersStartingUpNeverNotFound(t *testing.T) {
	if testing.Short() {
		t.Skip("serves the demo market at real scale")
	}
	hold := make(chan struct{})
	// A short upstream_wait bounds the terminal bridge's wait for its
	// folder, which a held start-up job writes: 503 after it, not a hang.
	s := startServerWith(t, serveOptions{holdStart: hold, cheapHash: true, config: "[server]\nupstream_wait = \"1s\"\n"})
	c := s.client()
	ctx := context.Background()
	type answer struct {
		status int
		header http.Header
		body   []byte
	}
	get := func(t *testing.T, path string) answer {
		t.Helper()
		resp, err := c.Do(ctx, "GET", path, nil)
		var refused *client.TokenError
		if errors.As(err, &refused) {
			resp, err = refused.Response, nil
		}
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		return answer{resp.Status, resp.Header, resp.Body}
	}
	raw := func(t *testing.T, path string) (int, []byte) { a := get(t, path); return a.status, a.body }
	resp, err := c.Do(ctx, "POST", "/v1/api/screener/queue/submit", []byte(`{"expression":"pct > 5","limit":3}`))
	var screen struct{ Data struct{ ID string } }
	if err != nil || resp.Status != 200 || json.Unmarshal(resp.Body, &screen) != nil {
		t.Fatalf("submit a screen: %v %v", err, resp)
	}
	// An alert's deliveries are its own, none yet: 200 with none, where
	// the screen's id would rightly be an unknown alert (404).
	resp, err = c.Do(ctx, "POST", "/v1/api/alerts", []byte(`{"expression":"pct > 5"}`))
	var alert struct{ Data struct{ ID string } }
	if err != nil || resp.Status != 200 || json.Unmarshal(resp.Body, &alert) != nil {
		t.Fatalf("create an alert: %v %v", err, resp)
	}
	now := time.Now()
	day := now.Format("2006-01-02")
	prev := market.DefaultCalendar().Prev(market.DayOf(now)).String()
	values := map[string]string{"code": "600519.SH", "codes": "600519.SH,000001.SH", "freq": "D", "mode": "qfq", "start": day[:8] + "01", "end": day, "id": screen.Data.ID,
		"date": prev, "/v1/api/bars/minute time": "10:30",
		"/v1/api/news/view id": "999999999", "/v1/api/block/members block": "沪深300",
		"/v1/api/hot_rank/detail stock_code": "600519.SH",
		"/v1/api/index/members code":         "000300.SH", "/v1/api/index/changes code": "000300.SH",
		"/v1/api/lhb/seats name": "机构专用", "/v1/api/lhb date": prev,
		"/v1/api/alerts/deliveries id": alert.Data.ID}
	endpoints := openAPIGets(t, raw, values)

	// Every start-up job is held: nothing it provides is there yet.
	for _, ep := range endpoints {
		a := get(t, ep.target)
		if a.status == http.StatusNotFound {
			t.Errorf("during warm-up GET %s = 404, want no 404 for data a start-up job provides: %.300s", ep.target, a.body)
		}
	}
	for _, target := range []string{
		"/v1/api/indicators/micro_momentum?code=600519.SH&freq=D",
		"/v1/api/monitor/chip_metrics?code=600519.SH",
		"/v1/api/hot_rank",
		"/v1/api/hot_rank_list",
		"/v1/api/corporate_actions?code=600519.SH",
	} {
		a := get(t, target)
		var body struct{ Detail string }
		json.Unmarshal(a.body, &body)
		if a.status != 503 || a.header.Get("Retry-After") == "" || !strings.HasPrefix(body.Detail, "starting up: ") {
			t.Errorf("during warm-up GET %s = %d Retry-After %q %s, want 503 with Retry-After and a detail \"starting up: ...\"",
				target, a.status, a.header.Get("Retry-After"), a.body)
		}
	}
	probe := func(path string) (int, http.Header, map[string]any) {
		t.Helper()
		resp, err := http.Get("http://" + s.addr + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
			t.Fatalf("GET %s: %d, not JSON: %v", path, resp.StatusCode, err)
		}
		return resp.StatusCode, resp.Header, body
	}
	if status, _, body := probe("/healthz"); status != 200 {
		t.Errorf("during warm-up GET /healthz = %d %v, want 200", status, body)
	}
	status, header, body := probe("/readyz")
	if pending, _ := body["pending"].([]any); status != 503 || header.Get("Retry-After") == "" || len(pending) == 0 {
		t.Errorf("during warm-up GET /readyz = %d Retry-After %q %v, want 503 with Retry-After listing the pending jobs", status, header.Get("Retry-After"), body)
	} else if !strings.Contains(string(mustJSON(t, pending)), "kline-end-of-day") {
		t.Errorf("during warm-up /readyz pending = %v, want kline-end-of-day among them", pending)
	}

	// The jobs run: ready, the answers are there, a genuine not-found is 404.
	close(hold)
	deadline := time.Now().Add(5 * time.Minute) // a failsafe, not a measure
	for {
		status, _, body = probe("/readyz")
		if status == 200 {
			break
		}
		if status == 404 || time.Now().After(deadline) {
			t.Fatalf("/readyz never 200: %v\n%s", body, s.logs)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if status, _, body := probe("/healthz"); status != 200 {
		t.Errorf("GET /healthz = %d %v, want 200", status, body)
	}
	for _, target := range []string{
		"/v1/api/indicators/micro_momentum?code=600519.SH&freq=D",
		"/v1/api/monitor/chip_metrics?code=600519.SH",
		"/v1/api/hot_rank",
		"/v1/api/hot_rank_list",
		"/v1/api/corporate_actions?code=600519.SH",
	} {
		if a := get(t, target); a.status != 200 {
			t.Errorf("once ready GET %s = %d %.300s, want 200", target, a.status, a.body)
		}
	}
	if a := get(t, "/v1/api/news/view?id=999999999"); a.status != 404 {
		t.Errorf("once ready GET /v1/api/news/view?id=999999999 = %d %.300s, want 404: a genuine not-found", a.status, a.body)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
