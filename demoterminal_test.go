package main

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mdqs/internal/market"
)

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
