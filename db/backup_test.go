package db_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/market"
)

// fileRows counts a table's rows in a SQLite file, outside the store.
func fileRows(t *testing.T, path, table string) int64 {
	t.Helper()
	c, err := sql.Open("sqlite", path) // a name, not a URI: it may hold #
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var n int64
	if err := c.QueryRow("SELECT count(*) FROM " + table).Scan(&n); err != nil {
		t.Fatalf("count %s in %s: %v", table, path, err)
	}
	return n
}

// partFiles are the temporary files a backup left in dir.
func partFiles(t *testing.T, dir string) []string {
	t.Helper()
	left, err := filepath.Glob(filepath.Join(dir, "*.part-*"))
	if err != nil {
		t.Fatal(err)
	}
	return left
}

// A backup taken while another connection writes the store steadily (as a
// server does) finishes, is the store as it was at one moment (what was
// written before it began, none of what was written while it ran), opens
// as a store at the same schema version, answers the same bars, and leaves
// no temporary file and no -wal beside the copy.
func TestBackupUnderLoadOpensAndChecks(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "mdqs.db")
	s := dbtest.OpenAt(t, path)
	fixture := minuteFixture(t)
	if _, err := s.IngestBars(ctx, fixture); err != nil {
		t.Fatal(err)
	}
	barsBefore, daysBefore := fileRows(t, path, "bars"), fileRows(t, path, "minute_days")

	// The writer: a new code's daily bars, one transaction after another.
	var (
		writes atomic.Int64
		stop   = make(chan struct{})
		wg     sync.WaitGroup
		werr   error
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			code := market.MustCode(fmt.Sprintf("%06d.SH", 600000+i%1000))
			bars := dayBars(5)
			if _, werr = s.IngestBars(ctx, []db.BarBatch{{Code: code, Freq: market.Daily, Source: "load", Bars: bars}}); werr != nil {
				return
			}
			writes.Add(1)
		}
	}()
	// The first step waits for writes, so some surely land mid-copy.
	var steps int
	progress := func(done, total int64) {
		if steps++; steps == 1 {
			from := writes.Load()
			for deadline := time.Now().Add(10 * time.Second); writes.Load() < from+3 && time.Now().Before(deadline); {
				time.Sleep(time.Millisecond)
			}
		}
		if done > total || total <= 0 {
			t.Errorf("progress %d of %d", done, total)
		}
	}
	copyPath := filepath.Join(dir, "backup.db")
	rep, err := db.Backup(ctx, path, copyPath, db.BackupOptions{StepPages: 4, Progress: progress})
	during := writes.Load()
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatalf("Backup under load: %v", err)
	}
	if werr != nil {
		t.Fatalf("the writer: %v", werr)
	}
	if steps < 3 || during < 3 {
		t.Fatalf("%d steps, %d writes: the copy did not run under load", steps, during)
	}
	if rep.Bytes <= 0 || rep.Schema != s.SchemaVersion() || rep.Rows <= 0 {
		t.Errorf("report = %+v", rep)
	}
	var sum int64
	for _, c := range rep.Tables {
		sum += c.Target
		if c.Source != c.Target {
			t.Errorf("table %s: %d rows in the source, %d in the copy", c.Table, c.Source, c.Target)
		}
	}
	if sum != rep.Rows || len(rep.Tables) < 30 {
		t.Errorf("%d tables adding up to %d rows, report says %d", len(rep.Tables), sum, rep.Rows)
	}

	barsCopy, barsNow := fileRows(t, copyPath, "bars"), fileRows(t, path, "bars")
	if barsCopy < barsBefore || barsCopy >= barsNow {
		t.Errorf("bars: %d before the backup, %d in the copy, %d after: want the copy between, without what was written during the copy",
			barsBefore, barsCopy, barsNow)
	}
	if got := fileRows(t, copyPath, "minute_days"); got != daysBefore {
		t.Errorf("minute_days in the copy = %d, want %d", got, daysBefore)
	}
	restored := dbtest.OpenAt(t, copyPath)
	if restored.SchemaVersion() != s.SchemaVersion() {
		t.Errorf("the copy opens at schema version %d, want %d", restored.SchemaVersion(), s.SchemaVersion())
	}
	for _, b := range fixture[:3] {
		q := db.BarQuery{Code: b.Code, Freq: b.Freq}
		want, err1 := s.Bars(ctx, q)
		got, err2 := restored.Bars(ctx, q)
		if err1 != nil || err2 != nil || len(got) != len(b.Bars) || !reflect.DeepEqual(got, want) {
			t.Errorf("%s %s bars: the copy answers %d (%v), the store %d (%v)", b.Code, b.Freq, len(got), err2, len(want), err1)
		}
	}
	if left := partFiles(t, dir); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

// The backup refuses what would lose data or make no copy, and says why:
// an existing file (unless told to replace it), the database itself, a
// folder, a file whose journal lies beside it, a PostgreSQL store, a
// missing one (which it must not create). Interrupted, it leaves nothing.
func TestBackupRefusesAndLeavesNothingHalfDone(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "mdqs.db")
	s := dbtest.OpenAt(t, path)
	if _, err := s.IngestBars(ctx, minuteFixture(t)); err != nil {
		t.Fatal(err)
	}
	existing := filepath.Join(dir, "existing.db")
	os.WriteFile(existing, []byte("keep me"), 0o600)
	journaled := filepath.Join(dir, "journaled.db")
	os.WriteFile(journaled+"-journal", []byte("a hot journal"), 0o600)
	missing := filepath.Join(dir, "missing.db")

	for _, tc := range []struct {
		name, from, to string
		want           string
	}{
		{"existing file", path, existing, "the file exists"},
		{"the database itself", path, path, "is the database itself"},
		{"the database by another name", path, filepath.Join(dir, ".", "sub", "..", "mdqs.db"), "is the database itself"},
		{"a folder", path, dir, "is a folder"},
		{"a journal beside", path, journaled, "journaled.db-journal exists"},
		{"no file named", path, "", "give its name"},
		{"PostgreSQL", "postgres://u@127.0.0.1/mdqs", filepath.Join(dir, "pg.db"), "pg_dump"},
		{"a missing store", missing, filepath.Join(dir, "m.db"), "no such file"},
	} {
		_, err := db.Backup(ctx, tc.from, tc.to, db.BackupOptions{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Backup(%s, %s) = %v, want an error saying %q", tc.name, tc.from, tc.to, err, tc.want)
		}
	}
	if _, err := db.Backup(ctx, path, existing, db.BackupOptions{}); !errors.Is(err, db.ErrBackupExists) {
		t.Errorf("an existing file: %v, want ErrBackupExists", err)
	}
	if b, _ := os.ReadFile(existing); string(b) != "keep me" {
		t.Errorf("the refused file was changed: %q", b)
	}
	if _, err := os.Stat(missing); err == nil {
		t.Errorf("the backup of a missing store created it")
	}

	// Interrupted mid-copy: an error, and neither the file nor a part.
	cctx, cancel := context.WithCancel(ctx)
	interrupted := filepath.Join(dir, "interrupted.db")
	_, err := db.Backup(cctx, path, interrupted, db.BackupOptions{StepPages: 1, Progress: func(done, total int64) { cancel() }})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("interrupted: %v, want context.Canceled", err)
	}
	if _, err := os.Stat(interrupted); err == nil {
		t.Errorf("an interrupted backup left %s", interrupted)
	}

	// Told to, it replaces the file with a checked copy.
	rep, err := db.Backup(ctx, path, existing, db.BackupOptions{Replace: true})
	if err != nil || rep.Bytes == 0 {
		t.Fatalf("Backup with Replace: %+v %v", rep, err)
	}
	if got, want := fileRows(t, existing, "minute_days"), fileRows(t, path, "minute_days"); got != want || got == 0 {
		t.Errorf("the replaced file holds %d minute days, want %d", got, want)
	}

	// A folder whose name SQLite would read as a URI's fragment.
	odd := filepath.Join(dir, "#1 backups")
	os.Mkdir(odd, 0o755)
	if _, err := db.Backup(ctx, path, filepath.Join(odd, "mdqs.db"), db.BackupOptions{}); err != nil {
		t.Errorf("Backup into %s: %v", odd, err)
	} else if got := fileRows(t, filepath.Join(odd, "mdqs.db"), "minute_days"); got == 0 {
		t.Errorf("the copy in %s holds no minute days", odd)
	}
	if left := partFiles(t, dir); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}
