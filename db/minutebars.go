package db

import (
	"cmp"
	"context"
	"database/sql"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"

	"mdqs/internal/market"
	"mdqs/internal/minutepack"
)

// Intraday bars (1m, 5m) live in minute_days, one packed record a code,
// frequency and day, not in rows of bars: 9 bytes a bar on disk rather
// than about 90 (docs/minute-store.md). IngestBars and Bars keep their
// meaning for every frequency; only the table behind them differs.

// isMinute says freq's bars are kept in minute_days.
func isMinute(f market.Freq) bool { return f == market.Min1 || f == market.Min5 }

// rowBar is x as a row of bars gave it back: prices in the store's
// ten-thousandths of a yuan, an unknown or infinite measure as NaN and a
// negative zero as zero (SQLite keeps an integral REAL as an integer). The
// packed record keeps what it is given bit for bit, so the minutes are
// given this first and answer what the rows answered.
func rowBar(x market.Bar) market.Bar {
	x.Open, x.High, x.Low, x.Close = fromPrice(toPrice(x.Open)), fromPrice(toPrice(x.High)), fromPrice(toPrice(x.Low)), fromPrice(toPrice(x.Close))
	x.Amount = rowFloat(x.Amount, math.IsNaN(x.Amount))
	x.TurnoverRate = rowFloat(x.TurnoverRate, !nullFloat(x.TurnoverRate).Valid)
	x.LargeOrderNet = rowFloat(x.LargeOrderNet, !nullFloat(x.LargeOrderNet).Valid)
	return x
}

func rowFloat(v float64, null bool) float64 {
	if null {
		return math.NaN()
	}
	return v + 0 // -0 + 0 is +0
}

// sameBar compares bars as the store does: every value, bit for bit.
func sameBar(a, b market.Bar) bool {
	f := math.Float64bits
	return a.TS == b.TS && a.Day == b.Day && a.Volume == b.Volume && f(a.Open) == f(b.Open) && f(a.High) == f(b.High) &&
		f(a.Low) == f(b.Low) && f(a.Close) == f(b.Close) && f(a.Amount) == f(b.Amount) &&
		f(a.TurnoverRate) == f(b.TurnoverRate) && f(a.LargeOrderNet) == f(b.LargeOrderNet)
}

// minuteWriter is one transaction's writes of minute days: its two
// statements, prepared once, and the merged days not written yet. Days
// are packed (deflate is most of a write's work) on every core at a
// flush, then written in the order they were first merged.
type minuteWriter struct {
	tx           *sql.Tx
	read, upsert *sql.Stmt
	pending      map[dayKey]int // index into days
	days         []pendingDay
}

type dayKey struct {
	code string
	freq int
	day  market.Day
}

type pendingDay struct {
	key    dayKey
	bars   []market.Bar
	source string
	rec    []byte
}

// flushAt bounds the days a writer holds before packing and writing them
// (a migration's millions of rows pass through it).
const flushAt = 2048

func (w *minuteWriter) close() {
	for _, st := range []*sql.Stmt{w.read, w.upsert} {
		if st != nil {
			st.Close()
		}
	}
}

func (w *minuteWriter) prepare(ctx context.Context) error {
	if w.read != nil {
		return nil
	}
	var err error
	if w.read, err = w.tx.PrepareContext(ctx, `SELECT day, data FROM minute_days WHERE code = ? AND freq = ? AND day >= ? AND day <= ?`); err != nil {
		return classify(err, "prepare minute days")
	}
	w.upsert, err = w.tx.PrepareContext(ctx, `INSERT INTO minute_days(code, freq, day, bars, data, source) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT(code, freq, day) DO UPDATE SET bars = excluded.bars, data = excluded.data, source = excluded.source`)
	w.pending = map[dayKey]int{}
	return classify(err, "prepare minute days")
}

// ingest merges one batch into its days: a bar replaces the stored one of
// its time, a day whose bars are all the same as stored is not written,
// and the counts are the bars' as with rows (written: new or different).
// A day written carries the batch's source. The days are written at the
// next flush, which the caller owes before its transaction commits.
func (w *minuteWriter) ingest(ctx context.Context, b BarBatch) (IngestCounts, error) {
	c := IngestCounts{Bars: len(b.Bars)}
	if len(b.Bars) == 0 {
		return c, nil
	}
	if err := w.prepare(ctx); err != nil {
		return c, err
	}
	offered := map[market.Day][]market.Bar{}
	first, last := b.Bars[0].Day, b.Bars[0].Day
	for _, x := range b.Bars {
		offered[x.Day] = append(offered[x.Day], rowBar(x))
		first, last = min(first, x.Day), max(last, x.Day)
	}
	stored, err := w.stored(ctx, b.Code, b.Freq, first, last)
	if err != nil {
		return c, err
	}
	days := make([]market.Day, 0, len(offered))
	for d := range offered {
		days = append(days, d)
	}
	slices.Sort(days)
	for _, d := range days {
		key := dayKey{b.Code.String(), FreqMinutes(b.Freq), d}
		i, held := w.pending[key]
		base := stored[d]
		if held {
			base = w.days[i].bars
		}
		merged, written := mergeDay(base, offered[d])
		c.Written += written
		if written == 0 {
			continue
		}
		if !held {
			i = len(w.days)
			w.days = append(w.days, pendingDay{key: key})
			w.pending[key] = i
		}
		w.days[i].bars, w.days[i].source = merged, b.Source
	}
	c.Unchanged = c.Bars - c.Written
	if len(w.days) >= flushAt {
		return c, w.flush(ctx)
	}
	return c, nil
}

// mergeDay lays offered over a day's stored bars (in time order): the
// merged day and how many offered bars were new or different. Offers in
// time order merge in one pass; others (a time twice, out of order) one
// by one, a later offer of a time over an earlier.
func mergeDay(stored, offered []market.Bar) ([]market.Bar, int) {
	written := 0
	if increasing(offered) {
		out := make([]market.Bar, 0, len(stored)+len(offered))
		i, j := 0, 0
		for i < len(stored) || j < len(offered) {
			switch {
			case j == len(offered) || i < len(stored) && stored[i].TS < offered[j].TS:
				out = append(out, stored[i])
				i++
			case i == len(stored) || offered[j].TS < stored[i].TS:
				out = append(out, offered[j])
				written, j = written+1, j+1
			default:
				if !sameBar(stored[i], offered[j]) {
					written++
				}
				out = append(out, offered[j])
				i, j = i+1, j+1
			}
		}
		return out, written
	}
	byTS := make(map[int64]market.Bar, len(stored)+len(offered))
	for _, x := range stored {
		byTS[x.TS] = x
	}
	for _, x := range offered {
		if old, ok := byTS[x.TS]; ok && sameBar(old, x) {
			continue
		}
		byTS[x.TS] = x
		written++
	}
	out := make([]market.Bar, 0, len(byTS))
	for _, x := range byTS {
		out = append(out, x)
	}
	slices.SortFunc(out, func(a, b market.Bar) int { return cmp.Compare(a.TS, b.TS) })
	return out, written
}

// flush packs the pending days on every core and writes them.
func (w *minuteWriter) flush(ctx context.Context) error {
	if len(w.days) == 0 {
		return nil
	}
	errs := make([]error, len(w.days))
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	for k := range workers {
		wg.Go(func() {
			for i := k; i < len(w.days); i += workers {
				d := &w.days[i]
				d.rec, errs[i] = minutepack.Encode(d.bars, minutepack.Options{Deflate: true})
			}
		})
	}
	wg.Wait()
	for i, d := range w.days {
		if errs[i] != nil {
			return market.Wrap(market.KindInvalid, errs[i], "bars of %s (%d minutes) on %s: %v", d.key.code, d.key.freq, d.key.day, errs[i])
		}
		if _, err := w.upsert.ExecContext(ctx, d.key.code, d.key.freq, int(d.key.day), len(d.bars), d.rec, d.source); err != nil {
			return classify(err, "store minute days")
		}
	}
	w.days, w.pending = w.days[:0], map[dayKey]int{}
	return nil
}

// stored reads a code's stored days from first to last, decoded; every
// row is read before any write (pgx runs one statement a connection at a
// time).
func (w *minuteWriter) stored(ctx context.Context, code market.Code, freq market.Freq, first, last market.Day) (map[market.Day][]market.Bar, error) {
	rows, err := w.read.QueryContext(ctx, code.String(), FreqMinutes(freq), int(first), int(last))
	if err != nil {
		return nil, classify(err, "read minute days")
	}
	defer rows.Close()
	out := map[market.Day][]market.Bar{}
	for rows.Next() {
		var day int64
		var data []byte
		if err := rows.Scan(&day, &data); err != nil {
			return nil, classify(err, "read minute days")
		}
		bars, err := decodeDay(code, freq, market.Day(day), data)
		if err != nil {
			return nil, err
		}
		out[market.Day(day)] = bars
	}
	return out, classify(rows.Err(), "read minute days")
}

// decodeDay is a stored record's bars; one that does not decode is an
// internal error naming it: the store holds what it wrote.
func decodeDay(code market.Code, freq market.Freq, day market.Day, data []byte) ([]market.Bar, error) {
	bars, err := minutepack.Decode(data)
	if err != nil {
		return nil, market.Wrap(market.KindInternal, err, "the stored minute day of %s %s on %s: %v", code, freq, day, err)
	}
	return bars, nil
}

// minuteBars is Bars of an intraday frequency: the days the query's times
// fall on, read in its order on the primary key and decoded one at a
// time, so a query with a limit stops at the day that fills it.
func (s *Store) minuteBars(ctx context.Context, q BarQuery) ([]market.Bar, error) {
	from, to := market.Day(0), market.Day(math.MaxInt32)
	if q.FromTS > 0 {
		from = market.DayOf(time.Unix(q.FromTS, 0))
	}
	toTS := q.ToTS
	if toTS == 0 {
		toTS = math.MaxInt64
	} else {
		to = market.DayOf(time.Unix(toTS, 0))
	}
	sqlText := `SELECT day, data FROM minute_days WHERE code = ? AND freq = ? AND day >= ? AND day <= ? ORDER BY day`
	if q.Newest {
		sqlText += ` DESC`
	}
	st, err := s.readStmt(ctx, sqlText)
	if err != nil {
		return nil, classify(err, "read bars")
	}
	rows, err := st.QueryContext(ctx, q.Code.String(), FreqMinutes(q.Freq), int(from), int(to))
	if err != nil {
		return nil, classify(err, "read bars")
	}
	defer rows.Close()
	out := make([]market.Bar, 0, max(q.Limit, 16))
	full := func() bool { return q.Limit > 0 && len(out) >= q.Limit }
	for !full() && rows.Next() {
		var day int64
		var data []byte
		if err := rows.Scan(&day, &data); err != nil {
			return nil, classify(err, "read bars")
		}
		bars, err := decodeDay(q.Code, q.Freq, market.Day(day), data)
		if err != nil {
			return nil, err
		}
		if q.Newest {
			slices.Reverse(bars)
		}
		for _, x := range bars {
			if x.TS >= q.FromTS && x.TS <= toTS && !full() {
				out = append(out, x)
			}
		}
	}
	return out, classify(rows.Err(), "read bars")
}

// minuteBarCount is BarCount of an intraday frequency.
func (s *Store) minuteBarCount(ctx context.Context, code market.Code, freq market.Freq) (int, error) {
	var n int
	err := s.r.QueryRowContext(ctx, `SELECT coalesce(sum(bars), 0) FROM minute_days WHERE code = ? AND freq = ?`,
		code.String(), FreqMinutes(freq)).Scan(&n)
	return n, classify(err, "count bars")
}
