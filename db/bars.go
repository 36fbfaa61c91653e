package db

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"mdqs/internal/market"
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

// ingestBatches upserts batches inside tx: intraday ones into their days'
// packed records (minuteWriter), the others as rows of bars.
func ingestBatches(ctx context.Context, t *txn, batches []BarBatch) (IngestCounts, error) {
	var total IngestCounts
	var rows []BarBatch
	mw := minuteWriter{tx: t.Tx}
	defer mw.close()
	for _, b := range batches {
		if !isMinute(b.Freq) {
			rows = append(rows, b)
			continue
		}
		c, err := mw.ingest(ctx, b)
		if err != nil {
			return total, err
		}
		if err := setCoverage(ctx, t.Tx, b); err != nil {
			return total, err
		}
		total.add(c)
	}
	if err := mw.flush(ctx); err != nil {
		return total, err
	}
	if len(rows) == 0 {
		return total, nil
	}
	c, err := ingestRows(ctx, t, rows)
	total.add(c)
	return total, err
}

// ingestRows upserts batches as rows of bars, the prepared statements
// shared by every batch of the transaction (on PostgreSQL, with COPY:
// copyBatches).
func ingestRows(ctx context.Context, t *txn, batches []BarBatch) (IngestCounts, error) {
	if t.dialect == postgresDialect {
		return copyBatches(ctx, t, batches)
	}
	w := barWriter{tx: t.Tx, upserts: map[upsertShape]*sql.Stmt{}, args: make([]any, 0, 3+rowsPerStatement*barColumns)}
	defer w.close()
	var total IngestCounts
	for _, b := range batches {
		c, err := w.ingest(ctx, b)
		if err != nil {
			return total, err
		}
		total.add(c)
	}
	return total, nil
}

// barWriter is one SQLite transaction's bar ingest: its statements,
// prepared once each, and the argument slice they reuse.
type barWriter struct {
	tx      *sql.Tx
	upserts map[upsertShape]*sql.Stmt
	cover   *sql.Stmt
	args    []any
}

func (w *barWriter) close() {
	for _, st := range w.upserts {
		st.Close()
	}
	if w.cover != nil {
		w.cover.Close()
	}
}

// ingest upserts one batch, rowsPerStatement rows per statement, and sets
// its coverage. A batch's code, freq and source are bound once per
// statement, and a chunk whose optional measures are all unknown (every
// bar from the terminal's files) writes them as NULL literals, so each of
// its rows binds 8 values, not 13: binding was a third of the insert's cost.
func (w *barWriter) ingest(ctx context.Context, b BarBatch) (IngestCounts, error) {
	c := IngestCounts{Bars: len(b.Bars)}
	for start := 0; start < len(b.Bars); start += rowsPerStatement {
		chunk := b.Bars[start:min(start+rowsPerStatement, len(b.Bars))]
		shape := upsertShape{rows: len(chunk), measures: anyMeasure(chunk)}
		stmt, err := w.upsert(ctx, shape)
		if err != nil {
			return c, err
		}
		args := append(w.args[:0], b.Code.String(), int64(FreqMinutes(b.Freq)), b.Source)
		for _, x := range chunk {
			args = append(args, x.TS, int64(x.Day), toPrice(x.Open), toPrice(x.High), toPrice(x.Low), toPrice(x.Close),
				x.Volume, x.Amount)
			if shape.measures {
				args = append(args, nullFloat(x.TurnoverRate), nullFloat(x.LargeOrderNet))
			}
		}
		res, err := stmt.ExecContext(ctx, args...)
		if err != nil {
			return c, classify(err, "insert bars")
		}
		n, _ := res.RowsAffected()
		c.Written += int(n)
	}
	c.Unchanged = c.Bars - c.Written
	if b.Cover == nil {
		return c, nil
	}
	if w.cover == nil {
		st, err := w.tx.PrepareContext(ctx, coverageSQL)
		if err != nil {
			return c, classify(err, "prepare coverage")
		}
		w.cover = st
	}
	_, err := w.cover.ExecContext(ctx, coverageArgs(b)...)
	return c, classify(err, "set coverage")
}

// upsert prepares (once per transaction and shape) the multi-row upsert
// whose DO UPDATE runs only when a value differs: an identical row is
// neither rewritten nor counted.
func (w *barWriter) upsert(ctx context.Context, shape upsertShape) (*sql.Stmt, error) {
	if st, ok := w.upserts[shape]; ok {
		return st, nil
	}
	st, err := w.tx.PrepareContext(ctx, upsertSQL(shape))
	if err != nil {
		return nil, classify(err, "prepare bar upsert")
	}
	w.upserts[shape] = st
	return st, nil
}

// anyMeasure reports a bar of bars with a known optional measure (turnover
// rate, large-order net), which is then bound rather than written NULL.
func anyMeasure(bars []market.Bar) bool {
	for _, x := range bars {
		if nullFloat(x.TurnoverRate).Valid || nullFloat(x.LargeOrderNet).Valid {
			return true
		}
	}
	return false
}

// setCoverage records a batch's coverage, if it sets one.
func setCoverage(ctx context.Context, tx *sql.Tx, b BarBatch) error {
	if b.Cover == nil {
		return nil
	}
	_, err := tx.ExecContext(ctx, coverageSQL, coverageArgs(b)...)
	return classify(err, "set coverage")
}

const coverageSQL = `INSERT INTO bar_coverage(code, freq, first_day, last_day, source, updated_at)
	VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(code, freq) DO UPDATE SET first_day = excluded.first_day,
	last_day = excluded.last_day, source = excluded.source, updated_at = excluded.updated_at`

func coverageArgs(b BarBatch) []any {
	return []any{b.Code.String(), FreqMinutes(b.Freq), int(b.Cover.First), int(b.Cover.Last), b.Source, time.Now().UnixMilli()}
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

// upsertShape is what a multi-row upsert's text depends on: its rows, and
// whether the optional measures are bound (else NULL).
type upsertShape struct {
	rows     int
	measures bool
}

// upsertSQL is the multi-row upsert of a shape. ?1, ?2 and ?3 are the
// code, freq and source every row shares; each row's own values are the
// anonymous parameters after them (SQLite numbers a ? one past the largest
// number so far), in barWriter.ingest's order.
func upsertSQL(shape upsertShape) string {
	row := "(?1,?2,?3,?,?,?,?,?,?,?,?,NULL,NULL)"
	if shape.measures {
		row = "(?1,?2,?3,?,?,?,?,?,?,?,?,?,?)"
	}
	var q strings.Builder
	q.WriteString(`INSERT INTO bars(code, freq, source, ts, trade_date, open, high, low, close, volume, amount,
		turnover_rate, large_order_net) VALUES `)
	for i := range shape.rows {
		if i > 0 {
			q.WriteByte(',')
		}
		q.WriteString(row)
	}
	q.WriteString(barUpsert)
	return q.String()
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
	if isMinute(q.Freq) {
		return s.minuteBars(ctx, q)
	}
	return s.rowBars(ctx, q)
}

// rowBars reads a series from rows of bars.
func (s *Store) rowBars(ctx context.Context, q BarQuery) ([]market.Bar, error) {
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
	if isMinute(freq) {
		return s.minuteBarCount(ctx, code, freq)
	}
	var n int
	err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM bars WHERE code = ? AND freq = ?`, code.String(), FreqMinutes(freq)).Scan(&n)
	return n, classify(err, "count bars")
}
