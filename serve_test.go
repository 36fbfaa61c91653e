package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/internal/bridge/bridgetest"
	"mdqs/internal/client"
	"mdqs/internal/loadgen"
	"mdqs/internal/market"
)

// serveFails runs serve with a configuration that must not start and
// returns its error.
func serveFails(t *testing.T, configText string, args ...string) error {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(cfg, []byte(configText), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := serve(ctx, testEnv(&loadgen.SyncBuffer{}, &loadgen.SyncBuffer{}), append([]string{"-config", cfg, "-addr", "127.0.0.1:0"}, args...),
		serveHooks{onListen: func(net.Addr) { t.Error("the server started") }})
	if err == nil {
		t.Fatal("serve returned no error")
	}
	return err
}

// A demo run and a live run in one folder keep to their own files, and a
// store of one refuses to serve the other. Before, `go run .` (demo) and
// then sources.default = auto in the same folder served the demo's bars,
// hot rank, news and rankings as live data.
func TestDemoAndLiveNeverShareAStore(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)

	demo := startServerWith(t, serveOptions{config: smallDemo, db: "-"})
	if !strings.Contains(demo.logs.String(), "mode=demo db=mdqs-demo.db") {
		t.Errorf("the demo start log does not state mode and file:\n%s", demo.logs)
	}
	if status, _ := demo.get(t, demo.client(), "/v1/api/whoami"); status != 200 {
		t.Fatalf("demo client in demo mode: %d", status)
	}
	demo.stop(t)

	live := startServerWith(t, serveOptions{config: liveOffline, db: "-"})
	logs := live.logs.String()
	if !strings.Contains(logs, "mode=live db=mdqs.db") || !strings.Contains(logs, "sources=\"auto: industries akshare@http://127.0.0.1:9") {
		t.Errorf("the live start log does not state mode, file and sources:\n%s", logs)
	}
	if !strings.Contains(logs, "no API client is enabled") || !strings.Contains(logs, "mdqs client add") {
		t.Errorf("a live start with no clients does not say how to add one:\n%s", logs)
	}
	if status, _ := live.get(t, live.client(), "/v1/api/whoami"); status != 401 {
		t.Errorf("the public demo client works in live mode: %d", status)
	}
	live.stop(t)
	for _, f := range []string{"mdqs-demo.db", "mdqs.db"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}

	// Pointing one mode at the other's file is refused, naming the fix.
	var me *db.MarketError
	err := serveFails(t, liveOffline, "-db", "mdqs-demo.db")
	if !errors.As(err, &me) || !strings.Contains(err.Error(), "holds the demo market") || !strings.Contains(err.Error(), "-db mdqs-live.db") {
		t.Errorf("live mode on the demo file: %v", err)
	}
	err = serveFails(t, smallDemo, "-db", "mdqs.db")
	if !errors.As(err, &me) || !strings.Contains(err.Error(), "holds live market data") {
		t.Errorf("demo mode on the live file: %v", err)
	}
}

// The old shipped configuration named one file for both modes: the demo
// data it holds must not be served once the mode is switched to live.
func TestSwitchingOneFileFromDemoToLiveIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mdqs.db")
	s := startServerWith(t, serveOptions{config: smallDemo, db: path})
	c := s.client()
	if status, body := s.get(t, c, "/v1/api/boards/top50?top=1"); status != 200 {
		t.Fatalf("demo top50: %d %v", status, body)
	}
	s.stop(t)
	err := serveFails(t, liveOffline, "-db", path)
	var me *db.MarketError
	if !errors.As(err, &me) || me.Holds != db.MarketDemo {
		t.Fatalf("live mode on a demo store: %v", err)
	}
}

// A query cannot cross the modes: a demo server does not call live
// upstreams, a live server does not put demo rows into its store.
func TestSourceParameterStaysInTheMode(t *testing.T) {
	demo := startServerWith(t, serveOptions{config: smallDemo})
	for _, src := range []string{"push2", "akshare", "auto"} {
		status, body := demo.get(t, demo.client(), "/v1/api/boards/industry?source="+src)
		if detail, _ := body["detail"].(string); status != 400 || !strings.Contains(detail, "demo mode") {
			t.Errorf("demo server, source=%s: %d %v", src, status, body)
		}
	}
	live := startServerWith(t, serveOptions{config: liveOffline + "\n[demo]\nlive_client = true\n"})
	if !strings.Contains(live.logs.String(), "seeded client 'demo'") {
		t.Fatalf("demo.live_client = true did not seed the demo client:\n%s", live.logs)
	}
	status, body := live.get(t, live.client(), "/v1/api/boards/industry?source=demo")
	if detail, _ := body["detail"].(string); status != 400 || !strings.Contains(detail, "only in demo mode") {
		t.Errorf("live server, source=demo: %d %v", status, body)
	}
	// Switching live_client off again disables the client left in the store.
	live.stop(t)
	again := startServerWith(t, serveOptions{config: liveOffline, db: live.db})
	if !strings.Contains(again.logs.String(), "disabled the demo client left in the store") {
		t.Errorf("the demo client left in a live store was not disabled:\n%s", again.logs)
	}
	if status, _ := again.get(t, again.client(), "/v1/api/whoami"); status != 401 {
		t.Errorf("the disabled demo client still works: %d", status)
	}
}

// Every answer built from the demo market says so. Before, K-lines said
// "store", and with_realtime, intraday, macd_bs, micro_momentum, chip
// metrics and screens said nothing.
func TestDemoAnswersSayDemo(t *testing.T) {
	at := time.Date(2026, 11, 23, 16, 0, 0, 0, market.Shanghai()) // Monday, after the end-of-day jobs' hour
	s := startServerWith(t, serveOptions{config: smallDemo, at: at})
	c := s.client()
	code := firstDemoStock(t, s, c)
	// The end-of-day job runs at start; its snapshot is what chips and
	// daily momentum read.
	waitFor(t, 60*time.Second, func() bool {
		status, _ := s.get(t, c, "/v1/api/monitor/chip_metrics?page_size=1")
		return status == 200
	})
	paths := []string{
		"/v1/api/kline?code=" + code + "&freq=D&start=2026-11-02&end=2026-11-23",
		"/v1/api/kline/with_realtime?code=" + code + "&freq=D&page_size=5",
		"/v1/api/kline/with_realtime?code=" + code + "&freq=D&page=2&page_size=5",
		"/v1/api/intraday/kline?code=" + code,
		"/v1/api/indicators/macd_bs?code=" + code + "&limit=5",
		"/v1/api/indicators/micro_momentum?code=" + code + "&freq=1m",
		"/v1/api/indicators/micro_momentum?code=" + code + "&freq=D",
		"/v1/api/monitor/chip_metrics?page_size=2",
		"/v1/api/hot_rank?size=2",
		"/v1/api/news/list?page_size=2",
		"/v1/api/financial-reports?page_size=2",
	}
	for _, p := range paths {
		status, body := s.get(t, c, p)
		if status != 200 {
			t.Errorf("%s: %d %v", p, status, body)
			continue
		}
		for _, src := range sourcesOf(body["data"]) {
			if src != "demo" {
				t.Errorf("%s says source %q, want demo", p, src)
			}
		}
		if len(sourcesOf(body["data"])) == 0 {
			t.Errorf("%s names no source", p)
		}
	}
	resp, err := c.Do(context.Background(), "POST", "/v1/api/screener/queue/submit", []byte(`{"expression":"pct > -100","limit":3}`))
	if err != nil || resp.Status != 200 {
		t.Fatalf("submit a screen: %v %v", err, resp)
	}
	var sub struct{ Data struct{ ID string } }
	json.Unmarshal(resp.Body, &sub)
	var body map[string]any
	waitFor(t, 30*time.Second, func() bool {
		var status int
		status, body = s.get(t, c, "/v1/api/screener/queue/result?id="+sub.Data.ID)
		return status == 200
	})
	if src := sourcesOf(body["data"]); len(src) == 0 || src[0] != "demo" {
		t.Errorf("screen result says source %v, want demo", src)
	}
}

// sourcesOf collects the "source" values of an answer: its own and its
// items'.
func sourcesOf(v any) []string {
	var out []string
	switch x := v.(type) {
	case map[string]any:
		if s, ok := x["source"].(string); ok {
			out = append(out, s)
		}
		if items, ok := x["items"].([]any); ok {
			for _, it := range items {
				if m, ok := it.(map[string]any); ok {
					if s, ok := m["source"].(string); ok {
						out = append(out, s)
					}
				}
			}
		}
	}
	return out
}

// firstDemoStock is a code the demo market lists, from the financial
// reports it publishes for every stock.
func firstDemoStock(t *testing.T, s *server, c *client.Client) string {
	t.Helper()
	var code string
	waitFor(t, 30*time.Second, func() bool {
		status, body := s.get(t, c, "/v1/api/financial-reports?page_size=1")
		if status != 200 {
			return false
		}
		items, _ := body["data"].(map[string]any)["items"].([]any)
		if len(items) == 0 {
			return false
		}
		code, _ = items[0].(map[string]any)["stock_code"].(string)
		return code != ""
	})
	return code
}

// waitFor polls cond until it holds or the wait is over.
func waitFor(t *testing.T, wait time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not so after %v", wait)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A live server whose upstreams are unreachable answers what the
// terminal's files put in its store: a range starting on the files' first
// day (ma5 reads back before it), and with_realtime's first page (its
// default depth of a year reads back before it). Both answered 503 before,
// asking the upstream for days before the first stored bar.
func TestTerminalHistoryIsServedOffline(t *testing.T) {
	dir := t.TempDir()
	bridgetest.Write(t, dir)
	at := time.Date(2026, 11, 20, 16, 0, 0, 0, market.Shanghai()) // Friday, after tdx.refresh_at
	cfg := liveOffline + "\n[demo]\nlive_client = true\n[tdx]\ndir = " + strconv.Quote(dir) + "\n"
	s := startServerWith(t, serveOptions{config: cfg, at: at})
	c := s.client()
	// The bridge imports the names and the gbbq first, then the bar files:
	// wait for the bars (until then a bar is asked of push2his,
	// unreachable here: a 503).
	waitFor(t, 30*time.Second, func() bool {
		status, _ := s.get(t, c, "/v1/api/meta/stocks?keyword=600519")
		if status != 200 {
			return false
		}
		status, _ = s.get(t, c, "/v1/api/kline?code=600519.SH&freq=D&start=2026-11-20&end=2026-11-20")
		return status == 200
	})
	status, body := s.get(t, c, "/v1/api/kline?code=600519.SH&freq=D&start=2026-11-16&end=2026-11-20&indicators=ma5")
	data, _ := body["data"].(map[string]any)
	rows, _ := data["rows"].([]any)
	if status != 200 || len(rows) != len(bridgetest.Days) {
		t.Fatalf("kline of the terminal's days, offline: %d %v", status, body)
	}
	last, _ := rows[len(rows)-1].(map[string]any)
	if last["ma5"] == nil || rows[0].(map[string]any)["pct"] != nil {
		t.Errorf("ma5 of the fifth day %v (want a value), pct of the first %v (want null: nothing before it)", last["ma5"], rows[0].(map[string]any)["pct"])
	}
	status, body = s.get(t, c, "/v1/api/kline/with_realtime?code=600519.SH&freq=D")
	data, _ = body["data"].(map[string]any)
	if rows, _ := data["rows"].([]any); status != 200 || len(rows) != len(bridgetest.Days) {
		t.Fatalf("with_realtime, offline: %d %v", status, body)
	}
}

// -db is the store the configuration is judged with: a team's file names
// Redis and each machine gives the shared store on the command line.
// Before, the file was validated before -db applied, and every such start
// was refused for "cache.redis on a SQLite file".
func TestDBFlagCountsWhenTheConfigurationIsJudged(t *testing.T) {
	err := serveFails(t, "[cache]\nredis = \"redis://127.0.0.1:9\"\n", "-db", "postgres://mdqs@127.0.0.1:9/mdqs?connect_timeout=1")
	if strings.Contains(err.Error(), "cache.redis") {
		t.Fatalf("serve -db postgres://… with cache.redis in the file: %v", err)
	}
	// The other way round it is still refused: a SQLite -db over a file
	// that names a PostgreSQL store and Redis.
	err = serveFails(t, "[server]\ndb = \"postgres://db.lan/mdqs\"\n[cache]\nredis = \"redis://127.0.0.1:9\"\n", "-db", filepath.Join(t.TempDir(), "x.db"))
	if !strings.Contains(err.Error(), "cache.redis") {
		t.Fatalf("serve -db FILE with cache.redis in the file: %v; want the cache.redis refusal", err)
	}
	for _, args := range [][]string{{"client", "list"}, {"calendar", "status"}} {
		_, errs, _ := mdqs(append(args, "-config", writeConfig(t, "[cache]\nredis = \"redis://127.0.0.1:9\"\n"), "-db", "postgres://mdqs@127.0.0.1:9/mdqs?connect_timeout=1")...)
		if strings.Contains(errs, "cache.redis") {
			t.Errorf("mdqs %v -db postgres://… with cache.redis in the file: %s", args, errs)
		}
	}
}

func writeConfig(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

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

// A fresh demo server answers every bridge endpoint from its demo terminal
// at once (the first requests wait for the folder the start-up job
// writes), every answer says source demo, and the indices are served by
// the terminal's files and the store alike. Before, all six endpoints
// answered 503 "not configured" in demo mode and the indices were 404.
func TestDemoTerminalServesTheBridge(t *testing.T) {
	at := time.Date(2026, 11, 23, 16, 0, 0, 0, market.Shanghai()) // Monday after the close
	s := startServerWith(t, serveOptions{config: smallDemo, at: at})
	c := s.client()
	data := func(path string) map[string]any {
		t.Helper()
		status, body := s.get(t, c, path)
		if status != 200 {
			t.Fatalf("GET %s: %d %v", path, status, body)
		}
		d, _ := body["data"].(map[string]any)
		return d
	}
	items := func(d map[string]any, key string) []any { v, _ := d[key].([]any); return v }

	idx := data("/v1/api/meta/stocks?type=index")
	if list := items(idx, "items"); len(list) != 4 {
		t.Fatalf("meta/stocks?type=index: %v", idx)
	}
	for _, it := range items(idx, "items") {
		m := it.(map[string]any)
		if m["type"] != "index" || m["source"] != "demo" || m["name"] == "" {
			t.Errorf("index item %v", m)
		}
	}
	for _, it := range items(data("/v1/api/meta/stocks?page_size=5"), "items") {
		if src := it.(map[string]any)["source"]; src != "demo" {
			t.Errorf("meta/stocks item says source %v, want demo", src)
		}
	}
	for kind, want := range map[string]int{"industry": 5, "concept": 5, "index": 1, "user": 2} {
		if d := data("/v1/api/blocks?kind=" + kind); int(d["total"].(float64)) != want {
			t.Errorf("blocks?kind=%s: %v blocks, want %d", kind, d["total"], want)
		}
	}
	hs300 := data("/v1/api/block/members?block=" + url.QueryEscape("沪深300"))
	if n := len(items(hs300, "members")); n == 0 || hs300["kind"] != "index" {
		t.Errorf("沪深300's members: %v", hs300)
	}

	minutes := data("/v1/api/minutes?code=000001.SH")
	if minutes["source"] != "demo" || len(items(minutes, "rows")) != 240 {
		t.Errorf("minutes of 000001.SH: source %v, %d rows", minutes["source"], len(items(minutes, "rows")))
	}
	rng := "&freq=D&start=2026-11-02&end=2026-11-23"
	files := data("/v1/api/kline?code=000001.SH&source=tdx" + rng)
	store := data("/v1/api/kline?code=000001.SH" + rng)
	fr, sr := items(files, "rows"), items(store, "rows")
	if files["source"] != "demo" || store["source"] != "demo" || len(fr) != 16 || len(sr) != 16 {
		t.Fatalf("000001.SH from the files: %v, %d rows; from the store: %v, %d rows", files["source"], len(fr), store["source"], len(sr))
	}
	for i := range fr {
		a, b := fr[i].(map[string]any), sr[i].(map[string]any)
		if a["trade_date"] != b["trade_date"] || a["close"] != b["close"] || a["volume"] != b["volume"] {
			t.Errorf("row %d: files %v, store %v", i, a, b)
		}
	}
	for _, p := range []string{"/v1/api/intraday/kline?code=399006.SZ", "/v1/api/kline/with_realtime?code=000300.SH&freq=D&page_size=5",
		"/v1/api/kline?code=399001.SZ&freq=1m&start=2026-11-23&end=2026-11-23"} {
		if d := data(p); d["source"] != "demo" {
			t.Errorf("%s says source %v", p, d["source"])
		}
	}

	resp, err := c.Do(context.Background(), "POST", "/v1/api/refresh", nil)
	var rep struct {
		Data struct {
			FilesScanned int `json:"files_scanned"`
			FilesChanged int `json:"files_changed"`
		}
	}
	if err != nil || resp.Status != 200 || json.Unmarshal(resp.Body, &rep) != nil || rep.Data.FilesScanned == 0 || rep.Data.FilesChanged != 0 {
		t.Errorf("refresh after the start-up import: %v %s", err, resp.Body)
	}
	folder := strings.TrimSuffix(s.db, ".db") + "-tdx"
	if _, err := os.Stat(filepath.Join(folder, "vipdoc", "sh", "lday", "sh000001.day")); err != nil {
		t.Errorf("the demo terminal beside the database: %v", err)
	}
	if !strings.Contains(s.logs.String(), `msg="demo terminal written" dir=`+folder) {
		t.Errorf("no log line for the demo terminal:\n%s", s.logs)
	}
}

// tdx.dir = "demo" is demo mode's: a live configuration that names it is
// refused, naming the fix, and one that leaves it out has no terminal.
func TestDemoTerminalIsDemoModeOnly(t *testing.T) {
	err := serveFails(t, liveOffline+"\n[tdx]\ndir = \"demo\"\n")
	if err == nil || !strings.Contains(err.Error(), "tdx.dir") || !strings.Contains(err.Error(), "demo data") {
		t.Errorf("live mode with the demo terminal: %v", err)
	}
	s := startServerWith(t, serveOptions{config: liveOffline + "\n[demo]\nlive_client = true\n"})
	status, body := s.get(t, s.client(), "/v1/api/blocks")
	if detail, _ := body["detail"].(string); status != 503 || !strings.Contains(detail, "tdx.dir") {
		t.Errorf("live mode without tdx.dir: %d %v", status, body)
	}
}

// A terminal folder holding real files (000001's and 603777's .day bars
// and a real gbbq, from internal/adjust/testdata) served live and offline: the
// adjusted answers equal the prices EastMoney and the terminal published,
// to the cent, through the whole program (import, store, endpoint).
func TestAdjustedPricesOfARealTerminalMatchThePublishedOnes(t *testing.T) {
	dir := t.TempDir()
	put := func(from, to string) {
		t.Helper()
		data, err := os.ReadFile(filepath.Join("internal", "adjust", "testdata", filepath.FromSlash(from)))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, filepath.FromSlash(to))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put("raw/redmine-2023/sz000001.day", "vipdoc/sz/lday/sz000001.day") // 2015-09 to 2023-02
	put("raw/redmine-2023/sh603777.day", "vipdoc/sh/lday/sh603777.day")
	put("gbbq/gbbq_rustdx_20211109_subset", "T0002/hq_cache/gbbq")
	at := time.Date(2026, 11, 20, 16, 0, 0, 0, market.Shanghai())
	cfg := liveOffline + "\n[demo]\nlive_client = true\n[tdx]\ndir = " + strconv.Quote(dir) + "\n"
	s := startServerWith(t, serveOptions{config: cfg, at: at})
	c := s.client()
	// The bridge imports the gbbq, then the bar files (their turnover
	// needs the gbbq's share counts): wait for both in the store (a bar
	// not stored yet is asked of push2his, unreachable here: a 503).
	waitFor(t, 30*time.Second, func() bool {
		status, body := s.get(t, c, "/v1/api/corporate_actions?code=000001.SZ")
		data, _ := body["data"].(map[string]any)
		n, _ := data["count"].(float64)
		if status != 200 || n == 0 {
			return false
		}
		for _, code := range []string{"000001.SZ", "603777.SH"} {
			status, body := s.get(t, c, "/v1/api/kline?code="+code+"&freq=D&start=2017-03-01&end=2017-03-01")
			data, _ := body["data"].(map[string]any)
			if rows, _ := data["rows"].([]any); status != 200 || len(rows) != 1 {
				return false
			}
		}
		return true
	})

	type want struct {
		code, day, path string
		open, close     string
	}
	var wants []want
	// 前复权 as of 2021-09-07, EastMoney fqt=1 through akshare.
	for _, r := range readCSV(t, "eastmoney_fqt1_qfq.csv") {
		if r["src"] == "AK-000001" && r["asof"] == "2021-09-07" && r["check"] == "match" {
			wants = append(wants, want{"000001.SZ", r["date"], "&mode=qfq&anchor=2021-09-07", r["open"], r["close"]})
		}
	}
	// 后复权 anchored at the listing: 603777 as EastMoney and the terminal
	// give it; 000001 as the terminal's method computes it (EastMoney's
	// fqt=2 level differs, see README).
	for _, r := range readCSV(t, "eastmoney_fqt2_hfq.csv") {
		code := map[string]string{"603777": "603777.SH", "000001": "000001.SZ"}[r["code"]]
		wants = append(wants, want{code, r["date"], "&mode=hfq", r["tdx_affine_open"], r["tdx_affine_close"]})
	}
	if len(wants) < 20 {
		t.Fatalf("only %d published prices to compare", len(wants))
	}
	t.Logf("%d published bars (qfq of 000001; hfq of 603777 and 000001) compared through the server", len(wants))
	for _, w := range wants {
		path := "/v1/api/kline/adjusted?code=" + w.code + "&freq=D&start=" + w.day + "&end=" + w.day + w.path
		status, body := s.get(t, c, path)
		data, _ := body["data"].(map[string]any)
		rows, _ := data["rows"].([]any)
		if status != 200 || len(rows) != 1 {
			t.Errorf("%s: %d %v", path, status, body)
			continue
		}
		row := rows[0].(map[string]any)
		for f, v := range map[string]string{"open": w.open, "close": w.close} {
			want, _ := strconv.ParseFloat(v, 64)
			if got, _ := row[f].(float64); got != want {
				t.Errorf("%s %s: %v, published %v", path, f, got, want)
			}
		}
		if data["adj_method"] != "tdx-affine" || data["actions_source"] != "tdx" {
			t.Errorf("%s: method %v, actions from %v", path, data["adj_method"], data["actions_source"])
		}
	}
	// Without an anchor, 前复权 is anchored at the terminal's last bar
	// (2023-02-24), not at today's date, since the offline source cannot
	// give later ones, and the answer says so; both modes name the listing
	// day the gbbq's record gives (issue 32).
	start := time.Now()
	path := "/v1/api/kline/adjusted?code=000001.SZ&freq=D&start=2023-02-20&end=2023-02-24&mode=qfq"
	status, body := s.get(t, c, path)
	data, _ := body["data"].(map[string]any)
	note, _ := data["anchor_note"].(string)
	if status != 200 || data["anchor"] != "2023-02-24" || data["listing_day"] != "1991-04-03" || data["listing_day_source"] != "gbbq" ||
		!strings.Contains(note, "2023-02-24") {
		t.Errorf("%s: %d anchor %v, listing %v from %v, note %q; want the last bar's 2023-02-24, 1991-04-03 from gbbq, a note",
			path, status, data["anchor"], data["listing_day"], data["listing_day_source"], note)
	}
	t.Logf("the default anchor of a stale terminal, offline: %v", time.Since(start).Round(time.Millisecond))
}

// readCSV reads a ground-truth file of internal/adjust/testdata as rows by column.
func readCSV(t *testing.T, name string) []map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join("internal", "adjust", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for _, rec := range recs[1:] {
		r := map[string]string{}
		for i, h := range recs[0] {
			r[strings.TrimSpace(h)] = rec[i]
		}
		out = append(out, r)
	}
	return out
}

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
//
// An instant needs only the store of the instant a day before it, so the
// week is swept as chains, one a time of day (09:30 on each day of the
// week, and so on), run side by side: each chain in order, on one server
// at a time, as the whole sweep ran before (about 1.1 cores of the 2 of
// CI, 111 s).
func TestEveryHourOfTheWeek(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two servers per instant")
	}
	dir := t.TempDir()
	cal := market.DefaultCalendar()
	window := market.Window{Start: 9*60 + 25, End: 15 * 60}
	step := *sweepStep
	switch {
	case step > 0:
	case raceEnabled():
		step = 3 * time.Hour
	default:
		step = 30 * time.Minute
	}
	// A chain is an instant, the one a day after it, and so on while
	// they are instants of the sweep.
	var roots []time.Time
	chains := map[time.Time][]time.Time{}
	swept := map[time.Time]bool{}
	var instants int
	for at := sweepWeek.from; at.Before(sweepWeek.to); at = at.Add(step) {
		instants++
		swept[at] = true
		root := at
		for swept[root.Add(-24*time.Hour)] {
			root = root.Add(-24 * time.Hour)
		}
		if chains[root] == nil {
			roots = append(roots, root)
		}
		chains[root] = append(chains[root], at)
	}
	t.Logf("%d instants, %s apart, in %d chains a day apart", instants, step, len(roots))
	for _, root := range roots {
		t.Run(root.Format("0102-1504"), func(t *testing.T) {
			t.Parallel()
			files := map[time.Time]string{}
			for _, at := range chains[root] {
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
		})
	}
}

// sweepInstant serves the store at path at instant at and checks every GET
// endpoint.
// waitReadyz waits until /readyz answers 200; the bound only stops a hang.
func waitReadyz(t *testing.T, s *server) {
	t.Helper()
	deadline := time.Now().Add(4 * time.Minute)
	for {
		resp, err := http.Get("http://" + s.addr + "/readyz")
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("/readyz still %d after 4 minutes: %s", resp.StatusCode, body)
			}
		} else if time.Now().After(deadline) {
			t.Fatalf("/readyz: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func sweepInstant(t *testing.T, cal *market.Calendar, window market.Window, at time.Time, path, store string) {
	t.Helper()
	s := startServerWith(t, serveOptions{config: smallDemo + "\n[log]\nlevel = \"warn\"\n", db: path, at: at, cheapHash: true})
	defer s.stop(t)
	c := s.client()
	ctx := context.Background()
	when := market.FormatTime(at) + " (" + at.Weekday().String() + "), " + store
	// The sweep is of a server that is up: until its start-up jobs have
	// run, the answers they feed are 503 "starting up" by design (issue
	// 32), and /readyz says so.
	waitReadyz(t, s)

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
		"date":                        cal.Prev(current).String(), // a day the security master has recorded (bars/daily, bars/minute)
		"/v1/api/bars/minute time":    "10:30",                    // a minute of that day, ended
		"/v1/api/news/view id":        "1",                        // the news job's first item, or a 404 (not a 5xx)
		"/v1/api/block/members block": "沪深300", "/v1/api/hot_rank/detail stock_code": code,
		"/v1/api/index/members code": "000300.SH", "/v1/api/index/changes code": "000300.SH",
		// The dragon-tiger list of the day before (out at its 18:00, so imported
		// or on its way: 404 while the start-up job runs, never a 5xx) and a
		// seat every demo day lists.
		"/v1/api/lhb date": cal.Prev(current).String(), "/v1/api/lhb/seats name": "机构专用",
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
			"/v1/api/indicators/micro_momentum", "/v1/api/financial-reports", "/v1/api/lhb":
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
		"/v1/api/intraday/kline?code=000001.SH", "/v1/api/kline/with_realtime?code=399001.SZ&freq=D",
		"/v1/api/index/members?code=000300.SH", "/v1/api/index/changes?code=399006.SZ"} {
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
		if p == "/mcp" {
			continue // MCP's stream of a session, not the API: mcp_test.go
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
