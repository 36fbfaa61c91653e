package main

import (
	"context"
	"database/sql"
	"fmt"

	"mdqs/db"
	"mdqs/internal/market"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, for a postgres:// -db
)

// floor is the plain read the kline benchmark compares the server with:
// one prepared statement on a pool of its own, rows scanned into locals.
type floor struct {
	pool *sql.DB
	stmt *sql.Stmt
}

func openFloor(ctx context.Context, path string) (*floor, error) {
	driver, dsn, ph := "sqlite", path+"?_pragma=query_only(1)", [4]string{"?", "?", "?", "?"}
	if db.IsPostgres(path) {
		driver, dsn, ph = "pgx", path, [4]string{"$1", "$2", "$3", "$4"}
	}
	pool, err := sql.Open(driver, dsn)
	if err != nil {
		return nil, err
	}
	stmt, err := pool.PrepareContext(ctx, fmt.Sprintf(`SELECT ts, trade_date, open, high, low, close, volume, amount, turnover_rate, large_order_net
		FROM bars WHERE code = %s AND freq = %s AND ts >= %s AND ts <= %s ORDER BY ts`, ph[0], ph[1], ph[2], ph[3]))
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("floor: %w", err)
	}
	return &floor{pool: pool, stmt: stmt}, nil
}

// read runs the statement and scans every row; it returns the row count.
func (f *floor) read(ctx context.Context, code market.Code, freq market.Freq, from, to int64) (int, error) {
	rows, err := f.stmt.QueryContext(ctx, code.String(), db.FreqMinutes(freq), from, to)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var ts, day, o, h, l, c, vol int64
		var amount float64
		var turnover, large sql.NullFloat64
		if err := rows.Scan(&ts, &day, &o, &h, &l, &c, &vol, &amount, &turnover, &large); err != nil {
			return n, err
		}
		n++
	}
	return n, rows.Err()
}

func (f *floor) close() {
	f.stmt.Close()
	f.pool.Close()
}
