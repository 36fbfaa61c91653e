package db_test

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/auth"
	"mdqs/internal/market"
)

// Inspect sees a store as a server about to open it would, and changes
// nothing: a missing folder or file stays missing, a file's bytes stay
// as they were.
func TestInspectFindsWhatAServerWouldAndChangesNothing(t *testing.T) {
	ctx := context.Background()
	schema := dbtest.SQLiteSchema(t)
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, market.Shanghai())
	latest := strings.Count(schema, "\n-- version ")
	if strings.HasPrefix(schema, "-- version ") {
		latest++
	}

	// written makes a store the way a server leaves it: migrated, its
	// market recorded, clients added, closed.
	written := func(t *testing.T, market string, clients ...auth.Client) string {
		path := filepath.Join(t.TempDir(), "mdqs.db")
		s, err := db.Open(ctx, path, db.Options{SQLiteSchema: schema, Market: market})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range clients {
			if _, err := s.PutClient(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		return path
	}
	enabled := auth.Client{ID: "desk", SecretHash: "h", Enabled: true, CreatedAt: now, UpdatedAt: now}
	disabled := auth.Client{ID: "old", SecretHash: "h", Enabled: false, CreatedAt: now, UpdatedAt: now}
	expired := auth.Client{ID: "gone", SecretHash: "h", Enabled: true, ExpiresAt: now.Add(-time.Hour), CreatedAt: now, UpdatedAt: now}

	for _, tc := range []struct {
		name   string
		path   func(t *testing.T) string
		want   db.Inspection // Target and Latest are checked apart
		errHas string
	}{
		{"missing folder", func(t *testing.T) string { return filepath.Join(t.TempDir(), "no", "such", "mdqs.db") },
			db.Inspection{Clients: -1}, ""},
		{"new file", func(t *testing.T) string { return filepath.Join(t.TempDir(), "mdqs.db") },
			db.Inspection{FolderExists: true, FolderWritable: true, Clients: -1}, ""},
		{"a live store with a usable client", func(t *testing.T) string { return written(t, db.MarketLive, enabled, disabled, expired) },
			db.Inspection{FolderExists: true, FolderWritable: true, Exists: true, FileWritable: true, Schema: latest, Market: "live", Clients: 1}, ""},
		{"a demo store", func(t *testing.T) string { return written(t, db.MarketDemo) },
			db.Inspection{FolderExists: true, FolderWritable: true, Exists: true, FileWritable: true, Schema: latest, Market: "demo", Clients: 0}, ""},
		{"an older schema", func(t *testing.T) string {
			path := filepath.Join(t.TempDir(), "mdqs.db")
			old := schema[:strings.Index(schema, "\n-- version 6\n")+1] // versions 1-5
			s, err := db.Open(ctx, path, db.Options{Schema: old})
			if err != nil {
				t.Fatal(err)
			}
			s.Close()
			return path
		}, db.Inspection{FolderExists: true, FolderWritable: true, Exists: true, FileWritable: true, Schema: 5, Clients: 0}, ""},
		{"a newer schema", func(t *testing.T) string {
			path := written(t, "")
			setUserVersion(t, path, latest+3)
			return path
		}, db.Inspection{FolderExists: true, FolderWritable: true, Exists: true, FileWritable: true, Schema: latest + 3, Clients: 0}, ""},
		{"not a database", func(t *testing.T) string {
			path := filepath.Join(t.TempDir(), "mdqs.db")
			os.WriteFile(path, bytes.Repeat([]byte("not sqlite "), 100), 0o600)
			return path
		}, db.Inspection{FolderExists: true, FolderWritable: true, Exists: true, FileWritable: true, Clients: -1}, "not readable as a database"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.path(t)
			before := folderState(t, filepath.Dir(path))
			got, err := db.Inspect(ctx, path, schema, now)
			if tc.errHas == "" && err != nil || tc.errHas != "" && (err == nil || !strings.Contains(err.Error(), tc.errHas)) {
				t.Fatalf("Inspect(%s) error = %v, want %q", tc.name, err, tc.errHas)
			}
			if abs, _ := filepath.Abs(path); got.Target != abs || got.Latest != latest {
				t.Errorf("Inspect(%s) Target %q Latest %d, want %q and %d", tc.name, got.Target, got.Latest, abs, latest)
			}
			got.Target, got.Latest = "", 0
			if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", tc.want) {
				t.Errorf("Inspect(%s) = %+v, want %+v", tc.name, got, tc.want)
			}
			if after := folderState(t, filepath.Dir(path)); after != before {
				t.Errorf("Inspect(%s) changed the folder:\nbefore %s\nafter  %s", tc.name, before, after)
			}
		})
	}
}

// folderState is a folder's files with their sizes and contents' hash,
// "" for a folder that does not exist.
func folderState(t *testing.T, dir string) string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	var b strings.Builder
	for _, e := range entries {
		data, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		fmt.Fprintf(&b, "%s %d %x; ", e.Name(), len(data), data[:min(len(data), 64)])
	}
	return b.String()
}

func setUserVersion(t *testing.T, path string, v int) {
	t.Helper()
	d, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, err := d.Exec(fmt.Sprintf("PRAGMA user_version = %d", v)); err != nil {
		t.Fatal(err)
	}
}

const inspectHoldEnv = "MDQS_TEST_INSPECT_HOLD" // "lock PATH" or "open PATH"

// Another process using the file: a server holds it open while it runs
// (Inspect names it on Linux), and a writer holds the write lock while it
// writes (Inspect says so everywhere, and names it on Linux).
func TestInspectNamesAnotherProcessUsingTheStore(t *testing.T) {
	if hold := os.Getenv(inspectHoldEnv); hold != "" {
		how, path, _ := strings.Cut(hold, " ")
		holdStore(path, how == "lock")
		return
	}
	ctx := context.Background()
	schema := dbtest.SQLiteSchema(t)
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, market.Shanghai())
	for _, how := range []string{"open", "lock"} {
		t.Run(how, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "mdqs.db")
			s, err := db.Open(ctx, path, db.Options{SQLiteSchema: schema, Market: db.MarketLive})
			if err != nil {
				t.Fatal(err)
			}
			s.Close()
			child := exec.Command(os.Args[0], "-test.run=^TestInspectNamesAnotherProcessUsingTheStore$")
			child.Env = append(os.Environ(), inspectHoldEnv+"="+how+" "+path)
			release, _ := child.StdinPipe()
			out, _ := child.StdoutPipe()
			if err := child.Start(); err != nil {
				t.Fatal(err)
			}
			defer child.Wait()
			defer release.Close()
			if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "held\n" {
				t.Fatalf("the child did not open the store: %q %v", line, err)
			}

			got, err := db.Inspect(ctx, path, schema, now)
			if err != nil {
				t.Fatal(err)
			}
			if (got.Locked != nil) != (how == "lock") {
				t.Errorf("Inspect with a child that holds the store %s: Locked = %v", how, got.Locked)
			}
			if got.Market != "live" || got.Clients != 0 {
				t.Errorf("Inspect read market %q clients %d under the child, want live and 0", got.Market, got.Clients)
			}
			if runtime.GOOS != "linux" {
				return
			}
			pid := child.Process.Pid
			if !slices.ContainsFunc(got.OpenBy, func(p db.Process) bool { return p.PID == pid && p.Command != "" }) {
				t.Errorf("OpenBy = %+v, want the child (pid %d) with its command line", got.OpenBy, pid)
			}
			if how == "lock" && got.Locked.PID != pid {
				t.Errorf("Locked = %+v, want held by the child, pid %d", got.Locked, pid)
			}
			release.Close()
			io.Copy(io.Discard, out)
			child.Wait()
			if got, err := db.Inspect(ctx, path, schema, now); err != nil || len(got.OpenBy) != 0 || got.Locked != nil {
				t.Errorf("Inspect after the child closed the store: OpenBy %+v, Locked %v, %v", got.OpenBy, got.Locked, err)
			}
		})
	}
}

// holdStore opens the store as a server does (a connection kept open),
// and with lock holds the write lock too, until stdin closes.
func holdStore(path string, lock bool) {
	d, err := sql.Open("sqlite", path)
	if err != nil {
		panic(err)
	}
	conn, err := d.Conn(context.Background())
	if err != nil {
		panic(err)
	}
	var n int
	if err := conn.QueryRowContext(context.Background(), "SELECT count(*) FROM clients").Scan(&n); err != nil {
		panic(err)
	}
	if lock {
		if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
			panic(err)
		}
	}
	fmt.Println("held")
	io.Copy(io.Discard, os.Stdin)
	if lock {
		conn.ExecContext(context.Background(), "ROLLBACK")
	}
	conn.Close()
	d.Close()
}

// On PostgreSQL: the server answers or not, and a schema there is new
// (no tables yet) or at a version; the password never shows.
func TestInspectPostgres(t *testing.T) {
	ctx := context.Background()
	schema := dbtest.SQLiteSchema(t)
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, market.Shanghai())
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	got, err := db.Inspect(cctx, "postgres://mdqs:s3cret@127.0.0.1:1/mdqs?connect_timeout=2", schema, now)
	if err == nil || strings.Contains(err.Error(), "s3cret") || strings.Contains(got.Target, "s3cret") || !got.Postgres || got.Exists {
		t.Errorf("Inspect of a server that does not answer = %+v, %v; want an error without the password", got, err)
	}

	target := dbtest.NewSchema(t, dbtest.NeedPostgres(t))
	got, err = db.Inspect(ctx, target, schema, now)
	if err != nil || !got.Exists || got.Schema != 0 || got.Latest == 0 || got.Clients != -1 || got.Market != "" {
		t.Fatalf("Inspect of a new schema = %+v, %v; want it there, at version 0, without tables", got, err)
	}
	s, err := db.Open(ctx, target, db.Options{Market: db.MarketLive})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutClient(ctx, auth.Client{ID: "desk", SecretHash: "h", Enabled: true, CreatedAt: now, UpdatedAt: now}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	got, err = db.Inspect(ctx, target, schema, now)
	if err != nil || got.Schema != got.Latest || got.Market != "live" || got.Clients != 1 {
		t.Errorf("Inspect of a store = %+v, %v; want the latest version, live, one client", got, err)
	}
}
