package dbtest

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"

	"mdqs/internal/minutepack"
)

// AsMinuteRows turns the closed SQLite store at path back into what schema
// version 19 kept: every packed minute day as rows of bars (prices in
// ten-thousandths of a yuan, an unknown measure NULL), no minute_days, the
// schema at 19. Opening it again runs version 20's migration, which a
// test can then hold to the answers the store gave before. It writes what
// the store's row writer wrote, here by hand, since that writer no longer
// writes minutes.
func AsMinuteRows(t testing.TB, path string) {
	t.Helper()
	ctx := context.Background()
	w, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatalf("dbtest: %v", err)
	}
	defer w.Close()
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		t.Fatalf("dbtest: %v", err)
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT code, freq, data, source FROM minute_days`)
	if err != nil {
		t.Fatalf("dbtest: %v", err)
	}
	type day struct {
		code, source string
		freq         int
		data         []byte
	}
	var days []day
	for rows.Next() {
		var d day
		if err := rows.Scan(&d.code, &d.freq, &d.data, &d.source); err != nil {
			t.Fatalf("dbtest: %v", err)
		}
		days = append(days, d)
	}
	rows.Close()
	price := func(v float64) int64 { return int64(math.Round(v * 10_000)) }
	optional := func(v float64) any {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		return v
	}
	for _, d := range days {
		bars, err := minutepack.Decode(d.data)
		if err != nil {
			t.Fatalf("dbtest: a stored minute day of %s: %v", d.code, err)
		}
		for _, b := range bars {
			if _, err := tx.ExecContext(ctx, `INSERT INTO bars(code, freq, ts, trade_date, open, high, low, close, volume, amount,
				turnover_rate, large_order_net, source) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				d.code, d.freq, b.TS, int64(b.Day), price(b.Open), price(b.High), price(b.Low), price(b.Close), b.Volume, b.Amount,
				optional(b.TurnoverRate), optional(b.LargeOrderNet), d.source); err != nil {
				t.Fatalf("dbtest: %v", err)
			}
		}
	}
	stmts := append([]string{`DELETE FROM minute_days`, `PRAGMA user_version = 19`}, UndoAfter(t, 19)...)
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			t.Fatalf("dbtest: %v", err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatalf("dbtest: %v", err)
	}
	if len(days) == 0 {
		t.Fatal("dbtest: no minute day to turn into rows")
	}
}

// UndoAfter are the statements that put a store of the current schema
// back to version v's shape, so that opening it again runs the later
// migrations as on a store that stayed at v: the indexes first created
// after v dropped, the columns added after v to v's tables dropped (a migration's
// ALTER TABLE ... ADD COLUMN would otherwise meet its column), and the
// tables created after v dropped (TablesAfter).
func UndoAfter(t testing.TB, v int) []string {
	t.Helper()
	schema := SQLiteSchema(t)
	at := strings.Index(schema, fmt.Sprintf("-- version %d\n", v+1))
	if at < 0 {
		return nil
	}
	later := TablesAfter(t, v)
	var out []string
	index := regexp.MustCompile(`(?m)^CREATE (?:UNIQUE )?INDEX (\w+)`)
	before := map[string]bool{}
	for _, m := range index.FindAllStringSubmatch(schema[:at], -1) {
		before[m[1]] = true
	}
	for _, m := range index.FindAllStringSubmatch(schema[at:], -1) {
		if !before[m[1]] { // one v had (and a later version rebuilt) stays: that version's migration drops it
			out = append(out, "DROP INDEX IF EXISTS "+m[1])
		}
	}
	for _, m := range regexp.MustCompile(`(?m)^ALTER TABLE (\w+) ADD COLUMN (\w+)`).FindAllStringSubmatch(schema[at:], -1) {
		if !slices.Contains(later, m[1]) {
			out = append(out, "ALTER TABLE "+m[1]+" DROP COLUMN "+m[2])
		}
	}
	for i := len(later) - 1; i >= 0; i-- { // children before the parents their foreign keys name
		out = append(out, "DROP TABLE "+later[i])
	}
	return out
}

// TablesAfter are the tables schema.sql creates after version v: what a
// test that puts a store back to v drops, as a store of v never had them.
func TablesAfter(t testing.TB, v int) []string {
	t.Helper()
	schema := SQLiteSchema(t)
	at := strings.Index(schema, fmt.Sprintf("-- version %d\n", v+1))
	if at < 0 {
		return nil
	}
	var out []string
	createTable := regexp.MustCompile(`(?m)^CREATE TABLE (\w+)`)
	for _, m := range createTable.FindAllStringSubmatch(schema[at:], -1) {
		out = append(out, m[1])
	}
	return out
}
