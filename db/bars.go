package db

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"mdqs/market"
)

// FreqMinutes is the bar length a frequency is stored under.
func FreqMinutes(f market.Freq) int {
	switch f {
	case market.Min1:
		return 1
	case market.Min5:
		return 5
	}
	return 1440
}

// priceScale: prices are stored as integer ten-thousandths of a yuan.
const priceScale = 10_000

func toPrice(v float64) int64 { return int64(math.Round(v * priceScale)) }

func fromPrice(v int64) float64 { return float64(v) / priceScale }

// Span is a range of trade days, both ends included.
type Span struct {
	First, Last market.Day
}

// BarBatch is one code's bars of one frequency from one source, with the
// coverage the store has once they are in (nil: leave coverage alone).
type BarBatch struct {
	Code   market.Code
	Freq   market.Freq
	Source string
	Bars   []market.Bar
	Cover  *Span
}

// IngestCounts says what an ingest did.
type IngestCounts struct {
	Bars      int // bars offered
	Written   int // inserted or changed
	Unchanged int // identical to what was stored: not written at all
}

func (c *IngestCounts) add(o IngestCounts) {
	c.Bars += o.Bars
	c.Written += o.Written
	c.Unchanged += o.Unchanged
}

// rowsPerStatement keeps a multi-row INSERT well under SQLite's 32766 bound
// parameters; about 100 rows per statement is where modernc's insert rate
// stops improving (reference/libraries.md).
const rowsPerStatement = 100

const barColumns = 13

// IngestBars stores batches in one transaction: every bar is inserted, or
// updated when it differs from the stored one, or left alone when it is the
// same (so a re-import writes nothing), and each batch's coverage is set in
// the same transaction, so a crash leaves bars and coverage consistent.
func (s *Store) IngestBars(ctx context.Context, batches []BarBatch) (IngestCounts, error) {
	var total IngestCounts
	err := s.writeTxn(ctx, func(t *txn) (err error) {
		total, err = ingestBatches(ctx, t, batches)
		return err
	})
	return total, err
}

// ingestBatches upserts batches inside tx, the prepared statements shared
// by every batch of the transaction (on PostgreSQL, with COPY: copyBatches).
func ingestBatches(ctx context.Context, t *txn, batches []BarBatch) (IngestCounts, error) {
	if t.dialect == postgresDialect {
		return copyBatches(ctx, t, batches)
	}
	tx := t.Tx
	var total IngestCounts
	stmts := map[int]*sql.Stmt{}
	defer func() {
		for _, st := range stmts {
			st.Close()
		}
	}()
	for _, b := range batches {
		c, err := ingestBatch(ctx, tx, stmts, b)
		if err != nil {
			return total, err
		}
		total.add(c)
	}
	return total, nil
}

func ingestBatch(ctx context.Context, tx *sql.Tx, stmts map[int]*sql.Stmt, b BarBatch) (IngestCounts, error) {
	c := IngestCounts{Bars: len(b.Bars)}
	code, freq := b.Code.String(), FreqMinutes(b.Freq)
	args := make([]any, 0, rowsPerStatement*barColumns)
	for start := 0; start < len(b.Bars); start += rowsPerStatement {
		chunk := b.Bars[start:min(start+rowsPerStatement, len(b.Bars))]
		stmt, err := upsertStmt(ctx, tx, stmts, len(chunk))
		if err != nil {
			return c, err
		}
		args = args[:0]
		for _, x := range chunk {
			args = append(args, code, freq, x.TS, int(x.Day), toPrice(x.Open), toPrice(x.High), toPrice(x.Low), toPrice(x.Close),
				x.Volume, x.Amount, nullFloat(x.TurnoverRate), nullFloat(x.LargeOrderNet), b.Source)
		}
		res, err := stmt.ExecContext(ctx, args...)
		if err != nil {
			return c, classify(err, "insert bars")
		}
		n, _ := res.RowsAffected()
		c.Written += int(n)
	}
	c.Unchanged = c.Bars - c.Written
	return c, setCoverage(ctx, tx, b)
}

// setCoverage records a batch's coverage, if it sets one.
func setCoverage(ctx context.Context, tx *sql.Tx, b BarBatch) error {
	if b.Cover == nil {
		return nil
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO bar_coverage(code, freq, first_day, last_day, source, updated_at)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(code, freq) DO UPDATE SET first_day = excluded.first_day,
		last_day = excluded.last_day, source = excluded.source, updated_at = excluded.updated_at`,
		b.Code.String(), FreqMinutes(b.Freq), int(b.Cover.First), int(b.Cover.Last), b.Source, time.Now().UnixMilli())
	return classify(err, "set coverage")
}

// barUpsert is the conflict clause of every bar insert: a row is rewritten
// only when a value differs, so an identical one is neither written nor
// counted.
const barUpsert = ` ON CONFLICT(code, freq, ts) DO UPDATE SET trade_date = excluded.trade_date, open = excluded.open,
	high = excluded.high, low = excluded.low, close = excluded.close, volume = excluded.volume, amount = excluded.amount,
	turnover_rate = excluded.turnover_rate, large_order_net = excluded.large_order_net, source = excluded.source
	WHERE bars.trade_date IS DISTINCT FROM excluded.trade_date OR bars.open IS DISTINCT FROM excluded.open
	OR bars.high IS DISTINCT FROM excluded.high OR bars.low IS DISTINCT FROM excluded.low
	OR bars.close IS DISTINCT FROM excluded.close OR bars.volume IS DISTINCT FROM excluded.volume
	OR bars.amount IS DISTINCT FROM excluded.amount OR bars.turnover_rate IS DISTINCT FROM excluded.turnover_rate
	OR bars.large_order_net IS DISTINCT FROM excluded.large_order_net`

// upsertStmt prepares (once per transaction and row count) the multi-row
// upsert whose DO UPDATE runs only when a value differs: an identical row
// is neither rewritten nor counted.
func upsertStmt(ctx context.Context, tx *sql.Tx, stmts map[int]*sql.Stmt, rows int) (*sql.Stmt, error) {
	if st, ok := stmts[rows]; ok {
		return st, nil
	}
	var q strings.Builder
	q.WriteString(`INSERT INTO bars(code, freq, ts, trade_date, open, high, low, close, volume, amount, turnover_rate,
		large_order_net, source) VALUES `)
	for i := range rows {
		if i > 0 {
			q.WriteByte(',')
		}
		q.WriteString("(?,?,?,?,?,?,?,?,?,?,?,?,?)")
	}
	q.WriteString(barUpsert)
	st, err := tx.PrepareContext(ctx, q.String())
	if err != nil {
		return nil, classify(err, "prepare bar upsert")
	}
	stmts[rows] = st
	return st, nil
}

// BarQuery selects one series' bars.
type BarQuery struct {
	Code   market.Code
	Freq   market.Freq
	FromTS int64 // inclusive; 0: from the first
	ToTS   int64 // inclusive; 0: to the last
	Limit  int   // 0: no limit
	Newest bool  // newest first (with Limit: the last Limit bars)
}

// barsSQL is the range read of one series: a prefix of the primary key
// (code, freq, ts) on both dialects, so it reads only the rows it returns
// (TestBarRangeUsesThePrimaryKey holds both planners to that).
func barsSQL(q BarQuery) (string, []any) {
	to := q.ToTS
	if to == 0 {
		to = math.MaxInt64
	}
	order := "ASC"
	if q.Newest {
		order = "DESC"
	}
	sqlText := fmt.Sprintf(`SELECT ts, trade_date, open, high, low, close, volume, amount, turnover_rate, large_order_net
		FROM bars WHERE code = ? AND freq = ? AND ts >= ? AND ts <= ? ORDER BY ts %s`, order)
	args := []any{q.Code.String(), FreqMinutes(q.Freq), q.FromTS, to}
	if q.Limit > 0 {
		sqlText += ` LIMIT ?`
		args = append(args, q.Limit)
	}
	return sqlText, args
}

// Bars reads a series in time order (oldest first unless Newest).
func (s *Store) Bars(ctx context.Context, q BarQuery) ([]market.Bar, error) {
	sqlText, args := barsSQL(q)
	st, err := s.readStmt(ctx, sqlText)
	if err != nil {
		return nil, classify(err, "read bars")
	}
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return nil, classify(err, "read bars")
	}
	defer rows.Close()
	out := make([]market.Bar, 0, max(q.Limit, 16))
	// Scanning into *any skips database/sql's reflection (8 % of a year's
	// K-lines): the driver's value is handed over as it is.
	var v [10]any
	dest := [10]any{&v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]}
	for rows.Next() {
		if err := rows.Scan(dest[:]...); err != nil {
			return nil, classify(err, "read bars")
		}
		b := market.Bar{TS: anyInt(v[0]), Day: market.Day(anyInt(v[1])),
			Open: fromPrice(anyInt(v[2])), High: fromPrice(anyInt(v[3])), Low: fromPrice(anyInt(v[4])), Close: fromPrice(anyInt(v[5])),
			Volume: anyInt(v[6]), Amount: anyFloat(v[7]), TurnoverRate: anyFloat(v[8]), LargeOrderNet: anyFloat(v[9])}
		out = append(out, b)
	}
	return out, classify(rows.Err(), "read bars")
}

// anyInt and anyFloat read a driver value of a numeric column: int64 or
// float64 whichever storage class the engine kept (SQLite may hold an
// integral REAL as an integer and the other way round), NULL as 0 and NaN.
func anyInt(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case float64:
		return int64(math.Round(x))
	case []byte:
		n, _ := strconv.ParseInt(string(x), 10, 64)
		return n
	case string:
		n, _ := strconv.ParseInt(x, 10, 64)
		return n
	}
	return 0
}

func anyFloat(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case int64:
		return float64(x)
	case []byte:
		if f, err := strconv.ParseFloat(string(x), 64); err == nil {
			return f
		}
	case string:
		if f, err := strconv.ParseFloat(x, 64); err == nil {
			return f
		}
	}
	return math.NaN()
}

// Coverage is the span of days whose bars of a series are complete in the
// store; ok is false when nothing was ever stored.
func (s *Store) Coverage(ctx context.Context, code market.Code, freq market.Freq) (span Span, source string, ok bool, err error) {
	var first, last int
	st, err := s.readStmt(ctx, `SELECT first_day, last_day, source FROM bar_coverage WHERE code = ? AND freq = ?`)
	if err != nil {
		return Span{}, "", false, classify(err, "read coverage")
	}
	err = st.QueryRowContext(ctx, code.String(), FreqMinutes(freq)).Scan(&first, &last, &source)
	if err == sql.ErrNoRows {
		return Span{}, "", false, nil
	}
	if err != nil {
		return Span{}, "", false, classify(err, "read coverage")
	}
	return Span{First: market.Day(first), Last: market.Day(last)}, source, true, nil
}

// BarCount counts a series' stored bars (tests and import reports).
func (s *Store) BarCount(ctx context.Context, code market.Code, freq market.Freq) (int, error) {
	var n int
	err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM bars WHERE code = ? AND freq = ?`, code.String(), FreqMinutes(freq)).Scan(&n)
	return n, classify(err, "count bars")
}
