package db_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/auth"
	"mdqs/internal/market"
)

// Issue 20: a read-only folder whose -wal file holds committed
// transactions the main file lacks (its writer was killed) is not served
// from the older main file: read through the -shm left beside it, or, with
// none, refused saying how to fold the WAL in.
func TestReadOnlyFolderWithLeftoverWAL(t *testing.T) {
	ctx := context.Background()
	for _, withSHM := range []bool{true, false} {
		t.Run(map[bool]string{true: "with -shm", false: "without -shm"}[withSHM], func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "mdqs.db")
			s, err := db.Open(ctx, path, db.Options{SQLiteSchema: dbtest.SQLiteSchema(t)})
			if err != nil {
				t.Fatal(err)
			}
			now := time.Date(2026, 11, 23, 10, 0, 0, 0, market.Shanghai())
			if _, err := s.PutClient(ctx, auth.Client{ID: "c", SecretHash: "old", Enabled: true, CreatedAt: now, UpdatedAt: now}); err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil { // checkpointed: the main file holds everything
				t.Fatal(err)
			}
			crashAfter(t, path, `UPDATE clients SET secret_hash = 'committed-in-wal' WHERE id = 'c'`)
			if !withSHM {
				os.Remove(path + "-shm")
			}

			ro, err := db.OpenReadOnly(ctx, path, "", true)
			if !withSHM {
				if err == nil {
					ro.Close()
					t.Fatal("opened, and would serve the file without the transactions its -wal holds")
				}
				if !strings.Contains(err.Error(), "-wal holds") || !strings.Contains(err.Error(), "wal_checkpoint(TRUNCATE)") {
					t.Fatalf("err = %v; want it to name the -wal and the fix", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer ro.Close()
			c, err := ro.Client(ctx, "c")
			if err != nil || c.SecretHash != "committed-in-wal" {
				t.Fatalf("read = %q %v; want the transaction committed in the -wal", c.SecretHash, err)
			}
			if ro.WALPending() == 0 {
				t.Error("WALPending() = 0")
			}
		})
	}
	// A -wal whose transactions are all in the file (or an empty one)
	// opens immutable, as before.
	path := filepath.Join(t.TempDir(), "mdqs.db")
	s, err := db.Open(ctx, path, db.Options{SQLiteSchema: dbtest.SQLiteSchema(t)})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	crashAfter(t, path, `UPDATE store_meta SET value = value`, `INSERT INTO store_meta(key, value) VALUES ('x', 'y')`, `PRAGMA wal_checkpoint(PASSIVE)`)
	ro, err := db.OpenReadOnly(ctx, path, "", true)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if ro.WALPending() != 0 {
		t.Errorf("WALPending() = %d for a -wal holding nothing new", ro.WALPending())
	}
}

// crashAfter runs stmts on path and leaves the files as a process killed
// right after it would: the -wal and -shm as they were, nothing
// checkpointed (a clean close would fold the -wal in and delete it).
func crashAfter(t *testing.T, path string, stmts ...string) {
	t.Helper()
	d, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	d.SetMaxOpenConns(1)
	for _, q := range append([]string{"PRAGMA wal_autocheckpoint = 0"}, stmts...) {
		if _, err := d.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	image := map[string][]byte{}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		b, err := os.ReadFile(path + suffix)
		if err != nil {
			t.Fatal(err)
		}
		image[suffix] = b
	}
	d.Close()
	for suffix, b := range image {
		if err := os.WriteFile(path+suffix, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
