package db_test

import (
	"context"
	"fmt"
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

// A database this process may only read still serves reads; every write
// is a clear unavailable error ("database not writable"), not a crash.
func TestReadOnlyStoreServesReadsAndRefusesWrites(t *testing.T) {
	for _, folder := range []bool{false, true} {
		name := map[bool]string{false: "read-only file", true: "read-only folder"}[folder]
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			path := filepath.Join(t.TempDir(), "mdqs.db")
			rw := dbtest.OpenAt(t, path)
			now := time.Date(2026, 11, 23, 10, 0, 0, 0, market.Shanghai())
			if _, err := rw.PutClient(ctx, auth.Client{ID: "c", SecretHash: "h", Enabled: true, CreatedAt: now, UpdatedAt: now}); err != nil {
				t.Fatal(err)
			}
			if err := rw.Close(); err != nil {
				t.Fatal(err)
			}

			ro, err := db.OpenReadOnly(ctx, path, "", folder)
			if err != nil {
				t.Fatal(err)
			}
			defer ro.Close()
			if !ro.ReadOnly() {
				t.Error("ReadOnly() = false")
			}
			if c, err := ro.Client(ctx, "c"); err != nil || c.ID != "c" {
				t.Fatalf("read: %+v %v", c, err)
			}
			_, err = ro.PutClient(ctx, auth.Client{ID: "d", SecretHash: "h", Enabled: true, CreatedAt: now, UpdatedAt: now})
			if market.KindOf(err) != market.KindUnavailable || !strings.Contains(err.Error(), "database not writable") {
				t.Fatalf("write on a read-only store: %v", err)
			}
			h, err := ro.Health(ctx)
			if err != nil || !h.ReadOnly {
				t.Errorf("health: %+v %v", h, err)
			}
			if folder {
				// immutable: SQLite must not have made a -shm beside it
				if _, err := os.Stat(path + "-shm"); err == nil {
					t.Error("an immutable open created a -shm file")
				}
			}
		})
	}
}

// A read-only file cannot be migrated, so one at an older schema is
// refused with what to do.
func TestReadOnlyStoreRefusesAnOldSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	old := "-- version 1\nCREATE TABLE a(x);\n"
	s, err := db.Open(context.Background(), path, db.Options{Schema: old})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err = db.OpenReadOnly(context.Background(), path, old+"-- version 2\nCREATE TABLE b(y);\n", false)
	if err == nil || !strings.Contains(err.Error(), "read-only and at schema version 1; this binary needs 2") {
		t.Fatalf("err = %v", err)
	}
}

// Options.ReadOnly opens a store only to read it, on both stores: reads
// work, writes fail, nothing is migrated (a store at an older version is
// refused and stays at it), and a file that is not there is an error, not
// a new store.
func TestOpenReadOnlyOption(t *testing.T) {
	ctx := context.Background()
	target := dbtest.Target(t)
	rw := dbtest.OpenAt(t, target)
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, market.Shanghai())
	if _, err := rw.PutClient(ctx, auth.Client{ID: "c", SecretHash: "h", Enabled: true, CreatedAt: now, UpdatedAt: now}); err != nil {
		t.Fatal(err)
	}
	latest := rw.SchemaVersion()
	opt := db.Options{ReadOnly: true, SQLiteSchema: dbtest.SQLiteSchema(t)}
	ro, err := db.Open(ctx, target, opt)
	if err != nil {
		t.Fatal(err)
	}
	if c, err := ro.Client(ctx, "c"); err != nil || c.ID != "c" {
		t.Fatalf("read: %+v %v", c, err)
	}
	if _, err := ro.PutClient(ctx, auth.Client{ID: "d", SecretHash: "h", Enabled: true, CreatedAt: now, UpdatedAt: now}); err == nil {
		t.Fatal("a store opened read-only took a write")
	}
	ro.Close()

	if err := rw.SetSchemaVersion(ctx, latest-1, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Open(ctx, target, opt); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("schema version %d", latest-1)) {
		t.Fatalf("a store at an older version opened read-only: %v", err)
	}
	if v, err := rw.ReadSchemaVersion(ctx); err != nil || v != latest-1 {
		t.Fatalf("opening it read-only moved its version to %d (%v)", v, err)
	}

	if !db.IsPostgres(target) {
		missing := filepath.Join(t.TempDir(), "none.db")
		if _, err := db.Open(ctx, missing, opt); err == nil {
			t.Fatal("a missing file opened read-only")
		}
		if _, err := os.Stat(missing); err == nil {
			t.Fatal("opening a missing file read-only created it")
		}
	}
}
