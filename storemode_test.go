package main

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
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

// liveOffline is a live configuration whose upstreams all point at a
// closed local port: a test must never reach the internet.
const liveOffline = `
[sources]
default = "auto"
[sources.push2]
base_url = "http://127.0.0.1:9"
retries = 0
[sources.push2his]
base_url = "http://127.0.0.1:9"
retries = 0
[sources.akshare]
base_url = "http://127.0.0.1:9"
retries = 0
[hot_rank.eastmoney]
base_url = "http://127.0.0.1:9"
retries = 0
[news.eastmoney]
base_url = "http://127.0.0.1:9"
retries = 0
[news.notices]
base_url = "http://127.0.0.1:9"
retries = 0
[news.cls]
base_url = "http://127.0.0.1:9"
retries = 0
[finance.datacenter]
base_url = "http://127.0.0.1:9"
retries = 0
`

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
	waitFor(t, 30*time.Second, func() bool {
		status, _ := s.get(t, c, "/v1/api/meta/stocks?keyword=600519")
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
