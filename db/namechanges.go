package db

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"mdqs/internal/market"
)

// NameChange is a change of short name an exchange's list states: on Day
// (0 where the list says "-") Code's short name went from Before to After,
// with the list that states it and when it was read.
type NameChange struct {
	Code          market.Code
	Source        string
	Day           market.Day
	Before, After string
	FetchedAt     time.Time
}

// ReplaceNameChanges makes rows what source's list states, in one
// transaction: a change the list no longer states loses its row, another
// list's rows stay. Rows stating one change twice (code, day, new name)
// keep the first.
func (s *Store) ReplaceNameChanges(ctx context.Context, source string, rows []NameChange, now time.Time) error {
	if source == "" {
		return market.Errorf(market.KindInvalid, "name changes: no source")
	}
	type key struct {
		code  market.Code
		day   market.Day
		after string
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM name_changes WHERE source = ?`, source); err != nil {
			return classify(err, "replace name changes")
		}
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO name_changes(code, source, day, name_before, name_after, fetched_at) VALUES (?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return classify(err, "replace name changes")
		}
		defer stmt.Close()
		seen := make(map[key]bool, len(rows))
		for _, r := range rows {
			if r.Code.IsZero() {
				return market.Errorf(market.KindInvalid, "name changes of %s: a row without a code", source)
			}
			k := key{r.Code, r.Day, r.After}
			if seen[k] {
				continue
			}
			seen[k] = true
			if _, err := stmt.ExecContext(ctx, r.Code.String(), source, int64(r.Day), r.Before, r.After, now.UnixMilli()); err != nil {
				return classify(err, "replace name changes")
			}
		}
		return nil
	})
}

// NameChanges are the changes every list states of code, oldest first
// (an unknown day, 0, first), then by source; none is an empty slice: most
// codes never changed their name.
func (s *Store) NameChanges(ctx context.Context, code market.Code) ([]NameChange, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT source, day, name_before, name_after, fetched_at FROM name_changes
		WHERE code = ? ORDER BY day, source, name_after`, code.String())
	if err != nil {
		return nil, classify(err, "read name changes")
	}
	defer rows.Close()
	out := []NameChange{}
	for rows.Next() {
		var day, ms int64
		n := NameChange{Code: code}
		if err := rows.Scan(&n.Source, &day, &n.Before, &n.After, &ms); err != nil {
			return nil, classify(err, "read name changes")
		}
		n.Day, n.FetchedAt = market.Day(day), time.UnixMilli(ms)
		out = append(out, n)
	}
	return out, classify(rows.Err(), "read name changes")
}

// NameChangesFetched is when source's list was last stored; a not-found
// error when it never was (or stated nothing).
func (s *Store) NameChangesFetched(ctx context.Context, source string) (time.Time, error) {
	var ms sql.NullInt64
	err := s.r.QueryRowContext(ctx, `SELECT max(fetched_at) FROM name_changes WHERE source = ?`, source).Scan(&ms)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, classify(err, "read name changes")
	}
	if !ms.Valid {
		return time.Time{}, market.Errorf(market.KindNotFound, "the %s list of short-name changes was never fetched", source)
	}
	return time.UnixMilli(ms.Int64), nil
}
