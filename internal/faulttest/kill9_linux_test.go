//go:build faults

package faulttest

import (
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mdqs/db/dbtest"
	"mdqs/internal/client"
	"mdqs/internal/loadgen"
	"mdqs/internal/tdx"
)

var (
	killFiles = flag.Int("kill.files", 3000, "day files in the generated terminal folder")
	killBars  = flag.Int("kill.bars", 1000, "bars per file")
)

// TestKill9MidImport generates a large terminal folder, starts the real
// binary on it and asks for an import (POST /v1/api/refresh), kills the
// process with SIGKILL once some batches are committed and many are not,
// and checks what a crash leaves: PRAGMA integrity_check is ok; every file
// recorded in tdx_files has all its bars, and no file has bars without its
// row (no half-imported batch). A restart then completes the import,
// without reading again the files already recorded, and leaves the same
// invariants over the whole folder. It runs on both stores: on
// PostgreSQL the server rolls back what the killed process left open.
func TestKill9MidImport(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		dbPath := filepath.Join(t.TempDir(), "mdqs.db")
		kill9MidImport(t, dbPath, func(running bool) (*sql.DB, error) {
			if running {
				return sql.Open("sqlite", dbPath+"?_pragma=query_only(1)&_pragma=busy_timeout(5000)")
			}
			if err := integrityCheck(dbPath); err != nil {
				return nil, fmt.Errorf("after the crash: %w", err)
			}
			return sql.Open("sqlite", dbPath)
		})
		if fi, err := os.Stat(dbPath + "-wal"); err == nil {
			t.Logf("left behind: a WAL of %d bytes", fi.Size())
		}
	})
	t.Run("postgres", func(t *testing.T) {
		target := dbtest.NewSchema(t, dbtest.NeedPostgres(t))
		kill9MidImport(t, target, func(bool) (*sql.DB, error) { return sql.Open("pgx", target) })
	})
}

// kill9MidImport is TestKill9MidImport on the store at target; open
// opens it to watch a running server, or (running false) as the next
// start would, after checking what a store can check of itself.
func kill9MidImport(t *testing.T, target string, open func(running bool) (*sql.DB, error)) {
	bin := binary(t)
	dir := t.TempDir()
	term := filepath.Join(dir, "tdx")
	start := time.Now()
	files, err := tdx.GenerateVipdoc(term, *killFiles, *killBars, 9)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("generated %d files x %d bars in %v", len(files), *killBars, time.Since(start).Round(time.Millisecond))
	cfg := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfg, []byte(terminalConfig(term)), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-config", cfg, "-addr", "127.0.0.1:0", "-db", target}

	p, err := loadgen.Start(bin, args, loadgen.StartOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill()
	started := time.Now()
	// The import runs as the start-up job, and in this request, which
	// waits for the job's (one refresh runs at a time).
	refreshed := refresh(p.Addr)

	watch, err := open(true)
	if err != nil {
		t.Fatal(err)
	}
	total := len(files)
	var recorded int
	minRecorded := max(2*50_000 / *killBars, total/3)
	deadline := time.Now().Add(10 * time.Minute)
	for {
		if err := watch.QueryRow(`SELECT count(*) FROM tdx_files WHERE kind = 'day'`).Scan(&recorded); err != nil && !strings.Contains(err.Error(), "no such table") &&
			!strings.Contains(err.Error(), "does not exist") {
			t.Fatal(err)
		}
		// A third of the way in (at least two committed batches of 50,000
		// bars), and well before the end.
		if recorded >= minRecorded && recorded < total*3/4 {
			break
		}
		if recorded >= total*3/4 || time.Now().After(deadline) {
			t.Fatalf("could not catch the import in the middle (%d of %d files recorded); use a larger -kill.files", recorded, total)
		}
		time.Sleep(20 * time.Millisecond)
	}
	watch.Close()
	p.Kill() // SIGKILL: no drain, no checkpoint, no deferred anything
	t.Logf("killed after %d of %d files were recorded, %v after the start", recorded, total, time.Since(started).Round(time.Millisecond))
	<-refreshed

	before := checkImport(t, open, term, files)
	t.Logf("after the crash: %d files recorded, each with all its bars, and no bars without their file", before)
	if before < recorded {
		t.Errorf("after the crash %d files are recorded, fewer than the %d seen committed before it", before, recorded)
	}
	if before == total {
		t.Fatalf("every file was recorded before the kill landed; use a larger -kill.files")
	}

	// Restart: the import completes, reading only what is not recorded.
	p, err = loadgen.Start(bin, args, loadgen.StartOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop(30 * time.Second)
	rep := <-refresh(p.Addr)
	if rep.err != nil {
		t.Fatalf("refresh after the restart: %v\n%s", rep.err, p.Logs())
	}
	// The start-up import job and the request share the work (one refresh
	// runs at a time, so the second finds what the first left): together
	// they must have read exactly the files not recorded before the crash.
	read := rep.FilesChanged + loggedChanges(p.Logs())
	t.Logf("after the restart: %d files read and imported (%d by the request, the rest by the start-up job)", read, rep.FilesChanged)
	if read != total-before {
		t.Errorf("after the restart %d files were read again; %d were not recorded", read, total-before)
	}
	again := <-refresh(p.Addr)
	if again.err != nil || again.FilesChanged != 0 {
		t.Errorf("a second refresh: %d files changed (%v); want nothing left to import", again.FilesChanged, again.err)
	}
	if err := p.Stop(30 * time.Second); err != nil {
		t.Errorf("stop: %v", err)
	}
	if n := checkImport(t, open, term, files); n != total {
		t.Errorf("after the restart %d of %d files are recorded", n, total)
	}
}

// loggedChanges adds up the files the server's own refreshes (the
// start-up job) read, from their log lines: msg="terminal refresh" changed=N.
func loggedChanges(logs string) int {
	n := 0
	for _, line := range strings.Split(logs, "\n") {
		if !strings.Contains(line, `msg="terminal refresh"`) {
			continue
		}
		for _, f := range strings.Fields(line) {
			if v, ok := strings.CutPrefix(f, "changed="); ok {
				var c int
				fmt.Sscan(v, &c)
				n += c
			}
		}
	}
	return n
}

type refreshReport struct {
	FilesChanged int     `json:"files_changed"`
	BarsWritten  int     `json:"bars_written"`
	Seconds      float64 `json:"seconds"`
	err          error
}

// refresh posts /v1/api/refresh in the background; the channel gets its
// report (or the error: a killed server is a transport error).
func refresh(addr string) <-chan refreshReport {
	out := make(chan refreshReport, 1)
	go func() {
		c := client.New(addr, "demo", "demo-secret")
		c.HTTP = &http.Client{Timeout: 20 * time.Minute, Transport: &http.Transport{}}
		defer c.HTTP.CloseIdleConnections()
		r, err := c.Do(context.Background(), http.MethodPost, "/v1/api/refresh", []byte("{}"))
		if err != nil {
			out <- refreshReport{err: err}
			return
		}
		var env struct {
			Data refreshReport `json:"data"`
		}
		if r.Status != http.StatusOK || json.Unmarshal(r.Body, &env) != nil {
			out <- refreshReport{err: fmt.Errorf("HTTP %d: %.300s", r.Status, r.Body)}
			return
		}
		out <- env.Data
	}()
	return out
}

// checkImport opens the database as the next start would (recovering
// SQLite's WAL), and checks the import's invariant: every
// recorded day file has exactly its records in bars (source tdx), and no
// code has tdx bars without a recorded file. It returns how many of files
// are recorded.
func checkImport(t *testing.T, open func(running bool) (*sql.DB, error), term string, files []tdx.File) int {
	t.Helper()
	db, err := open(false)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	byPath := map[string]string{} // relative path -> code
	for _, f := range files {
		rel, _ := filepath.Rel(term, f.Path)
		byPath[filepath.ToSlash(rel)] = f.Code.String()
	}
	counts := map[string]int{}
	rows, err := db.Query(`SELECT code, count(*) FROM bars WHERE source = 'tdx' AND freq = 1440 GROUP BY code`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var code string
		var n int
		if err := rows.Scan(&code, &n); err != nil {
			t.Fatal(err)
		}
		counts[code] = n
	}
	rows.Close()
	rows, err = db.Query(`SELECT path, records, error FROM tdx_files WHERE kind = 'day'`)
	if err != nil {
		t.Fatal(err)
	}
	recorded := map[string]bool{}
	bad := 0
	for rows.Next() {
		var p, problem string
		var records int
		if err := rows.Scan(&p, &records, &problem); err != nil {
			t.Fatal(err)
		}
		code, ok := byPath[p]
		if !ok {
			t.Errorf("tdx_files records %q, which was not generated", p)
			continue
		}
		recorded[code] = true
		if counts[code] != records || records != *killBars || problem != "" {
			if bad++; bad <= 5 {
				t.Errorf("%s (%s): %d bars stored, %d recorded, %d in the file, problem %q", path.Base(p), code, counts[code], records, *killBars, problem)
			}
		}
	}
	rows.Close()
	for code, n := range counts {
		if !recorded[code] {
			if bad++; bad <= 10 {
				t.Errorf("half-imported: %s has %d tdx bars but its file is not recorded", code, n)
			}
		}
	}
	if bad > 0 {
		t.Fatalf("%d files break the import invariant", bad)
	}
	return len(recorded)
}
