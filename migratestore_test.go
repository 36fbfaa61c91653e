package main

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"mdqs/db/dbtest"
	"mdqs/internal/bridge/bridgetest"
	"mdqs/internal/market"
)

// TestMigratedStoreAnswersTheSameBytes fills a store on SQLite, copies it
// into PostgreSQL with `mdqs migrate-store`, and serves both at the same
// instant: every GET endpoint of the OpenAPI document answers the same
// status and the same bytes from the copy as from the file, except the
// few that describe the process or the store itself. A demo store holds
// rankings, news, reports, hot rank and signals; a live store fed by the
// terminal's files holds bars, coverage, names and blocks.
func TestMigratedStoreAnswersTheSameBytes(t *testing.T) {
	server := dbtest.NeedPostgres(t)
	t.Run("demo", func(t *testing.T) {
		at := time.Date(2026, 11, 24, 10, 30, 0, 0, market.Shanghai()) // a Tuesday, in the session
		compareMigrated(t, server, smallDemo, at, map[string]string{"start": "2026-11-02", "end": "2026-11-24"}, nil)
	})
	t.Run("terminal", func(t *testing.T) {
		dir := t.TempDir()
		bridgetest.Write(t, dir)
		at := time.Date(2026, 11, 20, 16, 0, 0, 0, market.Shanghai()) // Friday, after tdx.refresh_at
		// Upstreams unreachable and unthrottled: nothing waits on their
		// rate limits to fail.
		offline := strings.ReplaceAll(liveOffline, "retries = 0\n", "retries = 0\nrate = 1000.0\n")
		cfg := offline + "\n[demo]\nlive_client = true\n[tdx]\ndir = " + strconv.Quote(dir) + "\n"
		// The endpoints the terminal's files answer; the others wait on
		// the unreachable upstreams' rate limits to say 503.
		fromFiles := map[string]bool{"/v1/api/kline": true, "/v1/api/kline/with_realtime": true, "/v1/api/minutes": true,
			"/v1/api/meta/stocks": true, "/v1/api/blocks": true, "/v1/api/block/members": true, "/v1/api/whoami": true,
			"/v1/api/market/movements/events": true}
		compareMigrated(t, server, cfg, at, map[string]string{"start": "2026-11-16", "end": "2026-11-20"}, fromFiles)
	})
}

// compareMigrated fills a store with a server of cfg at the instant at,
// migrates it into a new schema of the PostgreSQL server, and compares
// the two stores' answers (of the paths in only, when it is not nil).
func compareMigrated(t *testing.T, pg, cfg string, at time.Time, dates map[string]string, only map[string]bool) {
	target := dbtest.NewSchema(t, pg)
	file := startServerWith(t, serveOptions{config: cfg, at: at})
	waitReady(t, file)
	if err := file.stop(t); err != nil {
		t.Fatal(err)
	}

	if _, errs, code := mdqs("migrate-store", "-from", file.db, "-to", "mdqs.db"); code != 2 || !strings.Contains(errs, "PostgreSQL URL") {
		t.Errorf("migrate-store to a file: exit %d %q, want 2 saying -to must be a PostgreSQL URL", code, errs)
	}
	out, errs, code := mdqs("migrate-store", "-from", file.db, "-to", target)
	if code != 0 || !strings.Contains(out, "every table's rows match") {
		t.Fatalf("migrate-store: exit %d\n%s\n%s", code, out, errs)
	}
	t.Logf("migrate-store:\n%s", out)
	if _, errs, code := mdqs("migrate-store", "-from", file.db, "-to", target); code != 1 || !strings.Contains(errs, "already holds rows") {
		t.Errorf("a second migrate-store into the same database: exit %d %q, want 1, refused", code, errs)
	}

	values := map[string]string{"code": "600519.SH", "codes": "600519.SH,000001.SH", "freq": "D", "mode": "qfq", "id": "none", "/v1/api/news/view id": "1",
		"/v1/api/block/members block": "沪深300", "/v1/api/hot_rank/detail stock_code": "600519.SH"}
	for k, v := range dates {
		values[k] = v
	}
	answers := func(s *server) map[string]string {
		t.Helper()
		waitReady(t, s)
		c := s.client()
		raw := func(t *testing.T, path string) (int, []byte) {
			t.Helper()
			resp, err := c.Do(context.Background(), "GET", path, nil)
			if err != nil {
				t.Fatalf("GET %s: %v", path, err)
			}
			return resp.Status, resp.Body
		}
		got := map[string]string{}
		for _, ep := range openAPIGets(t, raw, values) {
			if only != nil && !only[ep.path] {
				continue
			}
			status, body := raw(t, ep.target)
			got[ep.target] = strconv.Itoa(status) + " " + string(body)
		}
		if err := s.stop(t); err != nil {
			t.Fatal(err)
		}
		return got
	}
	want := answers(startServerWith(t, serveOptions{config: cfg, at: at, db: file.db}))
	got := answers(startServerWith(t, serveOptions{config: cfg, at: at, db: target}))
	// These describe the process or the store, not the market: the Go
	// runtime's counters, the store's kind and size, the jobs' run counts
	// (a job's second run on the copy may land before or after the read).
	own := map[string]bool{"/metrics": true, "/v1/api/health/db": true, "/v1/api/health/sources": true, "/v1/api/health/cache": true,
		"/v1/api/health/instance": true} // the store it runs on is the difference
	same, ok200 := 0, 0
	for target, w := range want {
		path, _, _ := strings.Cut(target, "?")
		switch {
		case own[path]:
		case got[target] != w:
			t.Errorf("%s\n from the file: %.600s\n from the copy: %.600s", target, w, got[target])
		default:
			same++
			if strings.HasPrefix(w, "200 ") {
				ok200++
			}
		}
	}
	if ok200 < min(10, len(only)) || (only == nil && ok200 < 10) {
		t.Errorf("only %d endpoints answered 200: the comparison says little", ok200)
	}
	t.Logf("%d GET endpoints answer the same status and bytes from the file and from its copy (%d of them 200)", same, ok200)
}

// waitReady waits for the server's "mdqs ready" line: every start-up job
// has run, so the answers no longer change under the pinned clock.
func waitReady(t *testing.T, s *server) {
	t.Helper()
	waitFor(t, time.Minute, func() bool { return strings.Contains(s.logs.String(), "mdqs ready") })
}
