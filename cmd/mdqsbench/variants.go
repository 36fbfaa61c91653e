package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"mdqs/db"
)

// variant is one way to batch the store's upsert.
type variant struct {
	name     string
	perStmt  int  // rows per multi-row INSERT
	perTx    int  // rows per transaction (whole codes; 1: one code per transaction, as a backfill commits)
	plain    bool // plain INSERT, no ON CONFLICT clause: what idempotence costs
	bareArgs bool // optional measures bound as float64 or nil, not as sql.NullFloat64 (a driver.Valuer) as the store does
}

// runVariants times a copy of db/bars.go's upsert (same SQL, same
// connection settings, coverage row per code, chunks per code) batched in
// other ways; the copy at the store's own batching is printed beside the
// real db.IngestBars figure above, which checks that the copy is faithful.
func runVariants(ctx context.Context, w io.Writer, dir, ddl string, batches []db.BarBatch, cliRate float64, repeat int) error {
	vs := []variant{
		{name: "1 row/stmt", perStmt: 1, perTx: 50_000},
		{name: "25 rows/stmt", perStmt: 25, perTx: 50_000},
		{name: "50 rows/stmt", perStmt: 50, perTx: 50_000},
		{name: "100 rows/stmt (store)", perStmt: 100, perTx: 50_000},
		{name: "200 rows/stmt", perStmt: 200, perTx: 50_000},
		{name: "400 rows/stmt", perStmt: 400, perTx: 50_000},
		{name: "100 rows/stmt, 1 code/tx", perStmt: 100, perTx: 1},
		{name: "100 rows/stmt, 10k rows/tx", perStmt: 100, perTx: 10_000},
		{name: "100 rows/stmt, 200k rows/tx", perStmt: 100, perTx: 200_000},
		{name: "100 rows/stmt, all in 1 tx", perStmt: 100, perTx: math.MaxInt},
		{name: "plain INSERT, 100 rows/stmt", perStmt: 100, perTx: 50_000, plain: true},
		{name: "100 rows/stmt, float64|nil args", perStmt: 100, perTx: 50_000, bareArgs: true},
	}
	rows := 0
	for _, b := range batches {
		rows += len(b.Bars)
	}
	fmt.Fprintf(w, "\nvariants: a copy of the store's upsert batched otherwise (median of %d rounds, interleaved; ratio to the faster CLI run):\n", repeat)
	times := make([][]time.Duration, len(vs))
	for range repeat {
		for i, v := range vs {
			path := filepath.Join(dir, "variant.db")
			removeDB(path)
			d, err := timeVariant(ctx, path, ddl, batches, v)
			removeDB(path)
			if err != nil {
				return fmt.Errorf("variant %s: %w", v.name, err)
			}
			times[i] = append(times[i], d)
		}
	}
	for i, v := range vs {
		d, best := median(times[i]), slices.Min(times[i])
		r := rate(rows, d)
		fmt.Fprintf(w, "  %-34s %6.2f s  %7.0f rows/s  ratio %.2f  (best round %7.0f rows/s)\n", v.name, d.Seconds(), r, r/cliRate, rate(rows, best))
	}
	return nil
}

func timeVariant(ctx context.Context, path, ddl string, batches []db.BarBatch, v variant) (time.Duration, error) {
	// db.Open's writer settings (db/db.go dsn).
	conn, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(5000)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_pragma=journal_mode(WAL)&_txlock=immediate")
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	conn.SetMaxOpenConns(1)
	if _, err := conn.ExecContext(ctx, ddl); err != nil {
		return 0, err
	}
	if _, err := conn.ExecContext(ctx, coverageDDL); err != nil {
		return 0, err
	}
	start := time.Now()
	for _, chunk := range txChunks(batches, v.perTx) {
		if err := variantTx(ctx, conn, chunk, v); err != nil {
			return 0, err
		}
	}
	if _, err := conn.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}

const coverageDDL = `CREATE TABLE bar_coverage (code TEXT NOT NULL, freq INTEGER NOT NULL, first_day INTEGER NOT NULL,
	last_day INTEGER NOT NULL, source TEXT NOT NULL, updated_at INTEGER NOT NULL, PRIMARY KEY (code, freq)) WITHOUT ROWID`

func variantTx(ctx context.Context, conn *sql.DB, batches []db.BarBatch, v variant) error {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	stmts := map[int]*sql.Stmt{}
	defer func() {
		for _, st := range stmts {
			st.Close()
		}
	}()
	args := make([]any, 0, v.perStmt*13)
	for _, b := range batches {
		code := b.Code.String()
		for start := 0; start < len(b.Bars); start += v.perStmt {
			chunk := b.Bars[start:min(start+v.perStmt, len(b.Bars))]
			st, ok := stmts[len(chunk)]
			if !ok {
				if st, err = tx.PrepareContext(ctx, variantSQL(len(chunk), v.plain)); err != nil {
					return err
				}
				stmts[len(chunk)] = st
			}
			args = args[:0]
			for _, x := range chunk {
				args = append(args, code, 1440, x.TS, int(x.Day), priceUnits(x.Open), priceUnits(x.High), priceUnits(x.Low),
					priceUnits(x.Close), x.Volume, x.Amount, optional(x.TurnoverRate, v.bareArgs), optional(x.LargeOrderNet, v.bareArgs), b.Source)
			}
			if _, err := st.ExecContext(ctx, args...); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO bar_coverage(code, freq, first_day, last_day, source, updated_at)
			VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(code, freq) DO UPDATE SET first_day = excluded.first_day,
			last_day = excluded.last_day, source = excluded.source, updated_at = excluded.updated_at`,
			code, 1440, int(b.Cover.First), int(b.Cover.Last), b.Source, time.Now().UnixMilli()); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// optional binds an optional measure: as the store does (db/nulls.go's
// sql.NullFloat64, which database/sql converts through its Valuer), or
// bare.
func optional(v float64, bare bool) any {
	known := !math.IsNaN(v) && !math.IsInf(v, 0)
	if !bare {
		return sql.NullFloat64{Float64: v, Valid: known}
	}
	if !known {
		return nil
	}
	return v
}

// variantSQL is db/bars.go's upsert text for rows rows (or the same
// INSERT without its conflict clause).
func variantSQL(rows int, plain bool) string {
	var q strings.Builder
	q.WriteString(`INSERT INTO bars(code, freq, ts, trade_date, open, high, low, close, volume, amount, turnover_rate,
		large_order_net, source) VALUES `)
	for i := range rows {
		if i > 0 {
			q.WriteByte(',')
		}
		q.WriteString("(?,?,?,?,?,?,?,?,?,?,?,?,?)")
	}
	if plain {
		return q.String()
	}
	q.WriteString(` ON CONFLICT(code, freq, ts) DO UPDATE SET trade_date = excluded.trade_date, open = excluded.open,
		high = excluded.high, low = excluded.low, close = excluded.close, volume = excluded.volume, amount = excluded.amount,
		turnover_rate = excluded.turnover_rate, large_order_net = excluded.large_order_net, source = excluded.source
		WHERE trade_date IS NOT excluded.trade_date OR open IS NOT excluded.open OR high IS NOT excluded.high
		OR low IS NOT excluded.low OR close IS NOT excluded.close OR volume IS NOT excluded.volume
		OR amount IS NOT excluded.amount OR turnover_rate IS NOT excluded.turnover_rate
		OR large_order_net IS NOT excluded.large_order_net`)
	return q.String()
}
