package db_test

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	_ "modernc.org/sqlite"
)

// Migrations run on either store: once each, recorded, upgrading an
// older store, refused by an older binary.
func TestMigrationsApplyOnceAndRecordVersion(t *testing.T) {
	target := dbtest.Target(t)
	schema := "-- version 1\nCREATE TABLE a(x INTEGER);\n-- version 2\nCREATE TABLE b(y INTEGER);\n"
	s, err := db.Open(context.Background(), target, db.Options{Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.SchemaVersion(); got != 2 {
		t.Fatalf("SchemaVersion() = %d, want 2", got)
	}
	s.Close()
	// Reopening must not re-run the sections (CREATE TABLE a would fail).
	s, err = db.Open(context.Background(), target, db.Options{Schema: schema})
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	s.Close()
	// A third section upgrades the existing store.
	s, err = db.Open(context.Background(), target, db.Options{Schema: schema + "-- version 3\nCREATE TABLE c(z INTEGER);\n"})
	if err != nil {
		t.Fatalf("upgrade: %v", err)
	}
	if got := s.SchemaVersion(); got != 3 {
		t.Fatalf("after upgrade SchemaVersion() = %d, want 3", got)
	}
	s.Close()
	// An older binary must refuse a newer store rather than misread it.
	_, err = db.Open(context.Background(), target, db.Options{Schema: schema})
	if err == nil || !strings.Contains(err.Error(), "newer than this binary") {
		t.Fatalf("open newer store with older schema: err = %v, want 'newer than this binary'", err)
	}
}

func TestFailedMigrationLeavesPreviousVersion(t *testing.T) {
	target := dbtest.Target(t)
	good := "-- version 1\nCREATE TABLE a(x INTEGER);\n"
	s, err := db.Open(context.Background(), target, db.Options{Schema: good})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	bad := good + "-- version 2\nCREATE TABLE b(y INTEGER);\nCREATE TABLE a(x INTEGER);\n" // second statement fails
	if _, err := db.Open(context.Background(), target, db.Options{Schema: bad}); err == nil {
		t.Fatal("open with a failing migration succeeded")
	}
	// Still at version 1, and without b: a version 2 that makes b applies.
	s, err = db.Open(context.Background(), target, db.Options{Schema: good + "-- version 2\nCREATE TABLE b(y INTEGER);\n"})
	if err != nil {
		t.Fatalf("after a failed migration, the next one: %v (was b left behind?)", err)
	}
	defer s.Close()
	if v := s.SchemaVersion(); v != 2 {
		t.Fatalf("SchemaVersion = %d, want 2", v)
	}
}

// Instances started together on a new store: one migrates, the others
// wait for it, and every migration runs exactly once.
func TestConcurrentOpensMigrateOnce(t *testing.T) {
	target := dbtest.Target(t)
	schema := "-- version 1\nCREATE TABLE a(x INTEGER);\n-- version 2\nINSERT INTO a(x) VALUES (1);\n-- version 3\nCREATE TABLE b(y INTEGER);\n"
	const instances = 4
	stores := make([]*db.Store, instances)
	errs := make([]error, instances)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range instances {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			stores[i], errs[i] = db.Open(context.Background(), target, db.Options{Schema: schema, BusyTimeout: 10 * time.Second})
		}()
	}
	close(start)
	wg.Wait()
	for i, s := range stores {
		if errs[i] != nil {
			t.Errorf("instance %d: %v", i, errs[i])
			continue
		}
		defer s.Close()
		if v := s.SchemaVersion(); v != 3 {
			t.Errorf("instance %d at version %d, want 3", i, v)
		}
	}
	if t.Failed() {
		return
	}
	if n, err := stores[0].QueryInt(context.Background(), "SELECT count(*) FROM a"); err != nil || n != 1 {
		t.Errorf("version 2's row is there %d times (%v), want once", n, err)
	}
	// The real schema, each instance claiming the new store's market.
	target = dbtest.Target(t)
	for i := range instances {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stores[i], errs[i] = db.Open(context.Background(), target, db.Options{SQLiteSchema: dbtest.SQLiteSchema(t), Market: db.MarketLive, BusyTimeout: 10 * time.Second})
		}()
	}
	wg.Wait()
	for i, s := range stores {
		if errs[i] != nil {
			t.Errorf("instance %d on the real schema: %v", i, errs[i])
			continue
		}
		defer s.Close()
		if s.Market() != db.MarketLive {
			t.Errorf("instance %d serves %q", i, s.Market())
		}
	}
}

func TestParseSchemaRejectsGapsAndEmpty(t *testing.T) {
	for _, schema := range []string{
		"CREATE TABLE a(x);",
		"-- version 2\nCREATE TABLE a(x);",
		"-- version 1\nCREATE TABLE a(x);\n-- version 3\nCREATE TABLE b(x);",
		"-- version x\n",
		"-- version 1\nCREATE TABLE a(x);\n-- go: drop_everything\n", // a Go step this binary does not have
	} {
		if _, err := db.Open(context.Background(), filepath.Join(t.TempDir(), "x.db"), db.Options{Schema: schema}); err == nil {
			t.Errorf("Open with schema %q succeeded, want an error", schema)
		}
	}
}

func TestOpenRejectsPathsThatWouldBeMisread(t *testing.T) {
	for _, p := range []string{"", ":memory:", "a.db?mode=ro", "a#b.db"} {
		if _, err := db.Open(context.Background(), p, db.Options{SQLiteSchema: dbtest.SQLiteSchema(t)}); err == nil {
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
