package db

import (
	"context"
	"database/sql"
	"errors"

	"mdqs/internal/market"
)

// ReplaceListingDays makes days the listing days source states, in one
// transaction: codes it no longer names lose its row.
func (s *Store) ReplaceListingDays(ctx context.Context, source string, days map[market.Code]market.Day) error {
	if source == "" {
		return market.Errorf(market.KindInvalid, "listing days: no source")
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM listing_days WHERE source = ?`, source); err != nil {
			return classify(err, "replace listing days")
		}
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO listing_days(code, source, day) VALUES (?, ?, ?)`)
		if err != nil {
			return classify(err, "replace listing days")
		}
		defer stmt.Close()
		for code, day := range days {
			if day == 0 {
				continue
			}
			if _, err := stmt.ExecContext(ctx, code.String(), source, int(day)); err != nil {
				return classify(err, "replace listing days")
			}
		}
		return nil
	})
}

// ListingDay is code's listing day and the source that states it; a
// not-found error when none does. A store holds one market's data (demo
// and live never share one), so where two sources state a day the
// earlier counts. An exchange's list of delisted companies comes last:
// the terminal's files state the day a code's own prices start from, and
// they drop a code once it is delisted, which is when the list has it.
func (s *Store) ListingDay(ctx context.Context, code market.Code) (market.Day, string, error) {
	var day int64
	var source string
	err := s.r.QueryRowContext(ctx, `SELECT day, source FROM listing_days WHERE code = ? ORDER BY day, source LIMIT 1`,
		code.String()).Scan(&day, &source)
	if errors.Is(err, sql.ErrNoRows) {
		err = s.r.QueryRowContext(ctx, `SELECT listed_day, source FROM delistings WHERE code = ? AND listed_day IS NOT NULL
			ORDER BY listed_day, source LIMIT 1`, code.String()).Scan(&day, &source)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return 0, "", market.Errorf(market.KindNotFound, "no listing day of %s", code)
	}
	if err != nil {
		return 0, "", classify(err, "read listing day")
	}
	return market.Day(day), source, nil
}
