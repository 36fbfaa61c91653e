package db

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
)

// CopyOptions tune CopyTo.
type CopyOptions struct {
	// Progress, when set, is told each chunk's advance: the rows copied
	// so far by this run, of all the source's rows not yet copied.
	Progress func(table string, copied, total int64)
	// Chunk is how many rows one transaction carries (0: 50,000).
	Chunk int
}

// TableCount is one table's rows in the source and in the target.
type TableCount struct {
	Table          string
	Source, Target int64
}

// copyChunk is how many rows one transaction of a copy carries unless told:
// large enough that a commit costs nothing beside its rows, small enough
// that an interruption loses seconds of work.
const copyChunk = 50_000

// copyState records an unfinished copy in the target: per table, the key
// of the last row copied. It is dropped once the copy is verified.
const copyState = "mdqs_copy_state"

// copyOrder is every table of the store, parents before children (the
// PostgreSQL schema's foreign keys need them so).
var copyOrder = []string{"clients", "tokens", "counters", "snapshot_runs", "sector_snapshots", "daily_rankings", "daily_stats", "exchange_holidays",
	"movement_events", "bars", "bar_coverage", "stocks", "daily_signals", "chip_metrics", "hot_rank", "info_imports",
	"news", "news_codes", "news_fts", "financial_reports", "blocks", "block_members", "tdx_files", "screener_jobs",
	"screener_results", "store_meta", "movement_timelines", "corporate_actions",
	"alerts", "alert_fires", "alert_events", "nonces", "listing_days", "security_spans", "security_days", "delistings", "name_changes", "minute_days", "archive_days",
	"index_observations", "index_member_spans",
	"lhb_days", "lhb_listings", "lhb_seats", "published_pool_days", "published_pool_rows",
	"alert_deliveries", "alert_delivery_attempts"}

// CopyTo copies every table of a SQLite store into a PostgreSQL store at
// the same schema version, so a trader who outgrows one PC keeps history,
// clients and tokens. The source is read in one read transaction (one
// consistent state of it even while a server writes); rows go with COPY
// in chunks of one transaction each, which also records how far the table
// has come, so a copy interrupted (Ctrl-C, a lost connection) goes on where
// it stopped when run again and copies nothing twice. It ends by counting
// every table's rows on both sides: a difference is an error.
//
// The target must be new: a store that holds rows and no unfinished copy
// is refused, since merging two stores' ids would be guesswork.
func (s *Store) CopyTo(ctx context.Context, to *Store, opt CopyOptions) ([]TableCount, error) {
	if s.dialect != sqliteDialect || to.dialect != postgresDialect {
		return nil, errors.New("db: a copy goes from a SQLite file to a PostgreSQL server")
	}
	if s.schema != to.schema {
		return nil, fmt.Errorf("db: the source is at schema version %d, the target at %d: open both with this version of mdqs first", s.schema, to.schema)
	}
	if opt.Chunk <= 0 {
		opt.Chunk = copyChunk
	}
	src, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, classify(err, "read the source")
	}
	defer src.Rollback()
	tables, err := copyTables(ctx, src)
	if err != nil {
		return nil, err
	}
	resuming, err := to.claimCopyTarget(ctx, tables)
	if err != nil {
		return nil, err
	}
	totals := map[string]int64{}
	var left int64
	for _, t := range tables {
		n, err := count(ctx, src, t.name)
		if err != nil {
			return nil, err
		}
		totals[t.name] = n
		done, err := to.copied(ctx, t.name, resuming)
		if err != nil {
			return nil, err
		}
		left += max(n-done, 0)
	}
	var copied int64
	for _, t := range tables {
		n, err := copyOne(ctx, src, to, t, opt.Chunk, func(n int64) {
			if opt.Progress != nil {
				opt.Progress(t.name, copied+n, left)
			}
		})
		copied += n
		if err != nil {
			return nil, fmt.Errorf("db: copy %s: %w", t.name, err)
		}
	}
	if err := to.resetIdentities(ctx); err != nil {
		return nil, err
	}
	var counts []TableCount
	var bad []string
	for _, t := range tables {
		n, err := count(ctx, to.r, t.name)
		if err != nil {
			return nil, err
		}
		counts = append(counts, TableCount{Table: t.name, Source: totals[t.name], Target: n})
		if n != totals[t.name] {
			bad = append(bad, fmt.Sprintf("%s: %d rows in the source, %d in the target", t.name, totals[t.name], n))
		}
	}
	if len(bad) > 0 {
		return counts, fmt.Errorf("db: the copy does not match the source (was the source written to between runs?): %s", strings.Join(bad, "; "))
	}
	if _, err := to.w.ExecContext(ctx, `DROP TABLE `+copyState); err != nil {
		return counts, classify(err, "finish the copy")
	}
	return counts, nil
}

// copyTable is a table's columns and the key it is copied in the order of.
type copyTable struct {
	name   string
	cols   []string
	key    []string // its primary key (rowid for the full-text index)
	upsert bool     // rows the target holds from its creation
}

// copyTables is copyOrder with each table's columns and key from SQLite's
// own catalogue; a table the source holds and copyOrder does not name is
// an error, not a table left behind.
func copyTables(ctx context.Context, src *sql.Tx) ([]copyTable, error) {
	rows, err := src.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table'
		AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'news_fts_%'`)
	if err != nil {
		return nil, classify(err, "read the source's tables")
	}
	var unknown []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return nil, classify(err, "read the source's tables")
		}
		if !slices.Contains(copyOrder, name) {
			unknown = append(unknown, name)
		}
	}
	rows.Close()
	if len(unknown) > 0 {
		return nil, fmt.Errorf("db: the source has tables this copy does not know: %s", strings.Join(unknown, ", "))
	}
	var out []copyTable
	for _, name := range copyOrder {
		t := copyTable{name: name, upsert: name == "counters" || name == "store_meta"}
		if name == "news_fts" {
			t.cols, t.key = []string{"rowid", "title", "body"}, []string{"rowid"}
			out = append(out, t)
			continue
		}
		if t.cols, t.key, err = tableColumns(ctx, src, name); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// tableColumns is a SQLite table's columns and primary key, in order.
func tableColumns(ctx context.Context, src *sql.Tx, name string) (cols, key []string, err error) {
	rows, err := src.QueryContext(ctx, `SELECT name, pk FROM pragma_table_info(?) ORDER BY cid`, name)
	if err != nil {
		return nil, nil, classify(err, "read the source's tables")
	}
	defer rows.Close()
	pk := map[int]string{}
	for rows.Next() {
		var col string
		var at int
		if err := rows.Scan(&col, &at); err != nil {
			return nil, nil, classify(err, "read the source's tables")
		}
		cols = append(cols, col)
		if at > 0 {
			pk[at] = col
		}
	}
	if len(cols) == 0 {
		return nil, nil, fmt.Errorf("db: the source has no table %s", name)
	}
	for i := 1; i <= len(pk); i++ {
		key = append(key, pk[i])
	}
	return cols, key, nil
}

// claimCopyTarget checks the target is new or holds an unfinished copy
// (resuming), and makes the copy's state table.
func (s *Store) claimCopyTarget(ctx context.Context, tables []copyTable) (resuming bool, err error) {
	if err := s.w.QueryRowContext(ctx, `SELECT to_regclass(?) IS NOT NULL`, copyState).Scan(&resuming); err != nil {
		return false, classify(err, "read the target")
	}
	if resuming {
		return true, nil
	}
	for _, t := range tables {
		if t.upsert {
			continue
		}
		var held bool
		if err := s.w.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM `+t.name+`)`).Scan(&held); err != nil {
			return false, classify(err, "read the target")
		}
		if held {
			return false, fmt.Errorf("db: the target already holds rows of %s: copy into a new database (or schema), not one in use", t.name)
		}
	}
	_, err = s.w.ExecContext(ctx, `CREATE TABLE `+copyState+` (tbl TEXT PRIMARY KEY, last_key TEXT NOT NULL, done BIGINT NOT NULL)`)
	return false, classify(err, "begin the copy")
}

// copied is how many rows of a table an earlier run copied.
func (s *Store) copied(ctx context.Context, table string, resuming bool) (int64, error) {
	if !resuming {
		return 0, nil
	}
	_, done, err := s.copyProgress(ctx, table)
	return done, err
}

// copyProgress is where an earlier run left a table: the last key copied
// (nil: none) and the rows.
func (s *Store) copyProgress(ctx context.Context, table string) ([]any, int64, error) {
	var last string
	var done int64
	err := s.w.QueryRowContext(ctx, `SELECT last_key, done FROM `+copyState+` WHERE tbl = ?`, table).Scan(&last, &done)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, classify(err, "read the copy's state")
	}
	var after []any
	if err := json.Unmarshal([]byte(last), &after); err != nil {
		return nil, 0, fmt.Errorf("the copy's state of %s: %w", table, err)
	}
	return after, done, nil
}

// copyOne copies one table in key order, chunk by chunk, from where an
// earlier run stopped; it returns the rows copied now.
func copyOne(ctx context.Context, src *sql.Tx, to *Store, t copyTable, chunk int, progress func(int64)) (int64, error) {
	after, done, err := to.copyProgress(ctx, t.name)
	if err != nil {
		return 0, err
	}
	var copied int64
	for {
		rows, key, err := readChunk(ctx, src, t, after, chunk)
		if err != nil || len(rows) == 0 {
			return copied, err
		}
		keyJSON, err := json.Marshal(key)
		if err != nil {
			return copied, err
		}
		err = to.writeTxn(ctx, func(tx *txn) error {
			if err := tx.insertRows(ctx, t, rows); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO `+copyState+`(tbl, last_key, done) VALUES (?, ?, ?)
				ON CONFLICT (tbl) DO UPDATE SET last_key = excluded.last_key, done = excluded.done`,
				t.name, string(keyJSON), done+copied+int64(len(rows)))
			return classify(err, "record the copy's state")
		})
		if err != nil {
			return copied, err
		}
		copied += int64(len(rows))
		after = key
		progress(copied)
	}
}

// readChunk reads the next rows of a table after key (nil: from the
// start), and the last row's key.
func readChunk(ctx context.Context, src *sql.Tx, t copyTable, after []any, chunk int) ([][]any, []any, error) {
	keys := strings.Join(t.key, ", ")
	q := `SELECT ` + strings.Join(t.cols, ", ") + ` FROM ` + t.name
	if after != nil {
		q += ` WHERE (` + keys + `) > (` + strings.TrimSuffix(strings.Repeat("?, ", len(t.key)), ", ") + `)`
	}
	q += ` ORDER BY ` + keys + fmt.Sprintf(` LIMIT %d`, chunk)
	rows, err := src.QueryContext(ctx, q, after...)
	if err != nil {
		return nil, nil, classify(err, "read "+t.name)
	}
	defer rows.Close()
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(t.cols))
		ptrs := make([]any, len(t.cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, nil, classify(err, "read "+t.name)
		}
		out = append(out, vals)
	}
	if err := rows.Err(); err != nil || len(out) == 0 {
		return out, nil, classify(err, "read "+t.name)
	}
	last := out[len(out)-1]
	key := make([]any, len(t.key))
	for i, k := range t.key {
		key[i] = last[slices.Index(t.cols, k)]
	}
	return out, key, nil
}

// insertRows writes rows of a table: COPY, or an upsert for a table whose
// rows the target made at its creation.
func (t *txn) insertRows(ctx context.Context, tbl copyTable, rows [][]any) error {
	if tbl.upsert {
		set := make([]string, 0, len(tbl.cols))
		for _, c := range tbl.cols {
			set = append(set, c+" = excluded."+c)
		}
		q := `INSERT INTO ` + tbl.name + `(` + strings.Join(tbl.cols, ", ") + `) VALUES (` +
			strings.TrimSuffix(strings.Repeat("?, ", len(tbl.cols)), ", ") + `) ON CONFLICT (` + strings.Join(tbl.key, ", ") +
			`) DO UPDATE SET ` + strings.Join(set, ", ")
		for _, r := range rows {
			if _, err := t.ExecContext(ctx, q, r...); err != nil {
				return classify(err, "copy "+tbl.name)
			}
		}
		return nil
	}
	err := pgConn(t.conn, func(c *pgx.Conn) error {
		_, err := c.CopyFrom(ctx, pgx.Identifier{tbl.name}, tbl.cols, pgx.CopyFromRows(rows))
		return err
	})
	return classify(err, "copy "+tbl.name)
}

// resetIdentities moves every identity column past the copied ids (COPY
// gives them, so the sequences never moved), so the next row inserted
// gets a new one.
func (s *Store) resetIdentities(ctx context.Context) error {
	rows, err := s.w.QueryContext(ctx, `SELECT table_name, column_name FROM information_schema.columns
		WHERE table_schema = current_schema() AND is_identity = 'YES'`)
	if err != nil {
		return classify(err, "read the target's identities")
	}
	var cols [][2]string
	for rows.Next() {
		var c [2]string
		if err := rows.Scan(&c[0], &c[1]); err != nil {
			rows.Close()
			return classify(err, "read the target's identities")
		}
		cols = append(cols, c)
	}
	rows.Close()
	for _, c := range cols {
		if _, err := s.w.ExecContext(ctx, `SELECT setval(pg_get_serial_sequence(?, ?), coalesce(max(`+c[1]+`), 0) + 1, false) FROM `+c[0],
			c[0], c[1]); err != nil {
			return classify(err, "reset the ids of "+c[0])
		}
	}
	return nil
}

// querier is what count reads through: a pool or a transaction.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// count is a table's rows.
func count(ctx context.Context, q querier, table string) (int64, error) {
	var n int64
	err := q.QueryRowContext(ctx, `SELECT count(*) FROM `+table).Scan(&n)
	return n, classify(err, "count "+table)
}
