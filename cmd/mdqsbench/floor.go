package main

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"mdqs/db"
	"mdqs/internal/market"
	"mdqs/internal/minutepack"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, for a postgres:// -db
)

// floor is the plain read the kline benchmark compares the server with:
// one prepared statement on a pool of its own, rows scanned into locals.
// Intraday bars are packed days (minute_days): their floor reads the
// days' records and decodes them, the least any reader of them does.
type floor struct {
	pool          *sql.DB
	stmt, minutes *sql.Stmt
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
	f := &floor{pool: pool}
	if f.stmt, err = pool.PrepareContext(ctx, fmt.Sprintf(`SELECT ts, trade_date, open, high, low, close, volume, amount, turnover_rate, large_order_net
		FROM bars WHERE code = %s AND freq = %s AND ts >= %s AND ts <= %s ORDER BY ts`, ph[0], ph[1], ph[2], ph[3])); err == nil {
		f.minutes, err = pool.PrepareContext(ctx, fmt.Sprintf(`SELECT data FROM minute_days
			WHERE code = %s AND freq = %s AND day >= %s AND day <= %s ORDER BY day`, ph[0], ph[1], ph[2], ph[3]))
	}
	if err != nil {
		f.close()
		return nil, fmt.Errorf("floor: %w", err)
	}
	return f, nil
}

// read runs the statement and scans every row; it returns the bar count.
func (f *floor) read(ctx context.Context, code market.Code, freq market.Freq, from, to int64) (int, error) {
	if freq != market.Daily {
		return f.readMinutes(ctx, code, freq, from, to)
	}
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

// readMinutes reads and decodes the days from..to fall on, counting the
// bars inside them.
func (f *floor) readMinutes(ctx context.Context, code market.Code, freq market.Freq, from, to int64) (int, error) {
	first, last := market.DayOf(time.Unix(from, 0)), market.DayOf(time.Unix(to, 0))
	rows, err := f.minutes.QueryContext(ctx, code.String(), db.FreqMinutes(freq), int(first), int(last))
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var data []byte
		if err := rows.Scan(&data); err != nil {
			return n, err
		}
		bars, err := minutepack.Decode(data)
		if err != nil {
			return n, err
		}
		for _, b := range bars {
			if b.TS >= from && b.TS <= to {
				n++
			}
		}
	}
	return n, rows.Err()
}

func (f *floor) close() {
	for _, st := range []*sql.Stmt{f.stmt, f.minutes} {
		if st != nil {
			st.Close()
		}
	}
	f.pool.Close()
}
