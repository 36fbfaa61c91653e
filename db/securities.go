package db

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"mdqs/internal/market"
)

// The fields of the security master's timeline.
const (
	FieldListed    = "listed"    // value "": the code was in the source's universe
	FieldName      = "name"      // value: the name it traded under
	FieldST        = "st"        // value "ST" or "*ST"
	FieldSuspended = "suspended" // value "": no trade all day
)

// SecurityObservation is what a source saw of one code on one day.
type SecurityObservation struct {
	Code      market.Code
	Name      string
	ST        string // "", "ST" or "*ST"
	Suspended bool
}

// SecuritySpan is one run of days on which field had value, as source
// recorded it.
type SecuritySpan struct {
	Code   market.Code
	Field  string
	Value  string
	First  market.Day
	Last   market.Day
	Source string
}

// RecordedDays are the first and last days a source recorded, and how many.
type RecordedDays struct {
	First, Last market.Day
	Count       int
	Source      string
}

// SecurityDay is what a source saw of its universe on one day.
type SecurityDay struct {
	Day market.Day
	Obs []SecurityObservation
}

// RecordSecurityDay records what source saw on day (RecordSecurityDays of
// one day); recorded is false when day was recorded already.
func (s *Store) RecordSecurityDay(ctx context.Context, source string, day market.Day, obs []SecurityObservation, now time.Time) (recorded bool, err error) {
	n, err := s.RecordSecurityDays(ctx, source, []SecurityDay{{Day: day, Obs: obs}}, now)
	return n == 1, err
}

// RecordSecurityDays records days (ascending) in one transaction and says
// how many it recorded. A value a span holds open goes on; a change closes
// that span on the previous recorded day and opens another; a code, name,
// warning or suspension no longer seen closes its span. A day already
// recorded is left as it was (the first record of a day stands); one
// before the latest recorded is refused: days go in order.
func (s *Store) RecordSecurityDays(ctx context.Context, source string, days []SecurityDay, now time.Time) (recorded int, err error) {
	if source == "" {
		return 0, market.Errorf(market.KindInvalid, "security day: no source")
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		recorded = 0
		var last sql.NullInt64
		if err := tx.QueryRowContext(ctx, `SELECT max(day) FROM security_days WHERE source = ?`, source).Scan(&last); err != nil {
			return classify(err, "read recorded days")
		}
		prev := market.Day(last.Int64) // 0 when nothing was recorded
		opens, err := openSpans(ctx, tx, source)
		if err != nil {
			return err
		}
		w, err := newSpanWriter(ctx, tx, source)
		if err != nil {
			return err
		}
		defer w.close()
		for _, d := range days {
			switch {
			case d.Day == prev:
				continue
			case d.Day < prev:
				return market.Errorf(market.KindConflict, "%s has recorded %s already; days are recorded in order, %s is earlier", source, prev, d.Day)
			}
			n, err := w.day(opens, prev, d)
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO security_days(day, source, codes, recorded_at) VALUES (?, ?, ?, ?)`,
				int(d.Day), source, n, now.UnixMilli()); err != nil {
				return classify(err, "record security day")
			}
			prev = d.Day
			recorded++
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return recorded, nil
}

type spanKey struct{ code, field string }

type openSpan struct {
	value string
	first market.Day
}

// openSpans are the spans of source that go on (last_day NULL).
func openSpans(ctx context.Context, tx *sql.Tx, source string) (map[spanKey]openSpan, error) {
	rows, err := tx.QueryContext(ctx, `SELECT code, field, value, first_day FROM security_spans WHERE source = ? AND last_day IS NULL`, source)
	if err != nil {
		return nil, classify(err, "record security day")
	}
	defer rows.Close()
	out := map[spanKey]openSpan{}
	for rows.Next() {
		var k spanKey
		var o openSpan
		var first int64
		if err := rows.Scan(&k.code, &k.field, &o.value, &first); err != nil {
			return nil, classify(err, "record security day")
		}
		o.first = market.Day(first)
		out[k] = o
	}
	return out, classify(rows.Err(), "record security day")
}

// spanWriter applies a day's facts to the open spans: only changes write
// (a day of the whole market rewriting every span cost 60 ms).
type spanWriter struct {
	ctx         context.Context
	source      string
	insert, end *sql.Stmt
}

func newSpanWriter(ctx context.Context, tx *sql.Tx, source string) (*spanWriter, error) {
	ins, err := tx.PrepareContext(ctx, `INSERT INTO security_spans(code, field, value, first_day, last_day, source) VALUES (?, ?, ?, ?, NULL, ?)`)
	if err != nil {
		return nil, classify(err, "record security day")
	}
	cl, err := tx.PrepareContext(ctx, `UPDATE security_spans SET last_day = ? WHERE code = ? AND field = ? AND source = ? AND first_day = ?`)
	if err != nil {
		ins.Close()
		return nil, classify(err, "record security day")
	}
	return &spanWriter{ctx: ctx, source: source, insert: ins, end: cl}, nil
}

func (w *spanWriter) close() { w.insert.Close(); w.end.Close() }

// day records d against the spans open after prev, updating opens, and
// returns how many codes it saw.
func (w *spanWriter) day(opens map[spanKey]openSpan, prev market.Day, d SecurityDay) (int, error) {
	facts := map[spanKey]string{}
	seen := 0
	for _, o := range d.Obs {
		code := o.Code.String()
		k := spanKey{code, FieldListed}
		if _, dup := facts[k]; dup {
			continue // a source listing a code twice: its first row counts
		}
		seen++
		facts[k] = ""
		if o.Name != "" {
			facts[spanKey{code, FieldName}] = o.Name
		}
		if o.ST != "" {
			facts[spanKey{code, FieldST}] = o.ST
		}
		if o.Suspended {
			facts[spanKey{code, FieldSuspended}] = ""
		}
	}
	// Close first, so a changed value's two spans never both stand open.
	for k, o := range opens {
		if v, ok := facts[k]; ok && v == o.value {
			continue
		}
		if _, err := w.end.ExecContext(w.ctx, int(prev), k.code, k.field, w.source, int(o.first)); err != nil {
			return 0, classify(err, "record security day")
		}
		delete(opens, k)
	}
	for k, v := range facts {
		if _, ok := opens[k]; ok {
			continue
		}
		if _, err := w.insert.ExecContext(w.ctx, k.code, k.field, v, int(d.Day), w.source); err != nil {
			return 0, classify(err, "record security day")
		}
		opens[k] = openSpan{value: v, first: d.Day}
	}
	return seen, nil
}

// SecurityDays are the days source recorded: first, last and count; a
// not-found error when it recorded none.
func (s *Store) SecurityDays(ctx context.Context, source string) (RecordedDays, error) {
	var first, last sql.NullInt64
	var n int
	if err := s.r.QueryRowContext(ctx, `SELECT min(day), max(day), count(*) FROM security_days WHERE source = ?`, source).
		Scan(&first, &last, &n); err != nil {
		return RecordedDays{}, classify(err, "read recorded days")
	}
	if n == 0 {
		return RecordedDays{}, market.Errorf(market.KindNotFound, "%s has recorded no day", source)
	}
	return RecordedDays{First: market.Day(first.Int64), Last: market.Day(last.Int64), Count: n, Source: source}, nil
}

// SecurityDayRecorded reports whether source recorded day.
func (s *Store) SecurityDayRecorded(ctx context.Context, source string, day market.Day) (bool, error) {
	var one int
	err := s.r.QueryRowContext(ctx, `SELECT 1 FROM security_days WHERE source = ? AND day = ?`, source, int(day)).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, classify(err, "read recorded days")
	}
	return true, nil
}

// SecuritySpansOn are the spans of source that cover day: every code in
// its universe that day, with its name, ST and suspension spans.
func (s *Store) SecuritySpansOn(ctx context.Context, source string, day market.Day) ([]SecuritySpan, error) {
	return s.querySpans(ctx, `SELECT code, field, value, first_day, `+spanLast+`, source FROM security_spans
		WHERE source = ? AND first_day <= ? AND (last_day IS NULL OR last_day >= ?) ORDER BY code, field`, source, int(day), int(day))
}

// SecurityTimeline is every span of code, of every source, oldest first.
func (s *Store) SecurityTimeline(ctx context.Context, code market.Code) ([]SecuritySpan, error) {
	return s.querySpans(ctx, `SELECT code, field, value, first_day, `+spanLast+`, source FROM security_spans
		WHERE code = ? ORDER BY first_day, field, source`, code.String())
}

// spanLast is a span's last day: its own, or while it goes on, its
// source's last recorded day.
const spanLast = `coalesce(last_day, (SELECT max(d.day) FROM security_days d WHERE d.source = security_spans.source))`

func (s *Store) querySpans(ctx context.Context, query string, args ...any) ([]SecuritySpan, error) {
	rows, err := s.r.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, classify(err, "read security spans")
	}
	defer rows.Close()
	var out []SecuritySpan
	for rows.Next() {
		var code string
		var first, last int64
		var sp SecuritySpan
		if err := rows.Scan(&code, &sp.Field, &sp.Value, &first, &last, &sp.Source); err != nil {
			return nil, classify(err, "read security spans")
		}
		c, err := market.ParseCode(code)
		if err != nil {
			return nil, market.Wrap(market.KindInternal, err, "a stored code %q", code)
		}
		sp.Code, sp.First, sp.Last = c, market.Day(first), market.Day(last)
		out = append(out, sp)
	}
	return out, classify(rows.Err(), "read security spans")
}

// ListingDays are the listing days every source states, per code (the
// earliest where two do), with the source; the lists of delisted
// companies come last, as in ListingDay.
func (s *Store) ListingDays(ctx context.Context) (map[market.Code]ListedOn, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT code, day, source, 0 AS rank FROM listing_days
		UNION ALL SELECT code, listed_day, source, 1 FROM delistings WHERE listed_day IS NOT NULL
		ORDER BY code, rank, day, source`)
	if err != nil {
		return nil, classify(err, "read listing days")
	}
	defer rows.Close()
	out := map[market.Code]ListedOn{}
	for rows.Next() {
		var code, source string
		var day, rank int64
		if err := rows.Scan(&code, &day, &source, &rank); err != nil {
			return nil, classify(err, "read listing days")
		}
		c, err := market.ParseCode(code)
		if err != nil {
			continue
		}
		if _, ok := out[c]; !ok {
			out[c] = ListedOn{Day: market.Day(day), Source: source}
		}
	}
	return out, classify(rows.Err(), "read listing days")
}

// ListedOn is a listing day and the source that states it.
type ListedOn struct {
	Day    market.Day
	Source string
}
