//go:build faults

package faulttest

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"mdqs/internal/client"
	"mdqs/internal/loadgen"
)

// nobody is the unprivileged user the server runs as over a database file
// it cannot write.
const nobody = 65534

// TestReadOnlyDatabase fills a database as root, then runs the server as
// nobody over it, with the file root-owned 0644:
//   - "dir-read-only": in a root-owned 0755 folder, so SQLite cannot create
//     the -wal and -shm files either (a database on read-only media, or
//     someone else's folder);
//   - "file-read-only": in a folder nobody owns, so only the file itself is
//     read-only (chmod'ed, or owned by another account).
//
// Wanted: the server starts; reads that need no write (health/db, top50
// of a stored day, K-lines already stored) answer 200; writes (a token, a
// refresh, a K-line read-through of bars not stored yet) answer a clear 503
// envelope, never a 500.
func TestReadOnlyDatabase(t *testing.T) {
	bin := binary(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root to run the server as another user")
	}
	for _, layout := range []string{"dir-read-only", "file-read-only"} {
		t.Run(layout, func(t *testing.T) {
			dir, cfg := rootOwnedFolder(t, "mdqs-readonly-")
			dbDir := dir
			if layout == "file-read-only" {
				dbDir = filepath.Join(dir, "data")
				if err := os.Mkdir(dbDir, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			dbPath := filepath.Join(dbDir, "mdqs.db")
			args := []string{"-config", cfg, "-addr", "127.0.0.1:0", "-db", dbPath}

			// As root: fill the store (a token that stays valid, a stored
			// day's ranking, a year of bars of one stock).
			p, err := loadgen.Start(bin, args, loadgen.StartOptions{Dir: dir})
			if err != nil {
				t.Fatal(err)
			}
			waitIdle(t, p)
			ctx := context.Background()
			c := client.New(p.Addr, "demo", "demo-secret")
			c.HTTP = &http.Client{Timeout: time.Minute, Transport: &http.Transport{}}
			get := func(path string) *client.Response {
				t.Helper()
				r, err := c.Do(ctx, http.MethodGet, path, nil)
				if err != nil {
					t.Fatalf("GET %s: %v", path, err)
				}
				return r
			}
			codes := leaderCodes(t, get)
			stored := "/v1/api/kline?code=" + codes[0] + "&freq=D&start=2025-11-01&end=2026-11-20&indicators=ma5,ma20"
			top50 := get("/v1/api/boards/top50?top=5")
			if top50.Status != http.StatusOK {
				t.Fatalf("top50 as root: %d %s", top50.Status, top50.Body)
			}
			var day struct {
				Day string `json:"day"`
			}
			json.Unmarshal(top50.Body, &day)
			if r := get(stored); r.Status != http.StatusOK {
				t.Fatalf("kline as root: %d %s", r.Status, r.Body)
			}
			if err := p.Stop(30 * time.Second); err != nil {
				t.Fatalf("stop: %v\n%s", err, p.Logs())
			}
			c.HTTP.CloseIdleConnections()

			if layout == "file-read-only" {
				if err := os.Chown(dbDir, nobody, nobody); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Chmod(dbPath, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, suffix := range []string{"-wal", "-shm"} {
				if _, err := os.Stat(dbPath + suffix); err == nil {
					t.Logf("%s%s is left after a clean stop", filepath.Base(dbPath), suffix)
				}
			}

			// As nobody.
			p, err = loadgen.Start(bin, args, loadgen.StartOptions{Dir: dir, Wait: time.Minute, Prepare: func(cmd *exec.Cmd) {
				cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
				cmd.Env = []string{"HOME=/nonexistent", "PATH=/usr/bin:/bin"}
			}})
			if err != nil {
				t.Fatalf("FINDING: the server does not start on a read-only database (%s): %v", layout, err)
			}
			defer p.Stop(30 * time.Second)
			c.BaseURL = "http://" + p.Addr // same client, same token: issued as root, still valid
			for _, path := range []string{"/v1/api/health/db", "/v1/api/boards/top50?top=5&day=" + day.Day, stored, "/v1/api/whoami",
				"/v1/api/boards/industry?day=" + day.Day, "/v1/api/market/movements?day=" + day.Day} {
				if r := get(path); r.Status != http.StatusOK {
					t.Errorf("read %s on a read-only database: %d %.300s", path, r.Status, r.Body)
				}
			}
			_, tr, err := client.New(p.Addr, "demo", "demo-secret").RequestToken(ctx)
			if tr == nil {
				t.Fatalf("token request: %v", err)
			}
			expectReadOnly503(t, "POST /v1/auth/token", tr)
			// A K-line of days the file does not hold is fetched from the
			// source and served without being kept.
			r := get("/v1/api/kline?code=" + codes[1] + "&freq=D&start=2016-01-01&end=2026-11-20")
			var kl struct {
				Data struct {
					Count int `json:"count"`
				} `json:"data"`
			}
			if r.Status != http.StatusOK || json.Unmarshal(r.Body, &kl) != nil || kl.Data.Count < 100 {
				t.Errorf("kline read-through on a read-only database: %d %.300s; want the source's bars, served unstored", r.Status, r.Body)
			}
			if !strings.Contains(p.Logs(), "bars not stored; serving them from the source") {
				t.Errorf("the unstored read-through was not logged:\n%s", p.Logs())
			}
			if strings.Contains(p.Logs(), "level=ERROR") {
				t.Errorf("the server logged errors on a read-only database:\n%s", p.Logs())
			}
		})
	}
}

func expectReadOnly503(t *testing.T, what string, r *client.Response) {
	t.Helper()
	var env struct {
		Code   *int   `json:"code"`
		Detail string `json:"detail"`
	}
	if r.Status != http.StatusServiceUnavailable || json.Unmarshal(r.Body, &env) != nil || env.Code == nil || *env.Code != 0 ||
		!strings.Contains(env.Detail, "not writable") {
		t.Errorf("%s on a read-only database: %d %.300s; want a 503 saying the database is not writable", what, r.Status, r.Body)
	}
}

// rootOwnedFolder is a 0755 folder outside the test's own (which nobody
// else may enter) holding the demo configuration, for a server run as
// another user; it is removed at cleanup.
func rootOwnedFolder(t *testing.T, prefix string) (dir, config string) {
	t.Helper()
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	config = filepath.Join(dir, "config.toml")
	if err := os.WriteFile(config, []byte(demoConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, config
}
