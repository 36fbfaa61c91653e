package db

import (
	"context"
	"database/sql"
	"fmt"

	"mdqs/internal/checkout"
	"mdqs/internal/market"
)

// ReaderExec lets tests prove the reader pool refuses writes.
func (s *Store) ReaderExec(ctx context.Context, q string) error {
	_, err := s.r.ExecContext(ctx, q)
	return err
}

// ReaderPragma reads a pragma through the reader pool.
func (s *Store) ReaderPragma(ctx context.Context, name string) (int, error) {
	var v int
	err := s.r.QueryRowContext(ctx, "PRAGMA "+name).Scan(&v)
	return v, err
}

// OpenReadOnly opens path the way Open does when the file (or, with
// folder, its folder) is not writable: tests run as root, for whom every
// file is writable, so the permission probe cannot be made to say so.
// A schema "" is the built-in one.
func OpenReadOnly(ctx context.Context, path, schema string, folder bool) (*Store, error) {
	if schema == "" {
		var err error
		if schema, err = checkout.SQLiteSchema(); err != nil {
			return nil, err
		}
	}
	migrations, err := parseSchema(schema)
	if err != nil {
		return nil, err
	}
	a := readOnlyFile
	if folder {
		a = readOnlyFolder
	}
	return openReadOnly(ctx, path, migrations, Options{}, a)
}

// WriterExec runs a statement through the writer: tests make a trigger
// that fails a transaction at its end, the way a full disk or a lost
// connection would, in the store's own dialect.
func (s *Store) WriterExec(ctx context.Context, q string) error {
	_, err := s.w.ExecContext(ctx, q)
	return err
}

// IsPostgresStore reports the store's dialect, for a test's own SQL.
func (s *Store) IsPostgresStore() bool { return s.dialect == postgresDialect }

// QueryInt reads one number through the writer, for a test's own SQL.
func (s *Store) QueryInt(ctx context.Context, q string) (int64, error) {
	var n int64
	err := s.w.QueryRowContext(ctx, q).Scan(&n)
	return n, err
}

// ExplainBars is the planner's account of Bars' statement for q, one
// line per plan node, in the store's own dialect. On PostgreSQL a
// sequential scan is priced out first: a test's table is so small that
// the planner would rightly scan it, and the question is whether the
// index can serve the range at all.
func (s *Store) ExplainBars(ctx context.Context, q BarQuery) ([]string, error) {
	sqlText, args := barsSQL(q)
	conn, err := s.r.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	explain := "EXPLAIN QUERY PLAN " + sqlText
	if s.dialect == postgresDialect {
		if _, err := conn.ExecContext(ctx, "SET enable_seqscan = off"); err != nil {
			return nil, err
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), "RESET enable_seqscan")
		explain = "EXPLAIN " + sqlText
	}
	rows, err := conn.QueryContext(ctx, explain, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var plan []string
	for rows.Next() {
		cells := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range cells {
			ptrs[i] = &cells[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		plan = append(plan, fmt.Sprint(cells[len(cells)-1])) // SQLite: detail; PostgreSQL: QUERY PLAN
	}
	return plan, rows.Err()
}

// TableBytes is the bytes a table takes with its indexes: SQLite's pages
// of them (dbstat), PostgreSQL's pg_total_relation_size (TOAST included),
// for the size benchmarks.
func (s *Store) TableBytes(ctx context.Context, table string) (int64, error) {
	var size sql.NullInt64
	q := `SELECT sum(pgsize) FROM dbstat WHERE name IN (SELECT name FROM sqlite_master WHERE tbl_name = ?)`
	if s.dialect == postgresDialect {
		q = `SELECT pg_total_relation_size(CAST(? AS regclass))`
	}
	err := s.r.QueryRowContext(ctx, q, table).Scan(&size)
	return size.Int64, err
}

// TableSpace is how SQLite's pages of a table and its indexes are spent
// (dbstat): the bytes of the rows, of their cells' headers and pointers,
// and unused.
func (s *Store) TableSpace(ctx context.Context, table string) (payload, overhead, unused int64, err error) {
	err = s.r.QueryRowContext(ctx, `SELECT sum(payload), sum(pgsize - payload - unused), sum(unused) FROM dbstat
		WHERE name IN (SELECT name FROM sqlite_master WHERE tbl_name = ?)`, table).Scan(&payload, &overhead, &unused)
	return payload, overhead, unused, err
}

// IngestBarRows stores batches as rows of bars whatever their frequency:
// intraday bars as the store kept them before schema version 20 (its
// migration's tests, and the baseline the packed store is measured
// against).
func (s *Store) IngestBarRows(ctx context.Context, batches []BarBatch) (IngestCounts, error) {
	var c IngestCounts
	err := s.writeTxn(ctx, func(t *txn) (err error) {
		c, err = ingestRows(ctx, t, batches)
		return err
	})
	return c, err
}

// BarRows reads a series from rows of bars whatever its frequency.
func (s *Store) BarRows(ctx context.Context, q BarQuery) ([]market.Bar, error) {
	return s.rowBars(ctx, q)
}

// SetSchemaVersion sets the version the store says its schema is at, so
// that the next Open migrates from there, after running undo (from
// dbtest.UndoAfter: what the later versions made, dropped).
func (s *Store) SetSchemaVersion(ctx context.Context, v int, undo []string) error {
	for _, q := range undo {
		if _, err := s.w.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	if s.dialect == postgresDialect {
		_, err := s.w.ExecContext(ctx, `DELETE FROM mdqs_schema WHERE version > ?`, v)
		return err
	}
	_, err := s.w.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", v))
	return err
}

// MinuteBarsAtBy is MinuteBarsAt read one way whatever the count: one scan
// of the day's records, or a primary-key lookup a code.
func (s *Store) MinuteBarsAtBy(ctx context.Context, day market.Day, ts int64, codes []market.Code, scan bool) ([]MinuteAt, error) {
	return s.minuteBarsAt(ctx, day, ts, codes, scan)
}

// ReadSchemaVersion is the version the database records now, read again.
func (s *Store) ReadSchemaVersion(ctx context.Context) (int, error) {
	q := "PRAGMA user_version"
	if s.dialect == postgresDialect {
		q = `SELECT coalesce(max(version), 0) FROM mdqs_schema`
	}
	var v int
	err := s.w.QueryRowContext(ctx, q).Scan(&v)
	return v, err
}
