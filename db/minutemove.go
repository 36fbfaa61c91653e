package db

import (
	"context"
	"database/sql"
	"fmt"

	"mdqs/internal/market"
)

// packMinuteRows is schema version 20's step: the intraday rows of bars
// (1m, 5m) become minute_days records, a code's series at a time, and
// leave bars, all in the migration's one transaction, so a store is
// either still all rows or all packed. A day keeps the source of its last
// row (a record has one). Coverage (bar_coverage) is about days, not
// tables, and stays as it is.
func packMinuteRows(ctx context.Context, tx *sql.Tx) error {
	type series struct {
		code string
		freq int
	}
	var all []series
	rows, err := tx.QueryContext(ctx, `SELECT DISTINCT code, freq FROM bars WHERE freq IN (1, 5) ORDER BY code, freq`)
	if err != nil {
		return err
	}
	for rows.Next() {
		var s series
		if err := rows.Scan(&s.code, &s.freq); err != nil {
			rows.Close()
			return err
		}
		all = append(all, s)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	w := minuteWriter{tx: tx}
	defer w.close()
	for _, s := range all {
		code, err := market.ParseCode(s.code)
		if err != nil {
			return fmt.Errorf("pack the minute rows of %q: %w", s.code, err)
		}
		freq := market.Min1
		if s.freq == 5 {
			freq = market.Min5
		}
		batches, err := minuteRowDays(ctx, tx, code, freq)
		if err != nil {
			return fmt.Errorf("pack the minute rows of %s %s: %w", code, freq, err)
		}
		for _, b := range batches {
			if _, err := w.ingest(ctx, b); err != nil {
				return fmt.Errorf("pack the minute rows of %s %s: %w", code, freq, err)
			}
		}
	}
	if err := w.flush(ctx); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `DELETE FROM bars WHERE freq IN (1, 5)`)
	return err
}

// minuteRowDays is a series' rows of bars as one batch a day, read whole
// before any write.
func minuteRowDays(ctx context.Context, tx *sql.Tx, code market.Code, freq market.Freq) ([]BarBatch, error) {
	rows, err := tx.QueryContext(ctx, `SELECT ts, trade_date, open, high, low, close, volume, amount, turnover_rate, large_order_net, source
		FROM bars WHERE code = ? AND freq = ? ORDER BY ts`, code.String(), FreqMinutes(freq))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []BarBatch
	var v [10]any
	var source string
	dest := []any{&v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &source}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		b := market.Bar{TS: anyInt(v[0]), Day: market.Day(anyInt(v[1])),
			Open: fromPrice(anyInt(v[2])), High: fromPrice(anyInt(v[3])), Low: fromPrice(anyInt(v[4])), Close: fromPrice(anyInt(v[5])),
			Volume: anyInt(v[6]), Amount: anyFloat(v[7]), TurnoverRate: anyFloat(v[8]), LargeOrderNet: anyFloat(v[9])}
		if n := len(out); n == 0 || out[n-1].Bars[0].Day != b.Day {
			out = append(out, BarBatch{Code: code, Freq: freq})
		}
		last := &out[len(out)-1]
		last.Bars, last.Source = append(last.Bars, b), source
	}
	return out, rows.Err()
}
