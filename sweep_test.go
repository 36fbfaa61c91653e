package main

import (
	"context"
	"encoding/json"
	"flag"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"mdqs/internal/market"
)

// The sweep's instants are 30 minutes apart; under the race detector
// (which looks for concurrency bugs, not hours) 3 hours, or -sweep.step.
var sweepStep = flag.Duration("sweep.step", 0, "how far apart the instants of TestEveryHourOfTheWeek are (default 30m, 3h under -race)")

// sweepWeek runs from Wednesday 2026-09-23 through Tuesday 2026-09-29:
// two trading days, the Mid-Autumn holiday on Friday, a weekend, and two
// trading days whose previous session is four calendar days back.
var sweepWeek = struct{ from, to time.Time }{
	time.Date(2026, 9, 23, 0, 0, 0, 0, market.Shanghai()),
	time.Date(2026, 9, 30, 0, 0, 0, 0, market.Shanghai()),
}

// TestEveryHourOfTheWeek sweeps a pinned clock over a whole week and calls
// every GET endpoint of the OpenAPI document in demo mode, on a fresh
// store and on a store a server wrote a day before: no answer is a 5xx
// (the bridge's included: demo mode has its demo terminal), and every day
// an answer names is the one the README's rules give. Before, a fresh
// server answered 503 on the core endpoints between midnight and 09:25,
// and the bridge's six endpoints 503 "not configured" at every hour.
func TestEveryHourOfTheWeek(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two servers per instant")
	}
	dir := t.TempDir()
	cal := market.DefaultCalendar()
	window := market.Window{Start: 9*60 + 25, End: 15 * 60}
	files := map[time.Time]string{}
	step := *sweepStep
	switch {
	case step > 0:
	case raceEnabled:
		step = 3 * time.Hour
	default:
		step = 30 * time.Minute
	}
	var instants int
	for at := sweepWeek.from; at.Before(sweepWeek.to); at = at.Add(step) {
		instants++
		fresh := filepath.Join(dir, at.Format("0102-1504")+".db")
		files[at] = fresh
		sweepInstant(t, cal, window, at, fresh, "fresh store")
		if old, ok := files[at.Add(-24*time.Hour)]; ok {
			// A copy, so that the next day's sweep finds the file as it
			// was left a day before it.
			aged := old + ".aged"
			copyFile(t, old, aged)
			sweepInstant(t, cal, window, at, aged, "store a day old")
		}
		if t.Failed() {
			t.Fatalf("stopped at %s", market.FormatTime(at))
		}
	}
	t.Logf("%d instants, %s apart", instants, step)
}

// sweepInstant serves the store at path at instant at and checks every GET
// endpoint.
func sweepInstant(t *testing.T, cal *market.Calendar, window market.Window, at time.Time, path, store string) {
	t.Helper()
	s := startServerWith(t, serveOptions{config: smallDemo + "\n[log]\nlevel = \"warn\"\n", db: path, at: at, cheapHash: true})
	defer s.stop(t)
	c := s.client()
	ctx := context.Background()
	when := market.FormatTime(at) + " (" + at.Weekday().String() + "), " + store

	current := window.CurrentTradingDay(cal, at)
	lastComplete := cal.Prev(market.DayOf(at))
	if cal.IsTradingDay(market.DayOf(at)) && !at.Before(window.End.On(market.DayOf(at))) {
		lastComplete = market.DayOf(at)
	}
	code := "600000.SH"
	if status, body := s.get(t, c, "/v1/api/financial-reports?page_size=1"); status == 200 {
		items, _ := body["data"].(map[string]any)["items"].([]any)
		if len(items) > 0 {
			code, _ = items[0].(map[string]any)["stock_code"].(string)
		}
	}
	resp, err := c.Do(ctx, "POST", "/v1/api/screener/queue/submit", []byte(`{"expression":"pct > -100","limit":3}`))
	var screen struct{ Data struct{ ID string } }
	if err != nil || resp.Status != 200 || json.Unmarshal(resp.Body, &screen) != nil {
		t.Fatalf("%s: submit a screen: %v %v", when, err, resp)
	}
	values := map[string]string{
		"code": code, "codes": code + ",000001.SH", "freq": "D", "mode": "qfq", "start": current.AddDays(-20).String(), "end": current.String(), "id": screen.Data.ID,
		"/v1/api/news/view id":        "1", // the news job's first item, or a 404 (not a 5xx)
		"/v1/api/block/members block": "沪深300", "/v1/api/hot_rank/detail stock_code": code,
	}

	for _, ep := range openAPIGets(t, s.raw, values) {
		p, target := ep.path, ep.target
		status, body := s.get(t, c, target)
		check := sweepCheck{t: t, where: when + ": GET " + target, status: status, body: body}
		check.noOutage()
		if status != 200 {
			continue
		}
		switch p {
		case "/v1/api/boards/top50", "/v1/api/strategy/auction/today", "/v1/api/market/movements/events",
			"/v1/api/boards/industry", "/v1/api/boards/concept", "/v1/api/market/movements":
			check.day(current, current) // the current trading day, exactly
		case "/v1/api/kline", "/v1/api/kline/with_realtime", "/v1/api/indicators/macd_bs":
			check.day(0, current)
		case "/v1/api/intraday/kline", "/v1/api/monitor/chip_metrics", "/v1/api/hot_rank", "/v1/api/hot_rank_list",
			"/v1/api/indicators/micro_momentum", "/v1/api/financial-reports":
			check.day(0, current) // the latest there is: never after the current trading day
		}
		if p == "/v1/api/kline" {
			check.field("final_through", min(lastComplete, current), min(lastComplete, current))
		}
	}
	for _, p := range []string{"/v1/api/boards/top50?day=" + current.String(), "/v1/api/market/movements/events?day=" + cal.Prev(current).String()} {
		status, body := s.get(t, c, p)
		check := sweepCheck{t: t, where: when + ": GET " + p, status: status, body: body}
		check.noOutage()
	}
	// The demo terminal and the indices, with the parameters the OpenAPI
	// document leaves optional: answered, whatever the hour.
	rng := "&freq=D&start=" + current.AddDays(-20).String() + "&end=" + current.String()
	for _, p := range []string{"/v1/api/kline?code=000001.SH&source=tdx" + rng, "/v1/api/kline?code=399006.SZ" + rng,
		"/v1/api/minutes?code=000300.SH", "/v1/api/block/members?block=" + url.QueryEscape("沪深300"), "/v1/api/meta/stocks?type=index",
		"/v1/api/intraday/kline?code=000001.SH", "/v1/api/kline/with_realtime?code=399001.SZ&freq=D"} {
		if status, body := s.get(t, c, p); status != 200 {
			t.Errorf("%s: GET %s: %d %v", when, p, status, body)
		}
	}
}

// endpoint is a GET route of the OpenAPI document and a request of it.
type endpoint struct {
	path   string // as the document names it
	target string // with its required parameters
}

// openAPIGets is every GET route of the served OpenAPI document, with its
// required parameters from values (by "path name", else by name) and the
// optional ones values names for its path; a required parameter values
// lacks fails the test, so a new endpoint cannot slip past the tests that
// call them all.
func openAPIGets(t *testing.T, raw func(*testing.T, string) (int, []byte), values map[string]string) []endpoint {
	t.Helper()
	status, doc := raw(t, "/v1/openapi.json")
	if status != 200 {
		t.Fatalf("openapi.json: %d", status)
	}
	var api struct {
		Paths map[string]map[string]struct {
			Parameters []struct {
				Name     string `json:"name"`
				Required bool   `json:"required"`
			} `json:"parameters"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(doc, &api); err != nil {
		t.Fatal(err)
	}
	var out []endpoint
	for p, ops := range api.Paths {
		op, ok := ops["get"]
		if !ok || p == "/v1/api/stream" {
			continue // a stream answers until its client leaves: stream_cmd_test.go
		}
		q := url.Values{}
		for _, prm := range op.Parameters {
			v, ok := values[p+" "+prm.Name]
			if !ok && !prm.Required {
				continue
			}
			if !ok {
				v, ok = values[prm.Name]
			}
			if !ok {
				t.Fatalf("%s requires %q: give the test a value for it", p, prm.Name)
			}
			q.Set(prm.Name, v)
		}
		target := p
		if len(q) > 0 {
			target += "?" + q.Encode()
		}
		out = append(out, endpoint{path: p, target: target})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}

// sweepCheck checks one answer.
type sweepCheck struct {
	t      *testing.T
	where  string
	status int
	body   map[string]any
}

// noOutage: no 5xx.
func (c sweepCheck) noOutage() {
	c.t.Helper()
	if c.status >= 500 {
		c.t.Errorf("%s: %d %v", c.where, c.status, c.body)
	}
}

// day checks the day the answer names lies in [lo, hi] and is a trading
// day; lo 0 leaves it open.
func (c sweepCheck) day(lo, hi market.Day) {
	c.t.Helper()
	s := answerDay(c.body)
	if s == "" {
		return
	}
	d, err := market.ParseDay(s)
	if err != nil {
		c.t.Errorf("%s: names day %q: %v", c.where, s, err)
		return
	}
	if d > hi || (lo != 0 && d < lo) || !market.DefaultCalendar().IsTradingDay(d) {
		c.t.Errorf("%s: names %v, want a trading day in [%v, %v]", c.where, d, lo, hi)
	}
}

// field checks a day field of data.
func (c sweepCheck) field(name string, lo, hi market.Day) {
	c.t.Helper()
	data, _ := c.body["data"].(map[string]any)
	s, _ := data[name].(string)
	d, err := market.ParseDay(s)
	if err != nil || d < lo || d > hi {
		c.t.Errorf("%s: %s = %q, want %v..%v", c.where, name, s, lo, hi)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// raw is an unsigned GET of a public document.
func (s *server) raw(t *testing.T, path string) (int, []byte) {
	t.Helper()
	resp, err := s.client().Do(context.Background(), "GET", path, nil)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return resp.Status, resp.Body
}
