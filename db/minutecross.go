package db

import (
	"context"
	"database/sql"
	"runtime"
	"sync"

	"mdqs/internal/market"
	"mdqs/internal/minutepack"
)

// MinuteAt is a code's stored 1-minute bar at one minute, and the bar
// before it in its day; a zero TS is none.
type MinuteAt struct {
	Bar, Prev market.Bar
}

// lookupsUpTo is the most codes read by one primary-key lookup each; more
// read the whole day in one scan of minute_days_day. Measured on SQLite
// with a whole market's day stored (BenchmarkMinuteBarsAt): 50 codes take
// 15 ms by the scan, 2 by lookups; the two break even between 2,000 and
// 3,000 codes on a quiet machine (1,000 to 2,000 on a busy one), and for
// all 5,300 the scan takes 92 ms against 110.
const lookupsUpTo = 2000

// MinuteBarsAt is each of codes' stored 1-minute bar whose TS is ts, on
// day: out[i] is codes[i]'s (zero TS when its day is not stored or has no
// bar at ts). A few codes are looked up one by one; more read the day's
// records of every code in one scan. The records are decoded only as far
// as one bar (minutepack.BarAt), on every core while the rows are read. A
// record that does not decode is an internal error naming it.
func (s *Store) MinuteBarsAt(ctx context.Context, day market.Day, ts int64, codes []market.Code) ([]MinuteAt, error) {
	return s.minuteBarsAt(ctx, day, ts, codes, len(codes) > lookupsUpTo)
}

// minuteBarsAt is MinuteBarsAt by a scan of the day or by lookups.
func (s *Store) minuteBarsAt(ctx context.Context, day market.Day, ts int64, codes []market.Code, scan bool) ([]MinuteAt, error) {
	out := make([]MinuteAt, len(codes))
	if len(codes) == 0 {
		return out, nil
	}
	d := newBarDecoder(ctx, day, ts, out)
	read := s.lookupMinuteDays
	if scan {
		read = s.scanMinuteDays
	}
	err := read(ctx, day, codes, d.add)
	if derr := d.wait(); err == nil {
		err = derr
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// lookupMinuteDays hands each code's record of day to add, one primary-key
// read a code.
func (s *Store) lookupMinuteDays(ctx context.Context, day market.Day, codes []market.Code, add func(int, market.Code, []byte) bool) error {
	st, err := s.readStmt(ctx, `SELECT data FROM minute_days WHERE code = ? AND freq = 1 AND day = ?`)
	if err != nil {
		return classify(err, "read minute days")
	}
	for i, c := range codes {
		var data []byte
		switch err := st.QueryRowContext(ctx, c.String(), int(day)).Scan(&data); err {
		case nil:
			if !add(i, c, data) {
				return nil
			}
		case sql.ErrNoRows:
		default:
			return classify(err, "read minute days")
		}
	}
	return nil
}

// scanMinuteDays hands the record of day of each of codes to add, in one
// scan of the day's records.
func (s *Store) scanMinuteDays(ctx context.Context, day market.Day, codes []market.Code, add func(int, market.Code, []byte) bool) error {
	at := make(map[string]int, len(codes))
	for i, c := range codes {
		at[c.String()] = i
	}
	st, err := s.readStmt(ctx, `SELECT code, data FROM minute_days WHERE day = ? AND freq = 1`)
	if err != nil {
		return classify(err, "read minute days")
	}
	rows, err := st.QueryContext(ctx, int(day))
	if err != nil {
		return classify(err, "read minute days")
	}
	defer rows.Close()
	// The driver's bytes are valid until the next row: the records the
	// decoders keep are copied into chunks of a megabyte, not one
	// allocation (and a second copy, database/sql's) each.
	var code, data sql.RawBytes
	var chunk []byte
	for rows.Next() {
		if err := rows.Scan(&code, &data); err != nil {
			return classify(err, "read minute days")
		}
		i, ok := at[string(code)]
		if !ok {
			continue
		}
		if cap(chunk)-len(chunk) < len(data) {
			chunk = make([]byte, 0, max(1<<20, len(data)))
		}
		rec := append(chunk[len(chunk):len(chunk):len(chunk)], data...)
		chunk = chunk[:len(chunk)+len(data)]
		if !add(i, codes[i], rec) {
			break
		}
	}
	return classify(rows.Err(), "read minute days")
}

// barDecoder decodes records on every core while the store reads more:
// decoding is most of a whole market's minute, a few times the read.
type barDecoder struct {
	ctx  context.Context
	day  market.Day
	ts   int64
	out  []MinuteAt
	jobs chan barJob
	wg   sync.WaitGroup
	mu   sync.Mutex
	err  error
}

type barJob struct {
	i    int
	code market.Code
	rec  []byte
}

func newBarDecoder(ctx context.Context, day market.Day, ts int64, out []MinuteAt) *barDecoder {
	d := &barDecoder{ctx: ctx, day: day, ts: ts, out: out, jobs: make(chan barJob, 64)}
	for range max(1, min(runtime.GOMAXPROCS(0), len(out))) {
		d.wg.Go(d.work)
	}
	return d
}

// add queues code's record for out[i]; false once a record failed or the
// request ended, so the read stops.
func (d *barDecoder) add(i int, code market.Code, rec []byte) bool {
	if d.failed() {
		return false
	}
	select {
	case d.jobs <- barJob{i, code, rec}:
		return true
	case <-d.ctx.Done():
		d.fail(d.ctx.Err())
		return false
	}
}

func (d *barDecoder) work() {
	for j := range d.jobs {
		if d.failed() {
			continue
		}
		bar, prev, ok, err := minutepack.BarAt(j.rec, d.ts)
		if err != nil {
			d.fail(market.Wrap(market.KindInternal, err, "the stored minute day of %s 1m on %s: %v", j.code, d.day, err))
			continue
		}
		if ok {
			d.out[j.i] = MinuteAt{Bar: bar, Prev: prev}
		}
	}
}

// wait is the first error once every queued record is decoded.
func (d *barDecoder) wait() error {
	close(d.jobs)
	d.wg.Wait()
	return d.err
}

func (d *barDecoder) fail(err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.err == nil {
		d.err = err
	}
}

func (d *barDecoder) failed() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.err != nil
}
