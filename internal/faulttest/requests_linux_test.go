//go:build faults

package faulttest

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"mdqs/internal/client"
	"mdqs/internal/loadgen"
)

// upstreamSections are every configurable upstream of mdqs.
var upstreamSections = []string{"sources.push2", "sources.push2his", "sources.akshare", "hot_rank.eastmoney",
	"news.eastmoney", "news.notices", "news.cls", "finance.datacenter", "securities.szse", "securities.sse"}

// startDemo runs the binary on demoConfig plus extra in a folder of its own.
func startDemo(t *testing.T, extra string) (*loadgen.Process, *client.Client) {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfg, []byte(demoConfig+extra), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startBinary(t, []string{"-config", cfg, "-addr", "127.0.0.1:0", "-db", filepath.Join(dir, "mdqs-demo.db")}, loadgen.StartOptions{Dir: dir})
	waitIdle(t, p)
	c := client.New(p.Addr, "demo", "demo-secret")
	c.HTTP = &http.Client{Timeout: time.Minute, Transport: &http.Transport{}}
	t.Cleanup(c.HTTP.CloseIdleConnections)
	return p, c
}

// getRoutes are the GET operations the server's own OpenAPI document
// lists under /v1/api/ (the stream is left out: it answers by streaming).
func getRoutes(t *testing.T, addr string) []string {
	t.Helper()
	res, err := http.Get("http://" + addr + "/v1/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.NewDecoder(res.Body).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	var out []string
	for path, ops := range doc.Paths {
		if _, ok := ops["get"]; ok && strings.HasPrefix(path, "/v1/api/") && path != "/v1/api/stream" {
			out = append(out, path)
		}
	}
	if len(out) < 30 {
		t.Fatalf("the OpenAPI document lists %d GET routes", len(out))
	}
	return out
}

// envelopeOf decodes a failure envelope; ok is false for anything else.
func envelopeOf(body []byte) (message, detail string, ok bool) {
	var env struct {
		Code    *int   `json:"code"`
		Message string `json:"message"`
		Detail  string `json:"detail"`
	}
	if json.Unmarshal(body, &env) != nil || env.Code == nil || *env.Code != 0 || env.Message == "" {
		return "", "", false
	}
	return env.Message, env.Detail, true
}

// Issue 20 point 6: a keyword of 50,000+ bytes answered 500 on blocks and
// meta/stocks, and heads net/http refused itself were plain text. Every
// parameter is bounded and every answer is the envelope, through the
// binary: every GET route with an oversize keyword, then heads and
// requests net/http cannot read.
func TestOversizeRequestsAnswerTheEnvelope(t *testing.T) {
	p, c := startDemo(t, "")
	ctx := context.Background()
	for _, tt := range []struct {
		keyword string
		status  int    // on meta/stocks and blocks, which read keyword
		detail  string // what their detail says
	}{
		{strings.Repeat("a", 1025), 400, "keyword is 1025 bytes long; at most 1024"},
		{strings.Repeat("a", 50_001), 400, "the query string is 50009 bytes; at most 8192"},
		{strings.Repeat("茅", 17_000), 414, "bytes; at most 65536 are accepted"}, // 51,000 bytes, 153,000 escaped
	} {
		target := "?keyword=" + url.QueryEscape(tt.keyword)
		for _, path := range getRoutes(t, p.Addr) {
			r, err := c.Do(ctx, http.MethodGet, path+target, nil)
			if err != nil {
				t.Fatalf("GET %s (keyword of %d bytes): %v", path, len(tt.keyword), err)
			}
			message, detail, isEnvelope := envelopeOf(r.Body)
			switch {
			case r.Status >= 500:
				t.Errorf("GET %s (keyword of %d bytes) = %d %.300s", path, len(tt.keyword), r.Status, r.Body)
			case r.Status >= 400 && !isEnvelope:
				t.Errorf("GET %s (keyword of %d bytes) = %d without the envelope: %.300s", path, len(tt.keyword), r.Status, r.Body)
			case path == "/v1/api/meta/stocks" || path == "/v1/api/blocks":
				if r.Status != tt.status || !strings.Contains(detail, tt.detail) {
					t.Errorf("GET %s (keyword of %d bytes) = %d %q %q, want %d saying %q", path, len(tt.keyword), r.Status, message, detail, tt.status, tt.detail)
				}
			}
		}
	}

	for _, tt := range []struct {
		name, raw string
		status    int
		detail    string
	}{
		{"a header field of 70,000 bytes", "GET /v1/api/whoami HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + strings.Repeat("a", 70_000) + "\r\n\r\n",
			431, "the largest, X-Big"},
		{"a header field of 2 MB", "GET /v1/api/whoami HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + strings.Repeat("a", 2_000_000) + "\r\n\r\n",
			431, "header fields up to 65536"},
		{"a request target of 70,000 bytes", "GET /v1/api/meta/stocks?keyword=" + strings.Repeat("a", 70_000) + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
			414, "at most 65536"},
		{"not HTTP", "GARBAGE\r\n\r\n", 400, "not valid HTTP/1.1"},
		{"a header without a colon", "GET /v1/api/whoami HTTP/1.1\r\nHost: 127.0.0.1\r\nno colon\r\n\r\n", 400, "not valid HTTP/1.1"},
	} {
		res, body := rawExchange(t, p.Addr, tt.raw)
		_, detail, isEnvelope := envelopeOf(body)
		if res.StatusCode != tt.status || !isEnvelope || !strings.Contains(detail, tt.detail) ||
			res.Header.Get("Content-Type") != "application/json; charset=utf-8" {
			t.Errorf("%s: %d %s %.300q, want %d and the envelope saying %q", tt.name, res.StatusCode, res.Header.Get("Content-Type"), body, tt.status, tt.detail)
		}
	}
	if r, err := c.Do(ctx, http.MethodGet, "/v1/api/whoami", nil); err != nil || r.Status != http.StatusOK {
		t.Fatalf("whoami after the oversize requests: %v %+v", err, r)
	}
}

func rawExchange(t *testing.T, addr, raw string) (*http.Response, []byte) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(time.Minute))
	// The server may answer and close before it has read everything.
	go io.WriteString(conn, raw)
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("%.60q: %v", raw, err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res, body
}

// Issue 20 point 7: a demo server calls no upstream, whatever a request
// asks: every upstream's base_url is a local listener that counts the
// connections it is offered, and every route is asked with
// ?source=push2, akshare and auto (the sector routes refuse them with a
// 400 saying the server serves the demo market), the collections and
// refreshes are run, and the listener must have seen nothing.
func TestDemoServerCallsNoUpstream(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var offered atomic.Int64
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			offered.Add(1)
			conn.Close()
		}
	}()
	extra := ""
	for _, up := range upstreamSections {
		extra += "[" + up + "]\nbase_url = \"http://" + ln.Addr().String() + "\"\nretries = 0\n"
	}
	p, c := startDemo(t, extra)
	ctx := context.Background()
	get := func(path string) *client.Response {
		t.Helper()
		r, err := c.Do(ctx, http.MethodGet, path, nil)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		return r
	}
	codes := leaderCodes(t, get)
	code := codes[0]
	sectorRoutes := map[string]bool{"/v1/api/boards/industry": true, "/v1/api/boards/concept": true,
		"/v1/api/market/movements": true, "/v1/api/market/movements/events": true}
	// Each route with the parameters that make it do its work.
	params := map[string]string{
		"/v1/api/kline":                     "code=" + code + "&freq=D&start=2016-01-01&end=2026-12-31",
		"/v1/api/kline/with_realtime":       "code=" + code + "&freq=D",
		"/v1/api/kline/adjusted":            "code=" + code + "&freq=D&mode=qfq&start=2016-01-01&end=2026-12-31",
		"/v1/api/corporate_actions":         "code=" + code,
		"/v1/api/intraday/kline":            "code=" + code,
		"/v1/api/indicators/macd_bs":        "code=" + code,
		"/v1/api/indicators/micro_momentum": "code=" + code,
		"/v1/api/monitor/chip_metrics":      "code=" + code,
		"/v1/api/minutes":                   "code=" + code,
		"/v1/api/quotes":                    "codes=" + strings.Join(codes[:min(5, len(codes))], ",") + ",000001.SH",
		"/v1/api/hot_rank/detail":           "code=" + code,
		"/v1/api/financial-reports":         "code=" + code,
		"/v1/api/boards/top50":              "refresh=1",
	}
	for _, path := range getRoutes(t, p.Addr) {
		for _, source := range []string{"push2", "akshare", "auto"} {
			target := path + "?source=" + source
			if q := params[path]; q != "" {
				target += "&" + q
			}
			r := get(target)
			_, detail, _ := envelopeOf(r.Body)
			switch {
			case r.Status >= 500:
				t.Errorf("GET %s = %d %.300s", target, r.Status, r.Body)
			case sectorRoutes[path] && (r.Status != 400 || !strings.Contains(detail, "demo mode")):
				t.Errorf("GET %s = %d %.300s, want 400 saying the server serves the demo market", target, r.Status, r.Body)
			}
		}
	}
	for _, post := range []struct{ path, body string }{
		{"/v1/api/refresh", `{}`}, {"/v1/api/update-news", `{}`}, {"/v1/api/hot_rank/import", `{}`},
	} {
		r, err := c.Do(ctx, http.MethodPost, post.path, []byte(post.body))
		if err != nil || r.Status >= 500 {
			t.Errorf("POST %s: %v %+v", post.path, err, r)
		}
	}
	if n := offered.Load(); n != 0 {
		t.Errorf("the demo server opened %d connection(s) to its upstreams\n%s", n, p.Logs())
	}
}
