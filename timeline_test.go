package main

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"mdqs/internal/market"
)

// eventList is a day's movement timeline as "type board trigger event_ts".
func eventList(t *testing.T, s *server, day string) []string {
	t.Helper()
	path := "/v1/api/market/movements/events"
	if day != "" {
		path += "?day=" + day
	}
	status, body := s.get(t, s.client(), path)
	if status != 200 {
		t.Fatalf("%s: %d %v", path, status, body)
	}
	var out []string
	for _, it := range body["data"].(map[string]any)["items"].([]any) {
		e := it.(map[string]any)
		out = append(out, fmt.Sprintf("%s %s %s %s", e["type"], e["board_name"], e["trigger"], e["event_ts"]))
	}
	return out
}

// The demo market's intraday path is deterministic, so its timeline is one
// whenever a server sees the day: started during the session, after the
// close, or days later. Before, a server started after the close dated
// every event of the day 15:00:00, and past days had no timeline at all.
func TestDemoTimelineIsTheSameWheneverTheServerStarted(t *testing.T) {
	friday := market.Day(20261120)
	// The small market's ten boards seldom move 2 %: lower thresholds give
	// a timeline of some length.
	cfg := smallDemo + "[market]\nmovement_pct = 0.6\nmovement_speed_pct = 0.3\n"
	during := startServerWith(t, serveOptions{config: cfg, at: friday.At(10, 30, 0)})
	morning := eventList(t, during, "")
	during.clock.Set(friday.At(16, 0, 0))
	whole := eventList(t, during, "")

	after := startServerWith(t, serveOptions{config: cfg, at: friday.At(16, 0, 0)})
	later := startServerWith(t, serveOptions{config: cfg, at: time.Date(2026, 11, 23, 8, 0, 0, 0, market.Shanghai())})
	for name, got := range map[string][]string{
		"started after the close": eventList(t, after, ""),
		"asked on Monday":         eventList(t, later, "2026-11-20"),
	} {
		if !slices.Equal(got, whole) {
			t.Errorf("%s: %d events\n%v\nwant the session's %d\n%v", name, len(got), got, len(whole), whole)
		}
	}
	if len(morning) == 0 || len(whole) <= len(morning) || !slices.Equal(whole[:len(morning)], morning) {
		t.Fatalf("the morning's %d events are not the start of the day's %d", len(morning), len(whole))
	}
	minutes := map[string]bool{}
	for _, e := range whole {
		ts := e[len(e)-19:]
		if ts < "2026-11-20 09:25:00" || ts > "2026-11-20 15:00:00" || ts[17:] != "00" {
			t.Errorf("event %q is not at a minute of the session", e)
		}
		minutes[ts] = true
	}
	t.Logf("%d events on %d minutes, %d by 10:30", len(whole), len(minutes), len(morning))
	if len(minutes) < 5 {
		t.Errorf("the day's %d events fall on %d minutes: %v", len(whole), len(minutes), whole)
	}
}
