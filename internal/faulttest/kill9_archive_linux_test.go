//go:build faults

package faulttest

import (
	"bytes"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"mdqs/db/dbtest"
	"mdqs/internal/loadgen"
)

// archiveConfig is a demo market large enough that archiving its five
// days takes seconds, long enough to be killed in the middle.
const archiveConfig = `[sources]
default = "demo"
[limits]
token_rate = 0.0
[demo]
enabled = true
stocks = 2000
industries = 20
concepts = 40
history_days = 30
`

// TestKill9MidArchive runs `mdqs archive run` on a demo store, kills it
// with SIGKILL part-way, and checks what the crash leaves: every record
// of a kept day has its bars and no day's bars are there without their
// record (they commit together). A second run then asks the source only
// for the codes not recorded and leaves every code's every due day
// recorded once, 240 bars each. On both stores.
func TestKill9MidArchive(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "mdqs.db")
		kill9MidArchive(t, path, func() (*sql.DB, error) {
			if err := integrityCheck(path); err != nil {
				return nil, fmt.Errorf("after the crash: %w", err)
			}
			return sql.Open("sqlite", path+"?_pragma=busy_timeout(5000)")
		})
	})
	t.Run("postgres", func(t *testing.T) {
		target := dbtest.NewSchema(t, dbtest.NeedPostgres(t))
		kill9MidArchive(t, target, func() (*sql.DB, error) { return sql.Open("pgx", target) })
	})
}

func kill9MidArchive(t *testing.T, target string, open func() (*sql.DB, error)) {
	bin := binary(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfg, []byte(archiveConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	// A server's first run records the days' universe, as it would have.
	p := startBinary(t, []string{"-config", cfg, "-addr", "127.0.0.1:0", "-db", target}, loadgen.StartOptions{Dir: dir})
	waitIdle(t, p)
	if err := p.Stop(30 * time.Second); err != nil {
		t.Fatal(err)
	}

	run := exec.Command(bin, "archive", "run", "-config", cfg, "-db", target)
	run.Dir = dir
	var out bytes.Buffer
	run.Stdout, run.Stderr = &out, &out
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	watch, err := open()
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Close()
	var recorded int
	deadline := time.Now().Add(3 * time.Minute)
	for {
		err := watch.QueryRow(`SELECT count(DISTINCT code) FROM archive_days`).Scan(&recorded)
		if err != nil && !strings.Contains(err.Error(), "locked") {
			t.Fatal(err)
		}
		if recorded >= 300 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the archive recorded %d codes in 3 minutes:\n%s", recorded, out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	run.Process.Signal(syscall.SIGKILL)
	run.Wait()
	t.Logf("killed with %d codes recorded", recorded)

	db, err := open()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	before := checkArchive(t, db)
	if before < recorded || before >= 2000 {
		t.Fatalf("after the crash %d codes are recorded (%d seen before it): the kill did not land mid-run", before, recorded)
	}

	out.Reset()
	again := exec.Command(bin, "archive", "run", "-config", cfg, "-db", target)
	again.Dir, again.Stdout, again.Stderr = dir, &out, &out
	if err := again.Run(); err != nil {
		t.Fatalf("archive run after the crash: %v\n%s", err, out.String())
	}
	m := regexp.MustCompile(`done: (\d+) codes asked in (\d+) requests`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("archive run said:\n%s", out.String())
	}
	asked, _ := strconv.Atoi(m[1])
	after := checkArchive(t, db)
	if asked != after-before {
		t.Fatalf("the second run asked %d codes; %d were recorded before the crash and %d after", asked, before, after)
	}
	var days, short int
	if err := db.QueryRow(`SELECT count(DISTINCT day), sum(CASE WHEN status <> 'gap' AND bars <> 240 THEN 1 ELSE 0 END) FROM archive_days`).Scan(&days, &short); err != nil {
		t.Fatal(err)
	}
	if days != 5 || short != 0 {
		t.Fatalf("after the second run: %d days, %d kept days without 240 bars", days, short)
	}
	t.Logf("the second run asked the %d codes left and recorded every due day of all %d", asked, after)
}

// checkArchive holds a store to the archive's invariant (a kept day's
// record and its 1-minute bars exist together, with the same count) and
// returns how many codes are recorded.
func checkArchive(t *testing.T, db *sql.DB) int {
	t.Helper()
	var orphanRecords, orphanBars, codes int
	if err := db.QueryRow(`SELECT count(*) FROM archive_days a WHERE a.status <> 'gap' AND NOT EXISTS
		(SELECT 1 FROM minute_days m WHERE m.code = a.code AND m.day = a.day AND m.freq = 1 AND m.bars = a.bars)`).Scan(&orphanRecords); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT count(*) FROM minute_days m WHERE m.freq = 1 AND NOT EXISTS
		(SELECT 1 FROM archive_days a WHERE a.code = m.code AND a.day = m.day)`).Scan(&orphanBars); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT count(DISTINCT code) FROM archive_days`).Scan(&codes); err != nil {
		t.Fatal(err)
	}
	if orphanRecords != 0 || orphanBars != 0 {
		t.Fatalf("%d kept days' records without their bars, %d days' bars without a record", orphanRecords, orphanBars)
	}
	return codes
}
