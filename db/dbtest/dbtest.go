// Package dbtest opens a real SQLite store in a test's temp folder with the
// repository's schema.sql, so every package tests against the real thing.
package dbtest

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"mdqs/db"
)

// Schema reads the repository's schema.sql.
func Schema(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("dbtest: cannot locate schema.sql")
	}
	b, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "schema.sql"))
	if err != nil {
		t.Fatalf("dbtest: %v", err)
	}
	return string(b)
}

// Open opens a fresh store at dir/mdqs.db (dir defaults to t.TempDir())
// and closes it when the test ends.
func Open(t testing.TB) *db.Store {
	t.Helper()
	return OpenAt(t, filepath.Join(t.TempDir(), "mdqs.db"))
}

// OpenAt opens the store at path, for tests that reopen a file.
func OpenAt(t testing.TB, path string) *db.Store {
	t.Helper()
	s, err := db.Open(context.Background(), path, Schema(t), db.Options{})
	if err != nil {
		t.Fatalf("dbtest: open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
