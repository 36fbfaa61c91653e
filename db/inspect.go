package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// Inspection is what a look at a store finds without changing it: the
// store a server would open, seen before it starts (mdqs doctor). Nothing
// is created, migrated or recorded.
type Inspection struct {
	// Target is the file as an absolute path, or the server's URL
	// without its password.
	Target   string
	Postgres bool
	// FolderExists and FolderWritable: the SQLite file's folder, where the
	// file (when new) and its -wal and -shm are made.
	FolderExists   bool
	FolderWritable bool
	// Exists: the file is there (PostgreSQL: the server answered).
	Exists       bool
	FileWritable bool // SQLite: the file opens for writing
	// Schema is the version the store is at (0: none yet); Latest this
	// binary's, which a server migrates it to at start.
	Schema, Latest int
	// Market is the market the store recorded (MarketDemo, MarketLive),
	// "" when none is recorded yet.
	Market string
	// Clients is how many clients may take a token now (enabled, not
	// expired); -1 when the store has no clients table yet.
	Clients int
	// WALBytes is the size of the SQLite file's -wal.
	WALBytes int64
	// Locked is set when another process holds the write lock now (a
	// server writing, an import, a sqlite3 shell in a transaction).
	Locked *LockedError
	// OpenBy lists the other processes that have the file open (a server
	// holds it open while it runs), where the system tells (Linux).
	OpenBy []Process
}

// Process is another process using a store's file.
type Process struct {
	PID     int
	Name    string // its program ("mdqs"); "" if unknown
	Command string // its command line; "" if unknown
}

// Inspect looks at the store at target (a SQLite file or a PostgreSQL
// URL) as a server about to open it would find it, changing nothing:
// whether it exists and may be written, its schema version against this
// binary's, the market it holds, its usable clients, and who else uses it.
// sqliteSchema is schema.sql (for this binary's version); now dates the
// clients' expiry. An error means the store could not be read at all;
// what was found until then is returned with it.
func Inspect(ctx context.Context, target, sqliteSchema string, now time.Time) (Inspection, error) {
	schema := sqliteSchema
	if IsPostgres(target) {
		schema = postgresSchema
	}
	migrations, err := parseSchema(schema)
	if err != nil {
		return Inspection{Target: Redact(target)}, err
	}
	in := Inspection{Target: Redact(target), Latest: migrations[len(migrations)-1].version, Clients: -1}
	if IsPostgres(target) {
		in.Postgres = true
		return in, inspectPostgres(ctx, target, now, &in)
	}
	return in, inspectSQLite(ctx, target, now, &in)
}

func inspectSQLite(ctx context.Context, path string, now time.Time, in *Inspection) error {
	if abs, err := filepath.Abs(path); err == nil {
		in.Target = abs
	}
	if path == "" || strings.ContainsAny(path, "?#") || strings.HasPrefix(path, ":memory:") {
		return fmt.Errorf("db: invalid database path %q", path)
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil // FolderExists false says it
	}
	in.FolderExists, in.FolderWritable = true, folderWritable(dir)
	switch _, err := os.Stat(path); {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("db: %s: %w", path, err)
	}
	in.Exists = true
	if f, err := os.OpenFile(path, os.O_RDWR, 0); err == nil {
		f.Close()
		in.FileWritable = true
	}
	if st, err := os.Stat(path + "-wal"); err == nil {
		in.WALBytes = st.Size()
	}
	// Before this process opens the file: its own locks are left out, but
	// a look after would find nothing new.
	for _, pid := range openHolders(path) {
		name, command := processName(pid)
		in.OpenBy = append(in.OpenBy, Process{PID: pid, Name: name, Command: command})
	}

	a := readWrite
	switch {
	case !in.FolderWritable:
		a = readOnlyFolder
	case !in.FileWritable:
		a = readOnlyFile
	}
	uri, _, err := readOnlyURI(path, a)
	if err != nil {
		return err
	}
	// A second's wait: only a holder that keeps readers out (a rollback
	// journal's writer, locking_mode=EXCLUSIVE) makes a read wait.
	r, err := sql.Open("sqlite", dsn(uri, time.Second))
	if err != nil {
		return fmt.Errorf("db: open %s: %w", path, err)
	}
	r.SetMaxOpenConns(1)
	err = readStoreFacts(ctx, r, now, in)
	// Closed before the write lock's probe, whose connection, the last
	// to close, then removes the -wal and -shm it found absent.
	r.Close()
	if err != nil {
		if isBusy(err) {
			in.Locked = lockedBy(path, err)
			return nil
		}
		return fmt.Errorf("db: %s is not readable as a database: %w", path, err)
	}
	if a != readWrite {
		return nil // no write lock to take: the server would open it read-only
	}
	// Take the write lock without waiting, and let go at once: busy means
	// another process holds it now.
	w, err := sql.Open("sqlite", dsn(fileURI(path)+"?mode=rw", 0, "_txlock=immediate"))
	if err != nil {
		return fmt.Errorf("db: open %s: %w", path, err)
	}
	defer w.Close()
	tx, err := w.BeginTx(ctx, nil)
	switch {
	case err == nil:
		return tx.Rollback()
	case isBusy(err):
		in.Locked = lockedBy(path, err)
		return nil
	}
	return fmt.Errorf("db: %s: %w", path, describeOpenError(err))
}

// readStoreFacts reads the schema version, the market and the usable
// clients, leaving out what a store too old to have it lacks.
func readStoreFacts(ctx context.Context, q *sql.DB, now time.Time, in *Inspection) error {
	if in.Postgres {
		var has bool
		if err := q.QueryRowContext(ctx, `SELECT to_regclass('mdqs_schema') IS NOT NULL`).Scan(&has); err != nil {
			return err
		}
		if has {
			if err := q.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM mdqs_schema`).Scan(&in.Schema); err != nil {
				return err
			}
		}
	} else if err := q.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&in.Schema); err != nil {
		return err
	}
	if in.Schema == 0 {
		return nil
	}
	tables, err := tableNames(ctx, q, in.Postgres)
	if err != nil {
		return err
	}
	if slices.Contains(tables, "store_meta") {
		err := q.QueryRowContext(ctx, `SELECT value FROM store_meta WHERE key = 'market'`).Scan(&in.Market)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
	}
	if slices.Contains(tables, "clients") {
		err := q.QueryRowContext(ctx, `SELECT count(*) FROM clients WHERE enabled = 1 AND (expires_at IS NULL OR expires_at > ?)`,
			now.UnixMilli()).Scan(&in.Clients)
		if err != nil {
			return err
		}
	}
	return nil
}

// tableNames lists the store's tables (on PostgreSQL, its schema's).
func tableNames(ctx context.Context, q *sql.DB, postgres bool) ([]string, error) {
	query := `SELECT name FROM sqlite_master WHERE type = 'table'`
	if postgres {
		query = `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()`
	}
	rows, err := q.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		out = append(out, name)
	}
	return out, rows.Err()
}

func inspectPostgres(ctx context.Context, target string, now time.Time, in *Inspection) error {
	cfg, err := pgx.ParseConfig(target)
	if err != nil {
		return fmt.Errorf("db: %s: %v", in.Target, err)
	}
	// Read-only on the server's side: a look never writes.
	cfg.RuntimeParams["default_transaction_read_only"] = "on"
	q := sql.OpenDB(rebindConnector{stdlib.GetConnector(*cfg)})
	defer q.Close()
	if err := q.PingContext(ctx); err != nil {
		return fmt.Errorf("db: connect to %s: %w", in.Target, err)
	}
	in.Exists, in.FolderExists, in.FolderWritable, in.FileWritable = true, true, true, true
	if err := readStoreFacts(ctx, q, now, in); err != nil {
		return fmt.Errorf("db: read %s: %w", in.Target, err)
	}
	return nil
}
