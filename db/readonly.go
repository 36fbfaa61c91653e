package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// access is what this process may do with the database file and its folder.
type access int

const (
	readWrite      access = iota
	readOnlyFile          // the file exists but is not writable: SQLite can still keep its -shm beside it
	readOnlyFolder        // the folder is not writable: no -wal or -shm can be made, so the file is read as immutable
)

// probeAccess finds out before SQLite does, which would otherwise fail
// half-way (a read-only folder: "attempt to write a readonly database")
// or open and then fail every write.
func probeAccess(path string) access {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	switch {
	case err == nil:
		f.Close()
	case errors.Is(err, os.ErrNotExist):
		return readWrite // to be created; Open reports a folder it cannot write
	case errors.Is(err, os.ErrPermission):
		if folderWritable(filepath.Dir(path)) {
			return readOnlyFile
		}
		return readOnlyFolder
	default:
		return readWrite // let SQLite report it
	}
	if !folderWritable(filepath.Dir(path)) {
		return readOnlyFolder
	}
	return readWrite
}

func folderWritable(dir string) bool {
	f, err := os.CreateTemp(dir, ".mdqs-probe-*")
	if err != nil {
		return false
	}
	name := f.Name()
	f.Close()
	os.Remove(name)
	return true
}

// openReadOnly opens a database this process may only read, so that the
// server keeps answering reads (a copied file, a locked-down folder, a
// disk remounted read-only): both pools open with mode=ro, every write
// fails with SQLITE_READONLY and reaches clients as 503 "database not
// writable". Nothing is migrated, so the file must be at this binary's
// schema version. In a read-only folder the file is opened immutable,
// which ignores a -wal file a crash may have left; the server checkpoints
// it away at every clean stop.
func openReadOnly(ctx context.Context, path string, migrations []migration, opt Options, a access) (*Store, error) {
	opt = opt.withDefaults()
	uri := fileURI(path) + "?mode=ro"
	if a == readOnlyFolder {
		uri += "&immutable=1"
	}
	open := func(conns int) (*sql.DB, error) {
		d, err := sql.Open("sqlite", dsn(uri, opt.BusyTimeout))
		if err != nil {
			return nil, err
		}
		d.SetMaxOpenConns(conns)
		d.SetMaxIdleConns(conns)
		return d, nil
	}
	w, err := open(1)
	if err != nil {
		return nil, fmt.Errorf("db: open %s read-only: %w", path, err)
	}
	s := &Store{path: path, w: w, readOnly: true}
	if err := w.PingContext(ctx); err != nil {
		w.Close()
		return nil, fmt.Errorf("db: open %s read-only: %w", path, err)
	}
	if err := w.QueryRowContext(ctx, "PRAGMA user_version").Scan(&s.schema); err != nil {
		w.Close()
		return nil, fmt.Errorf("db: %s is not readable as a database: %w", path, err)
	}
	latest := migrations[len(migrations)-1].version
	switch {
	case s.schema > latest:
		w.Close()
		return nil, fmt.Errorf("db: the database is at schema version %d, newer than this binary's %d; use a newer mdqs", s.schema, latest)
	case s.schema < latest:
		w.Close()
		return nil, fmt.Errorf("db: %s is read-only and at schema version %d; this binary needs %d: let mdqs write it once to migrate it", path, s.schema, latest)
	}
	if err := s.claimMarket(ctx, opt.Market); err != nil {
		w.Close()
		return nil, err
	}
	if s.r, err = open(opt.Readers); err != nil {
		w.Close()
		return nil, err
	}
	return s, nil
}

// fileURI is path as an SQLite file: URI (absolute, forward slashes, and
// the one character that URI decoding would change escaped; Open refuses
// ? and #).
func fileURI(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // C:/x on Windows becomes file:/C:/x
	}
	return "file:" + strings.ReplaceAll(p, "%", "%25")
}
