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
// schema version. In a read-only folder the file is opened immutable (no
// -shm can be made there), unless a -wal file left by a process that
// stopped without closing the store holds committed transactions the file
// lacks: immutable would silently serve the older data, so the file is
// then read through the -shm left beside it (SQLite reads a WAL with a
// read-only -shm), and refused when there is none.
func openReadOnly(ctx context.Context, path string, migrations []migration, opt Options, a access) (*Store, error) {
	opt = opt.withDefaults()
	uri, pending, err := readOnlyURI(path, a)
	if err != nil {
		return nil, err
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
	s := &Store{path: path, w: w, readOnly: true, walPending: pending}
	err = w.PingContext(ctx)
	if err == nil {
		err = w.QueryRowContext(ctx, "PRAGMA user_version").Scan(&s.schema)
	}
	if err != nil {
		w.Close()
		if pending > 0 {
			return nil, fmt.Errorf("db: %s-wal holds %d page(s) of committed transactions not in the file yet, and reading them "+
				"through %s-shm in a folder this process may not write failed (%w): open it once with write access to the folder "+
				"(mdqs serve, or sqlite3 %s 'PRAGMA wal_checkpoint(TRUNCATE)', as its owner), which copies them into the file",
				path, pending, path, err, path)
		}
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

// readOnlyURI is how a file this process may not write is opened: mode=ro,
// and in a folder it may not write immutable too, unless the -wal holds
// committed transactions the file lacks (pending pages), which are then
// read through the -shm beside it, or refused when there is none.
func readOnlyURI(path string, a access) (uri string, pending int, err error) {
	uri = fileURI(path) + "?mode=ro"
	if a != readOnlyFolder {
		return uri, 0, nil
	}
	if pending, err = walPending(path); err != nil {
		return "", 0, fmt.Errorf("db: read %s-wal: %w", path, err)
	}
	if _, err := os.Stat(path + "-shm"); pending > 0 && err != nil {
		return "", 0, walError(path, pending)
	}
	if pending == 0 {
		uri += "&immutable=1"
	}
	return uri, pending, nil
}

// fileURI is path as an SQLite file: URI (absolute, forward slashes, and
// the characters a URI's path cannot hold as they are escaped: Open
// refuses a store's name with ? or #, but a backup's folder may hold #).
func fileURI(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // C:/x on Windows becomes file:/C:/x
	}
	return "file:" + strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(p)
}

// WALPending is, for a file opened read-only in a folder this process may
// not write, the pages of committed transactions its -wal file holds
// beyond the main file (read through the -shm left beside it); 0 otherwise.
func (s *Store) WALPending() int { return s.walPending }
