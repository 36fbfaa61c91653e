package db

import (
	"context"
	"database/sql"
	"time"

	"mdqs/internal/market"
)

// Archive statuses of a code's day (archive_days.status).
const (
	ArchiveArchived = "archived" // checked and kept
	ArchiveFlagged  = "flagged"  // kept, but a check failed
	ArchiveGap      = "gap"      // no source had the day
)

// ArchiveDay is what the minute archive did with one code's day.
type ArchiveDay struct {
	Day        market.Day
	Code       market.Code
	Status     string
	Freq       int // 1, 5 (5-minute only) or 0 (a gap)
	Bars       int
	OpensGiven bool   // false: the opens were derived, not given by the source
	Source     string // the upstream the bars came from
	Reason     string
	At         time.Time
	Origin     string // "": this install's archive job; else the archive a merge took the day from
}

// ArchiveEntry is a day's record with the bars it keeps (none for a gap).
type ArchiveEntry struct {
	Day     ArchiveDay
	Batches []BarBatch
}

// PutArchive stores entries in one transaction: each day's bars (merged
// as IngestBars merges them, coverage included) with its record, so a
// record never exists without its bars nor bars without a record.
func (s *Store) PutArchive(ctx context.Context, entries []ArchiveEntry) error {
	return s.writeTxn(ctx, func(t *txn) error {
		var batches []BarBatch
		for _, e := range entries {
			batches = append(batches, e.Batches...)
		}
		if _, err := ingestBatches(ctx, t, batches); err != nil {
			return err
		}
		st, err := t.PrepareContext(ctx, `INSERT INTO archive_days(day, code, status, freq, bars, opens, source, reason, checked_at, origin)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(day, code) DO UPDATE SET status = excluded.status, freq = excluded.freq,
			bars = excluded.bars, opens = excluded.opens, source = excluded.source, reason = excluded.reason, checked_at = excluded.checked_at,
			origin = excluded.origin`)
		if err != nil {
			return classify(err, "store archive days")
		}
		defer st.Close()
		for _, e := range entries {
			d := e.Day
			if _, err := st.ExecContext(ctx, int(d.Day), d.Code.String(), d.Status, d.Freq, d.Bars, boolInt(d.OpensGiven),
				d.Source, d.Reason, d.At.UnixMilli(), d.Origin); err != nil {
				return classify(err, "store archive days")
			}
		}
		return nil
	})
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ArchiveDays are the records of day, in code order.
func (s *Store) ArchiveDays(ctx context.Context, day market.Day) ([]ArchiveDay, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT code, status, freq, bars, opens, source, reason, checked_at, origin FROM archive_days
		WHERE day = ? ORDER BY code`, int(day))
	if err != nil {
		return nil, classify(err, "read archive days")
	}
	defer rows.Close()
	var out []ArchiveDay
	for rows.Next() {
		d := ArchiveDay{Day: day}
		var code string
		var opens int
		var at int64
		if err := rows.Scan(&code, &d.Status, &d.Freq, &d.Bars, &opens, &d.Source, &d.Reason, &at, &d.Origin); err != nil {
			return nil, classify(err, "read archive days")
		}
		if d.Code, err = market.ParseCode(code); err != nil {
			return nil, market.Wrap(market.KindInternal, err, "archive_days holds code %q", code)
		}
		d.OpensGiven, d.At = opens == 1, time.UnixMilli(at)
		out = append(out, d)
	}
	return out, classify(rows.Err(), "read archive days")
}

// ArchiveSummary is the archive's count of one day.
type ArchiveSummary struct {
	Day                     market.Day
	Archived, Flagged, Gaps int
	Bars                    int64
	DerivedOpens            int // codes whose opens the source did not give
	FiveMinuteOnly          int
	Merged                  int // code-days a merge filled from another archive
}

// ArchiveSummaries count every day the archive dealt with, oldest first.
func (s *Store) ArchiveSummaries(ctx context.Context) ([]ArchiveSummary, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT day, sum(CASE WHEN status = 'archived' THEN 1 ELSE 0 END),
		sum(CASE WHEN status = 'flagged' THEN 1 ELSE 0 END), sum(CASE WHEN status = 'gap' THEN 1 ELSE 0 END), sum(bars),
		sum(CASE WHEN status <> 'gap' AND opens = 0 THEN 1 ELSE 0 END), sum(CASE WHEN freq = 5 THEN 1 ELSE 0 END),
		sum(CASE WHEN origin <> '' THEN 1 ELSE 0 END)
		FROM archive_days GROUP BY day ORDER BY day`)
	if err != nil {
		return nil, classify(err, "read the archive")
	}
	defer rows.Close()
	var out []ArchiveSummary
	for rows.Next() {
		var a ArchiveSummary
		var day int64
		if err := rows.Scan(&day, &a.Archived, &a.Flagged, &a.Gaps, &a.Bars, &a.DerivedOpens, &a.FiveMinuteOnly, &a.Merged); err != nil {
			return nil, classify(err, "read the archive")
		}
		a.Day = market.Day(day)
		out = append(out, a)
	}
	return out, classify(rows.Err(), "read the archive")
}

// MinuteBars counts the bars the packed minute store holds, all codes and
// both intraday frequencies, from the index minute_days_day alone (schema
// 22 put the count in it): the table's 1.7 KB rows are not read.
func (s *Store) MinuteBars(ctx context.Context) (int64, error) {
	var n sql.NullInt64
	err := s.r.QueryRowContext(ctx, `SELECT sum(bars) FROM minute_days`).Scan(&n)
	return n.Int64, classify(err, "count the minute store")
}

// MinuteBytes is the space the packed minute store takes, table and
// indexes: SQLite's pages of them (dbstat), PostgreSQL's total relation
// size. ok is false where the engine cannot say.
func (s *Store) MinuteBytes(ctx context.Context) (n int64, ok bool, err error) {
	// aggregate: one row a b-tree, not one a page (half the time).
	q := `SELECT sum(pgsize) FROM dbstat WHERE name IN (SELECT name FROM sqlite_master WHERE tbl_name = 'minute_days') AND aggregate = TRUE`
	if s.dialect == postgresDialect {
		q = `SELECT pg_total_relation_size('minute_days')`
	}
	var size sql.NullInt64
	if err := s.r.QueryRowContext(ctx, q).Scan(&size); err != nil {
		return 0, false, classify(err, "measure the minute store")
	}
	return size.Int64, size.Valid, nil
}

// ArchiveFirstDay is the first day the archive dealt with; ok is false
// while it has dealt with none.
func (s *Store) ArchiveFirstDay(ctx context.Context) (market.Day, bool, error) {
	var day sql.NullInt64
	err := s.r.QueryRowContext(ctx, `SELECT min(day) FROM archive_days`).Scan(&day)
	return market.Day(day.Int64), day.Valid, classify(err, "read the archive")
}

// SetArchiveChecks rewrites the status, reason and time of records a
// verification checked again, in one transaction.
func (s *Store) SetArchiveChecks(ctx context.Context, days []ArchiveDay) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		st, err := tx.PrepareContext(ctx, `UPDATE archive_days SET status = ?, reason = ?, checked_at = ? WHERE day = ? AND code = ?`)
		if err != nil {
			return classify(err, "store archive checks")
		}
		defer st.Close()
		for _, d := range days {
			if _, err := st.ExecContext(ctx, d.Status, d.Reason, d.At.UnixMilli(), int(d.Day), d.Code.String()); err != nil {
				return classify(err, "store archive checks")
			}
		}
		return nil
	})
}
