package db

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"mdqs/internal/config"
	"mdqs/internal/market"
)

// The store's SQL is written once, with SQLite's ? placeholders, in the
// SQL both engines speak (ON CONFLICT, RETURNING, lower(x) LIKE, EXISTS);
// what differs (the schema, the pragmas, full-text search, bulk loading)
// stays in the few functions that branch on the dialect. On PostgreSQL a
// connection wrapper turns ? into $1, $2 ... before pgx sees a statement.

type dialect uint8

const (
	sqliteDialect dialect = iota
	postgresDialect
)

// IsPostgres reports a PostgreSQL URL (postgres:// or postgresql://) as
// opposed to a database file.
func IsPostgres(target string) bool {
	return strings.HasPrefix(target, "postgres://") || strings.HasPrefix(target, "postgresql://")
}

// Redact is the store's target as messages and logs may show it: a
// PostgreSQL URL without its password, a file path as it is.
func Redact(target string) string {
	if !IsPostgres(target) {
		return target
	}
	return redact(target)
}

// redact is a PostgreSQL URL without its password (in the user part or
// a password= parameter).
func redact(target string) string { return config.RedactSecrets(target) }

// writeLockKey serialises the store's write transactions on PostgreSQL, as
// SQLite's single writer does: the event cursor, the token cap and the
// idempotent imports all read-then-write inside one transaction.
// (pg_advisory_xact_lock, released at commit or rollback.)
const writeLockKey = 0x6d6471735f7772 // "mdqs_wr"

// migrateLockKey makes one of several instances starting at once apply
// the migrations while the others wait.
const migrateLockKey = 0x6d6471735f6d67 // "mdqs_mg"

// openPostgres opens the store on a PostgreSQL server: one pool for reads
// and writes (the server does the locking SQLite's two pools stand in for).
func openPostgres(ctx context.Context, target string, migrations []migration, opt Options) (*Store, error) {
	cfg, err := pgx.ParseConfig(target)
	if err != nil {
		return nil, fmt.Errorf("db: %s: %v", redact(target), err)
	}
	if opt.ReadOnly {
		// The server refuses writes, so a store opened to be read (another
		// install's archive) cannot be written by mistake.
		cfg.RuntimeParams["default_transaction_read_only"] = "on"
	}
	pool := sql.OpenDB(rebindConnector{stdlib.GetConnector(*cfg)})
	pool.SetMaxOpenConns(opt.Readers + 4)
	pool.SetMaxIdleConns(opt.Readers + 4)
	s := &Store{path: redact(target), dialect: postgresDialect, w: pool, r: pool}
	if err := pool.PingContext(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("db: open %s: %w", s.path, err)
	}
	var schema string
	if err := pool.QueryRowContext(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		pool.Close()
		return nil, fmt.Errorf("db: open %s: %w", s.path, err)
	}
	s.writeLock = lockKey(writeLockKey, schema)
	if opt.ReadOnly {
		s.readOnly = true
		err = pool.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM mdqs_schema`).Scan(&s.schema)
		if latest := migrations[len(migrations)-1].version; err == nil && s.schema != latest {
			err = fmt.Errorf("db: %s is at schema version %d and this binary reads %d: open it once with this mdqs (mdqs serve -db URL) to migrate it", s.path, s.schema, latest)
		}
	} else {
		s.schema, err = migratePostgres(ctx, pool, migrations, lockKey(migrateLockKey, schema))
	}
	if err != nil {
		pool.Close()
		return nil, err
	}
	if err := s.claimMarket(ctx, opt.Market); err != nil {
		pool.Close()
		return nil, err
	}
	return s, nil
}

// migratePostgres applies the pending migrations, each in one transaction
// with its version, under an advisory lock held on one connection.
func migratePostgres(ctx context.Context, pool *sql.DB, migrations []migration, lock int64) (int, error) {
	conn, err := pool.Conn(ctx)
	if err != nil {
		return 0, fmt.Errorf("db: migrate: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, lock); err != nil {
		return 0, fmt.Errorf("db: migrate: lock: %w", err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, lock)
	if _, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS mdqs_schema (version BIGINT NOT NULL)`); err != nil {
		return 0, fmt.Errorf("db: migrate: %w", err)
	}
	var current int
	if err := conn.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM mdqs_schema`).Scan(&current); err != nil {
		return 0, fmt.Errorf("db: read schema version: %w", err)
	}
	latest := migrations[len(migrations)-1].version
	if current > latest {
		return 0, fmt.Errorf("db: the database is at schema version %d, newer than this binary's %d; use a newer mdqs", current, latest)
	}
	for _, m := range migrations[current:] {
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			return current, fmt.Errorf("db: migrate to %d: %w", m.version, err)
		}
		if _, err := tx.ExecContext(ctx, m.sql); err != nil {
			tx.Rollback()
			return current, fmt.Errorf("db: migrate to %d: %w", m.version, err)
		}
		if err := runStep(ctx, tx, m.step); err != nil {
			tx.Rollback()
			return current, fmt.Errorf("db: migrate to %d: %w", m.version, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO mdqs_schema(version) VALUES ($1)`, m.version); err != nil {
			tx.Rollback()
			return current, fmt.Errorf("db: migrate to %d: %w", m.version, err)
		}
		if err := tx.Commit(); err != nil {
			return current, fmt.Errorf("db: migrate to %d: %w", m.version, err)
		}
		current = m.version
	}
	return current, nil
}

// lockKey is an advisory lock key of one schema's store.
func lockKey(base int64, schema string) int64 {
	h := fnv.New64a()
	h.Write([]byte(schema))
	return base ^ int64(h.Sum64()>>16)
}

// rebindConnector hands out pgx connections that take ? placeholders.
type rebindConnector struct{ driver.Connector }

func (c rebindConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &rebindConn{conn.(*stdlib.Conn)}, nil
}

// rebindConn is a pgx connection whose statements are rebound; every other
// method (transactions, named values, session reset) is pgx's own.
type rebindConn struct{ *stdlib.Conn }

func (c *rebindConn) Prepare(query string) (driver.Stmt, error) {
	return c.Conn.Prepare(rebind(query))
}

func (c *rebindConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.Conn.PrepareContext(ctx, rebind(query))
}

func (c *rebindConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	return c.Conn.ExecContext(ctx, rebind(query), args)
}

func (c *rebindConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	return c.Conn.QueryContext(ctx, rebind(query), args)
}

// rebound caches rebind: the store's statements are a fixed set.
var rebound sync.Map

// rebind turns each ? outside a quoted string or identifier into $n.
func rebind(q string) string {
	if v, ok := rebound.Load(q); ok {
		return v.(string)
	}
	if !strings.Contains(q, "?") {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 16)
	n := 0
	var quote byte
	for i := 0; i < len(q); i++ {
		ch := q[i]
		switch {
		case quote != 0:
			if ch == quote {
				quote = 0
			}
		case ch == '\'' || ch == '"':
			quote = ch
		case ch == '?':
			n++
			b.WriteByte('$')
			b.WriteString(fmt.Sprint(n))
			continue
		}
		b.WriteByte(ch)
	}
	out := b.String()
	rebound.Store(q, out)
	return out
}

// pgConn runs fn with the pgx connection behind a database/sql connection
// (COPY has no database/sql form).
func pgConn(c *sql.Conn, fn func(*pgx.Conn) error) error {
	return c.Raw(func(dc any) error {
		rc, ok := dc.(*rebindConn)
		if !ok {
			return errors.New("db: not a PostgreSQL connection")
		}
		return fn(rc.Conn.Conn())
	})
}

// classifyPostgres maps a PostgreSQL error by SQLSTATE class.
func classifyPostgres(err error, op string) (error, bool) {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		var ce *pgconn.ConnectError
		if errors.As(err, &ce) {
			return market.Wrap(market.KindUnavailable, err, "%s: database server unreachable", op), true
		}
		return nil, false
	}
	switch {
	case pe.Code == "23505" || pe.Code == "23503" || pe.Code == "23514" || pe.Code == "23502":
		return market.Wrap(market.KindConflict, err, "%s", op), true
	case pe.Code == "53100": // disk_full
		return market.Wrap(market.KindUnavailable, err, "%s: disk full", op), true
	case pe.Code == "25006": // read_only_sql_transaction (a standby)
		return market.Wrap(market.KindUnavailable, err, "%s: database not writable", op), true
	case strings.HasPrefix(pe.Code, "08"), strings.HasPrefix(pe.Code, "53"), strings.HasPrefix(pe.Code, "57"),
		pe.Code == "40001", pe.Code == "40P01": // connection, resources, shutdown, serialization, deadlock
		return market.Wrap(market.KindUnavailable, err, "%s: database busy or unreachable", op), true
	}
	return nil, false
}
