package db_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"mdqs/db"
	"mdqs/db/dbtest"
	_ "modernc.org/sqlite"
)

func TestMigrationsApplyOnceAndRecordVersion(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	schema := "-- version 1\nCREATE TABLE a(x);\n-- version 2\nCREATE TABLE b(y);\n"
	s, err := db.Open(context.Background(), path, db.Options{Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.SchemaVersion(); got != 2 {
		t.Fatalf("SchemaVersion() = %d, want 2", got)
	}
	s.Close()
	// Reopening must not re-run the sections (CREATE TABLE a would fail).
	s, err = db.Open(context.Background(), path, db.Options{Schema: schema})
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	s.Close()
	// A third section upgrades the existing file.
	s, err = db.Open(context.Background(), path, db.Options{Schema: schema + "-- version 3\nCREATE TABLE c(z);\n"})
	if err != nil {
		t.Fatalf("upgrade: %v", err)
	}
	if got := s.SchemaVersion(); got != 3 {
		t.Fatalf("after upgrade SchemaVersion() = %d, want 3", got)
	}
	s.Close()
	// An older binary must refuse a newer file rather than misread it.
	_, err = db.Open(context.Background(), path, db.Options{Schema: schema})
	if err == nil || !strings.Contains(err.Error(), "newer than this binary") {
		t.Fatalf("open newer file with older schema: err = %v, want 'newer than this binary'", err)
	}
}

func TestFailedMigrationLeavesPreviousVersion(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	good := "-- version 1\nCREATE TABLE a(x);\n"
	s, err := db.Open(context.Background(), path, db.Options{Schema: good})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	bad := good + "-- version 2\nCREATE TABLE b(y);\nCREATE TABLE a(x);\n" // second statement fails
	if _, err := db.Open(context.Background(), path, db.Options{Schema: bad}); err == nil {
		t.Fatal("open with a failing migration succeeded")
	}
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var v int
	raw.QueryRow("PRAGMA user_version").Scan(&v)
	var n int
	raw.QueryRow("SELECT count(*) FROM sqlite_master WHERE name = 'b'").Scan(&n)
	if v != 1 || n != 0 {
		t.Fatalf("after failed migration: user_version = %d, table b present = %v; want 1, false", v, n == 1)
	}
}

func TestParseSchemaRejectsGapsAndEmpty(t *testing.T) {
	for _, schema := range []string{
		"CREATE TABLE a(x);",
		"-- version 2\nCREATE TABLE a(x);",
		"-- version 1\nCREATE TABLE a(x);\n-- version 3\nCREATE TABLE b(x);",
		"-- version x\n",
	} {
		if _, err := db.Open(context.Background(), filepath.Join(t.TempDir(), "x.db"), db.Options{Schema: schema}); err == nil {
			t.Errorf("Open with schema %q succeeded, want an error", schema)
		}
	}
}

func TestOpenRejectsPathsThatWouldBeMisread(t *testing.T) {
	for _, p := range []string{"", ":memory:", "a.db?mode=ro", "a#b.db"} {
		if _, err := db.Open(context.Background(), p, db.Options{}); err == nil {
			t.Errorf("Open(%q) succeeded, want an error", p)
		}
	}
}

func TestHealthReportsWALAndVersion(t *testing.T) {
	s := dbtest.Open(t)
	h, err := s.Health(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if dbtest.Postgres(t) {
		if h.JournalMode != "postgresql" || h.SchemaVersion < 9 || h.FileBytes <= 0 {
			t.Errorf("Health = %+v: want postgresql, the schema version, the database's size", h)
		}
		return
	}
	if h.JournalMode != "wal" {
		t.Errorf("JournalMode = %q, want wal", h.JournalMode)
	}
	if h.SchemaVersion < 1 || h.PageCount < 1 || h.PageSize < 512 || h.FileBytes < h.PageSize {
		t.Errorf("Health = %+v: want schema >= 1, pages >= 1, file size >= one page", h)
	}
	if h.Writer.MaxOpen != 1 || h.Readers.MaxOpen != 4 {
		t.Errorf("pools: writer max %d, readers max %d; want 1 and 4", h.Writer.MaxOpen, h.Readers.MaxOpen)
	}
}
