package dbtest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"mdqs/db"
)

// A new SQLite store is the same file whichever test opens it: schema.sql
// migrated from nothing, version by version, each in its own transaction
// (some 45 ms under -race, and a package's tests open hundreds). The first
// OpenAt of a new file in a test binary migrates one store and keeps its
// bytes; every new file is then written from them, and opens at the
// latest version with nothing to migrate. TestNewFileIsAStoreMigratedInPlace
// holds the bytes to those of a store migrated where it lies.
type freshFile struct {
	once  sync.Once
	bytes []byte
	err   error
}

// fresh is the test binary's migrated store: read-only once made.
var fresh freshFile

// of is the migrated store's bytes, made on the first call.
func (f *freshFile) of(schema string) ([]byte, error) {
	f.once.Do(func() { f.bytes, f.err = migratedFile(schema) })
	return f.bytes, f.err
}

// migratedFile opens a store on a new file, closes it and reads the file.
func migratedFile(schema string) ([]byte, error) {
	dir, err := os.MkdirTemp("", "mdqs-dbtest-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "mdqs.db")
	s, err := db.Open(context.Background(), path, db.Options{SQLiteSchema: schema})
	if err != nil {
		return nil, err
	}
	if err := s.Close(); err != nil {
		return nil, err
	}
	// The last connection's close checkpoints the WAL into the file and
	// removes it: the file alone is the store.
	if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > 0 {
		return nil, fmt.Errorf("the migrated store left a %d-byte WAL beside it", fi.Size())
	}
	return os.ReadFile(path)
}

// writeFresh writes the migrated store at target when target is a SQLite
// file that does not exist yet; an existing file is the test's to reopen.
func writeFresh(t testing.TB, target string) {
	t.Helper()
	if db.IsPostgres(target) || target == "" || strings.ContainsAny(target, "?#") || strings.HasPrefix(target, ":memory:") {
		return // db.Open's to refuse
	}
	if _, err := os.Stat(target); !errors.Is(err, fs.ErrNotExist) {
		return
	}
	b, err := fresh.of(SQLiteSchema(t))
	if err != nil {
		t.Fatalf("dbtest: a migrated store: %v", err)
	}
	// 0644, as SQLite creates a file (before the umask).
	if err := os.WriteFile(target, b, 0o644); err != nil {
		t.Fatalf("dbtest: %v", err)
	}
}
