package dbtest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"mdqs/db"
)

// The file OpenAt writes for a new store is byte for byte a store that
// db.Open migrated where it lies and then closed; and OpenAt opens it at
// the latest schema version, as it opened a new file before.
func TestNewFileIsAStoreMigratedInPlace(t *testing.T) {
	if Postgres(t) {
		t.Skip("a SQLite file's test")
	}
	ctx := context.Background()
	inPlace := filepath.Join(t.TempDir(), "mdqs.db")
	s, err := db.Open(ctx, inPlace, db.Options{SQLiteSchema: SQLiteSchema(t)})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(inPlace)
	if err != nil {
		t.Fatal(err)
	}

	target := filepath.Join(t.TempDir(), "mdqs.db")
	opened := OpenAt(t, target)
	wantVersion := s.SchemaVersion()
	if got := opened.SchemaVersion(); got != wantVersion {
		t.Errorf("OpenAt of a new file: schema version %d, want %d", got, wantVersion)
	}
	got, err := fresh.of(SQLiteSchema(t))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the new file OpenAt writes (%d bytes) differs from a store migrated in place (%d bytes)", len(got), len(want))
	}
}
