package main

import (
	"testing"
	"time"

	"mdqs/internal/market"
)

// smallDemo is the shipped demo configuration at the smallest market the
// demo allows, so a server starts and fills its history in well under a
// second and a test can start many.
const smallDemo = `
[demo]
stocks = 50
industries = 5
concepts = 5
history_days = 30
`

// TestCoreEndpointsAnswerBeforeTheOpen: at 00:11 on a Tuesday the current
// trading day is Monday; a fresh demo server must answer Monday's data, not
// 503 because the demo market's clock has moved to Tuesday.
func TestCoreEndpointsAnswerBeforeTheOpen(t *testing.T) {
	at := time.Date(2026, 11, 24, 0, 11, 0, 0, market.Shanghai())
	s := startServerWith(t, serveOptions{config: smallDemo, at: at})
	c := s.client()
	for _, path := range []string{
		"/v1/api/boards/top50", "/v1/api/boards/industry", "/v1/api/market/movements", "/v1/api/strategy/auction/today",
	} {
		status, body := s.get(t, c, path)
		if status != 200 {
			t.Errorf("%s at %s: %d %v", path, market.FormatTime(at), status, body)
			continue
		}
		if day := answerDay(body); day != "2026-11-23" {
			t.Errorf("%s names day %q, want 2026-11-23", path, day)
		}
	}
}

// answerDay is the trading day an answer names, wherever its shape keeps it.
func answerDay(body map[string]any) string {
	norm := func(v any) string {
		s, _ := v.(string)
		if len(s) == 8 {
			return s[:4] + "-" + s[4:6] + "-" + s[6:]
		}
		return s
	}
	if d, ok := body["day"]; ok {
		return norm(d)
	}
	if m, ok := body["meta"].(map[string]any); ok {
		return norm(m["day"])
	}
	if d, ok := body["data"].(map[string]any); ok {
		if v, ok := d["day"]; ok {
			return norm(v)
		}
		for _, k := range []string{"date", "trade_date"} {
			if v, ok := d[k]; ok {
				return norm(v)
			}
		}
	}
	return ""
}
