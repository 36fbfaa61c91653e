// Package db is the service's store: one SQLite file (modernc.org/sqlite, no
// CGO) opened as one writer connection and a bounded pool of readers, or a
// PostgreSQL server (pgx) for a team's shared service. It is the only
// package that speaks SQL; the rest of the program sees one Store either
// way.
//
// Why two pools: SQLite allows one writer at a time. Funnelling every write
// through a single connection whose transactions begin IMMEDIATE serialises
// our own writers in Go instead of failing with SQLITE_BUSY, and a writer
// that waits for another process (the `mdqs client` command on the same file)
// waits up to busy_timeout. WAL lets the readers run beside the writer.
package db

import (
	"context"
	"database/sql"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// postgresSchema is the PostgreSQL dialect's schema, with the same versions
// as the SQLite schema: schema.sql at the repository's root, the default
// store's, which package main embeds (go:embed cannot reach a parent folder)
// and hands to Open as Options.SQLiteSchema.
//
//go:embed postgres.sql
var postgresSchema string

// Options tune Open; zero values take defaults.
type Options struct {
	Readers     int           // reader pool size; default 4
	BusyTimeout time.Duration // default 5s
	// Market is the market the opener serves, MarketDemo or MarketLive: a
	// store holding the other one is refused with a *MarketError, and a
	// new store records it. "" checks nothing (client administration,
	// which holds no market data).
	Market string
	// SQLiteSchema is the SQLite dialect's schema, the text of schema.sql at
	// the repository's root (package main embeds it; tests and tools read
	// it from the checkout with package checkout). Opening a SQLite file
	// needs it; PostgreSQL's schema is built in (postgres.sql).
	SQLiteSchema string
	// Schema replaces the schema of the database's dialect (tests of the
	// migration mechanism).
	Schema string
	// ReadOnly opens a store only to read it (another install's archive,
	// a backup): nothing is migrated or recorded, so it must be at this
	// binary's schema version, and a file that does not exist is an error
	// rather than a new store.
	ReadOnly bool
}

func (o Options) withDefaults() Options {
	if o.Readers <= 0 {
		o.Readers = 4
	}
	if o.BusyTimeout <= 0 {
		o.BusyTimeout = 5 * time.Second
	}
	return o
}

// Store is the open database.
type Store struct {
	path     string  // the file, or the server's URL without its password
	dialect  dialect // sqliteDialect or postgresDialect
	w        *sql.DB // SQLite: exactly one connection; every write goes here
	r        *sql.DB // SQLite: query_only readers (PostgreSQL: both are one pool)
	schema   int     // user_version after migration
	readOnly bool    // opened read-only: every write fails as unavailable
	// walPending is what a read-only open found in the -wal file beyond
	// the main file (WALPending).
	walPending int
	// busy is the SQLite writer's busy_timeout; lockHeld is set once a
	// write waited that long for another process's write lock in vain,
	// and cleared by the next write that gets the lock: meanwhile writes
	// try the lock without waiting and answer at once, instead of each
	// queueing busy_timeout behind the last on the one writer connection.
	busy     time.Duration
	lockHeld atomic.Bool
	// writeLock is the advisory lock key of this store's write transactions
	// on PostgreSQL: one per schema, so stores sharing a server (a test's
	// schema each) do not wait on each other.
	writeLock int64
	market    string // MarketDemo, MarketLive, or "" (see Market)
	stmts     stmtCache
}

// Every connection gets these: the pragmas are per connection (except
// journal_mode, which is persistent), so they belong in the DSN, not in an
// Exec that would reach one pooled connection only.
func dsn(path string, busy time.Duration, extra ...string) string {
	params := []string{
		fmt.Sprintf("_pragma=busy_timeout(%d)", busy.Milliseconds()),
		"_pragma=foreign_keys(1)",
		"_pragma=synchronous(NORMAL)",
	}
	sep := "?"
	if strings.Contains(path, "?") { // a file: URI with its own parameters
		sep = "&"
	}
	return path + sep + strings.Join(append(params, extra...), "&")
}

// Open opens the store at target, a database file (created if needed) or
// a PostgreSQL URL (postgres://...), applies the pending migrations of its
// dialect's schema, and returns the store.
func Open(ctx context.Context, target string, opt Options) (*Store, error) {
	opt = opt.withDefaults()
	schema := opt.SQLiteSchema
	if IsPostgres(target) {
		schema = postgresSchema
	}
	if opt.Schema != "" {
		schema = opt.Schema
	}
	if schema == "" {
		return nil, errors.New("db: no schema for a SQLite store: Options.SQLiteSchema must hold schema.sql (package main embeds it)")
	}
	migrations, err := parseSchema(schema)
	if err != nil {
		return nil, err
	}
	if IsPostgres(target) {
		return openPostgres(ctx, target, migrations, opt)
	}
	path := target
	if path == "" || strings.ContainsAny(path, "?#") || strings.HasPrefix(path, ":memory:") {
		// A query string in the path would be read as driver options, and
		// ":memory:" gives each pooled connection its own empty database.
		return nil, fmt.Errorf("db: invalid database path %q", path)
	}
	access := probeAccess(path)
	if opt.ReadOnly && access == readWrite {
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("db: open %s to read it: %w", path, err)
		}
		access = readOnlyFile
	}
	if access != readWrite {
		return openReadOnly(ctx, path, migrations, opt, access)
	}
	w, err := sql.Open("sqlite", dsn(path, opt.BusyTimeout, "_pragma=journal_mode(WAL)", "_txlock=immediate"))
	if err != nil {
		return nil, fmt.Errorf("db: open %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	s := &Store{path: path, w: w, busy: opt.BusyTimeout}
	if err := pingWaiting(ctx, w, opt.BusyTimeout); err != nil {
		w.Close()
		if isBusy(err) {
			// Not even a read: the holder has the file to itself
			// (locking_mode=EXCLUSIVE, or a rollback-journal writer).
			return nil, fmt.Errorf("db: open %w, which keeps even readers out: wait for it to finish or stop it, then start again",
				lockedBy(path, err))
		}
		return nil, fmt.Errorf("db: open %s: %w", path, describeOpenError(err))
	}
	if s.schema, err = migrate(ctx, w, migrations); err != nil {
		w.Close()
		if isBusy(err) {
			return nil, fmt.Errorf("db: %w, and the file needs its schema migrated before it can be served: "+
				"wait for it to finish or stop it, then start again (%v)", lockedBy(path, err), err)
		}
		return nil, err
	}
	if err := s.claimMarket(ctx, opt.Market); err != nil {
		w.Close()
		if isBusy(err) {
			return nil, fmt.Errorf("db: %w, and the file must record the market it holds before it can be served: "+
				"wait for it to finish or stop it, then start again", lockedBy(path, err))
		}
		return nil, err
	}
	r, err := sql.Open("sqlite", dsn(path, opt.BusyTimeout, "_pragma=query_only(1)"))
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("db: open readers %s: %w", path, err)
	}
	r.SetMaxOpenConns(opt.Readers)
	r.SetMaxIdleConns(opt.Readers)
	s.r = r
	return s, nil
}

func describeOpenError(err error) error {
	if errors.Is(err, os.ErrPermission) {
		return fmt.Errorf("permission denied: %w", err)
	}
	return err
}

// Close checkpoints the WAL into the main file and closes both pools. Call
// it only after every reader and writer has stopped.
func (s *Store) Close() error {
	s.closeStmts()
	if s.dialect == postgresDialect {
		return s.w.Close()
	}
	var errs []error
	if s.r != nil {
		errs = append(errs, s.r.Close())
	}
	if s.readOnly {
		return errors.Join(append(errs, s.w.Close())...)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// TRUNCATE leaves a zero-length -wal file, so the .db file alone is a
	// complete copy once the server has stopped.
	if _, err := s.w.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		errs = append(errs, fmt.Errorf("db: checkpoint: %w", err))
	}
	errs = append(errs, s.w.Close())
	return errors.Join(errs...)
}

// Path is the store's file, or its server's URL without the password.
func (s *Store) Path() string { return s.path }

// ReadOnly reports a store opened on a file this process may not write.
func (s *Store) ReadOnly() bool { return s.readOnly }

// SchemaVersion is the migration the database is at.
func (s *Store) SchemaVersion() int { return s.schema }

// write runs fn in one IMMEDIATE transaction on the writer connection (on
// PostgreSQL, one holding the store's write lock, so writers take turns as
// SQLite's do); any error (or panic) rolls everything back.
func (s *Store) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return s.writeTxn(ctx, func(t *txn) error { return fn(t.Tx) })
}

// txn is a write transaction with the connection it runs on, for the
// statements database/sql has no form of (PostgreSQL's COPY).
type txn struct {
	*sql.Tx
	conn    *sql.Conn
	dialect dialect
}

// writeTxn is write for work that needs the transaction's connection.
func (s *Store) writeTxn(ctx context.Context, fn func(t *txn) error) error {
	conn, err := s.w.Conn(ctx)
	if err != nil {
		return classify(err, "begin")
	}
	defer conn.Close()
	tx, err := s.begin(ctx, conn)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if s.dialect == postgresDialect {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(?)`, s.writeLock); err != nil {
			return classify(err, "take the write lock")
		}
	}
	if err := fn(&txn{Tx: tx, conn: conn, dialect: s.dialect}); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return classify(err, "commit")
	}
	return nil
}

// pingWaiting opens the writer's first connection, waiting up to busy
// while another process holds the file: its pragmas (journal_mode=WAL on a
// new file above all) take a lock SQLite does not wait for through
// busy_timeout, so instances started together on a new store would
// otherwise refuse to start (TestConcurrentOpensMigrateOnce saw it under
// -race).
func pingWaiting(ctx context.Context, w *sql.DB, busy time.Duration) error {
	deadline := time.Now().Add(busy)
	for wait := 5 * time.Millisecond; ; wait = min(2*wait, 200*time.Millisecond) {
		err := w.PingContext(ctx)
		if err == nil || !isBusy(err) || time.Now().Add(wait).After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
	}
}
