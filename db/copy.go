package db

import (
	"context"
	"fmt"
	"mdqs/internal/market"
	"slices"

	"github.com/jackc/pgx/v5"
)

// copyBatches is ingestBatches on PostgreSQL, with COPY (pgx CopyFrom)
// rather than multi-row INSERTs, which reach about a third of its rate.
// COPY cannot upsert, so only a batch whose days hold no stored bar yet is
// copied straight into bars (a fresh import: every row new, every row
// counted written); the others are copied into a staging table and
// upserted from it in one statement, with the same rule as SQLite's (a row
// is rewritten only when a value differs).
func copyBatches(ctx context.Context, t *txn, batches []BarBatch) (IngestCounts, error) {
	var total IngestCounts
	var fresh, stage []BarBatch
	claimed := map[string][][2]int64{} // code/freq → the ts spans copied straight this time
	for _, b := range batches {
		total.Bars += len(b.Bars)
		if len(b.Bars) == 0 {
			continue
		}
		key := b.Code.String() + "/" + fmt.Sprint(FreqMinutes(b.Freq))
		lo, hi := b.Bars[0].TS, b.Bars[len(b.Bars)-1].TS
		clean := increasing(b.Bars)
		for _, sp := range claimed[key] {
			clean = clean && (hi < sp[0] || lo > sp[1])
		}
		if clean {
			var stored bool
			if err := t.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM bars WHERE code = ? AND freq = ? AND ts >= ? AND ts <= ?)`,
				b.Code.String(), FreqMinutes(b.Freq), lo, hi).Scan(&stored); err != nil {
				return total, classify(err, "look for stored bars")
			}
			clean = !stored
		}
		if clean {
			fresh = append(fresh, b)
			claimed[key] = append(claimed[key], [2]int64{lo, hi})
		} else {
			stage = append(stage, b)
		}
	}
	if len(fresh) > 0 {
		n, err := t.copyInto(ctx, "bars", fresh)
		if err != nil {
			return total, classify(err, "copy bars")
		}
		total.Written += int(n)
	}
	if len(stage) > 0 {
		n, err := t.upsertStaged(ctx, lastOffers(stage))
		if err != nil {
			return total, err
		}
		total.Written += int(n)
	}
	total.Unchanged = total.Bars - total.Written
	for _, b := range batches {
		if err := setCoverage(ctx, t.Tx, b); err != nil {
			return total, err
		}
	}
	return total, nil
}

// increasing reports bars in strictly increasing time: no key twice.
func increasing(bars []market.Bar) bool {
	for i := 1; i < len(bars); i++ {
		if bars[i].TS <= bars[i-1].TS {
			return false
		}
	}
	return true
}

// lastOffers is batches without the earlier offers of a time offered
// again later in them: the staged upsert's DISTINCT ON keeps one row of a
// key, but which one of equal keys is not defined, and a row-by-row upsert
// (SQLite's) leaves the last.
func lastOffers(batches []BarBatch) []BarBatch {
	type key struct {
		code string
		freq int
		ts   int64
	}
	seen := map[key]bool{}
	out := make([]BarBatch, len(batches))
	for i := len(batches) - 1; i >= 0; i-- {
		b := batches[i]
		kept := make([]market.Bar, 0, len(b.Bars))
		for j := len(b.Bars) - 1; j >= 0; j-- {
			k := key{b.Code.String(), FreqMinutes(b.Freq), b.Bars[j].TS}
			if !seen[k] {
				seen[k] = true
				kept = append(kept, b.Bars[j])
			}
		}
		slices.Reverse(kept)
		b.Bars = kept
		out[i] = b
	}
	return out
}

// upsertStaged copies batches into a staging table of the transaction and
// upserts them into bars in one statement; it returns the rows written.
func (t *txn) upsertStaged(ctx context.Context, batches []BarBatch) (int64, error) {
	if _, err := t.ExecContext(ctx, `CREATE TEMP TABLE IF NOT EXISTS bars_stage (LIKE bars) ON COMMIT DELETE ROWS`); err != nil {
		return 0, classify(err, "stage bars")
	}
	if _, err := t.copyInto(ctx, "bars_stage", batches); err != nil {
		return 0, classify(err, "stage bars")
	}
	// DISTINCT ON: one row a key (lastOffers left the last offer alone).
	res, err := t.ExecContext(ctx, `INSERT INTO bars SELECT DISTINCT ON (code, freq, ts) * FROM bars_stage
		ORDER BY code, freq, ts`+barUpsert)
	if err != nil {
		return 0, classify(err, "upsert staged bars")
	}
	n, _ := res.RowsAffected()
	if _, err := t.ExecContext(ctx, `TRUNCATE bars_stage`); err != nil {
		return 0, classify(err, "stage bars")
	}
	return n, nil
}

// copyInto copies the batches' bars into a table of bars' columns.
func (t *txn) copyInto(ctx context.Context, table string, batches []BarBatch) (int64, error) {
	bi, i := 0, 0
	rows := pgx.CopyFromFunc(func() ([]any, error) {
		for bi < len(batches) && i >= len(batches[bi].Bars) {
			bi, i = bi+1, 0
		}
		if bi >= len(batches) {
			return nil, nil
		}
		b, x := batches[bi], batches[bi].Bars[i]
		i++
		return []any{b.Code.String(), FreqMinutes(b.Freq), x.TS, int64(x.Day), toPrice(x.Open), toPrice(x.High), toPrice(x.Low),
			toPrice(x.Close), x.Volume, x.Amount, pgFloat(x.TurnoverRate), pgFloat(x.LargeOrderNet), b.Source}, nil
	})
	var n int64
	err := pgConn(t.conn, func(c *pgx.Conn) (err error) {
		n, err = c.CopyFrom(ctx, pgx.Identifier{table}, []string{"code", "freq", "ts", "trade_date", "open", "high", "low",
			"close", "volume", "amount", "turnover_rate", "large_order_net", "source"}, rows)
		return err
	})
	return n, err
}

// pgFloat is an optional measure as COPY takes it: nil for unknown.
func pgFloat(v float64) any {
	if nf := nullFloat(v); nf.Valid {
		return nf.Float64
	}
	return nil
}
