package db

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"mdqs/internal/market"
)

// Delisting is a code an exchange's list states delisted: the list's last
// short name for it and its days (0 where the list says "-"), with the
// list that states them and when it was read.
type Delisting struct {
	Code      market.Code
	Source    string
	Name      string
	Listed    market.Day
	Delisted  market.Day
	FetchedAt time.Time
}

// ReplaceDelistings makes rows what source's list states, in one
// transaction: a code the list no longer names loses its row, another
// list's rows stay. A code repeated in rows keeps its first row.
func (s *Store) ReplaceDelistings(ctx context.Context, source string, rows []Delisting, now time.Time) error {
	if source == "" {
		return market.Errorf(market.KindInvalid, "delistings: no source")
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM delistings WHERE source = ?`, source); err != nil {
			return classify(err, "replace delistings")
		}
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO delistings(code, source, name, listed_day, delisted_day, fetched_at) VALUES (?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return classify(err, "replace delistings")
		}
		defer stmt.Close()
		seen := make(map[market.Code]bool, len(rows))
		for _, r := range rows {
			if r.Code.IsZero() {
				return market.Errorf(market.KindInvalid, "delistings of %s: a row without a code", source)
			}
			if seen[r.Code] {
				continue
			}
			seen[r.Code] = true
			if _, err := stmt.ExecContext(ctx, r.Code.String(), source, r.Name, nullDay(r.Listed), nullDay(r.Delisted), now.UnixMilli()); err != nil {
				return classify(err, "replace delistings")
			}
		}
		return nil
	})
}

// Delistings are every list's rows, by code and source.
func (s *Store) Delistings(ctx context.Context) ([]Delisting, error) {
	return s.queryDelistings(ctx, `SELECT code, source, name, listed_day, delisted_day, fetched_at FROM delistings ORDER BY code, source`)
}

// Delisting is what the lists state of code, one row per list that names
// it (by source); a not-found error when none does.
func (s *Store) Delisting(ctx context.Context, code market.Code) ([]Delisting, error) {
	out, err := s.queryDelistings(ctx, `SELECT code, source, name, listed_day, delisted_day, fetched_at FROM delistings WHERE code = ? ORDER BY source`, code.String())
	if err == nil && len(out) == 0 {
		return nil, market.Errorf(market.KindNotFound, "no exchange list states %s delisted", code)
	}
	return out, err
}

// DelistingsFetched is when source's list was last stored; a not-found
// error when it never was (or stated nothing).
func (s *Store) DelistingsFetched(ctx context.Context, source string) (time.Time, error) {
	var ms sql.NullInt64
	err := s.r.QueryRowContext(ctx, `SELECT max(fetched_at) FROM delistings WHERE source = ?`, source).Scan(&ms)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, classify(err, "read delistings")
	}
	if !ms.Valid {
		return time.Time{}, market.Errorf(market.KindNotFound, "the %s list of delisted companies was never fetched", source)
	}
	return time.UnixMilli(ms.Int64), nil
}

func (s *Store) queryDelistings(ctx context.Context, query string, args ...any) ([]Delisting, error) {
	rows, err := s.r.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, classify(err, "read delistings")
	}
	defer rows.Close()
	var out []Delisting
	for rows.Next() {
		var code string
		var listed, delisted sql.NullInt64
		var ms int64
		var d Delisting
		if err := rows.Scan(&code, &d.Source, &d.Name, &listed, &delisted, &ms); err != nil {
			return nil, classify(err, "read delistings")
		}
		c, err := market.ParseCode(code)
		if err != nil {
			return nil, market.Wrap(market.KindInternal, err, "a stored code %q", code)
		}
		d.Code, d.Listed, d.Delisted, d.FetchedAt = c, market.Day(listed.Int64), market.Day(delisted.Int64), time.UnixMilli(ms)
		out = append(out, d)
	}
	return out, classify(rows.Err(), "read delistings")
}

// nullDay stores an unknown day (0) as NULL.
func nullDay(d market.Day) sql.NullInt64 {
	return sql.NullInt64{Int64: int64(d), Valid: d != 0}
}
