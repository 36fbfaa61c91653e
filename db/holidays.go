package db

import (
	"context"
	"database/sql"

	"mdqs/internal/market"
)

// Holiday is one exchange closure.
type Holiday struct {
	Day  market.Day
	Name string
}

// SaveHolidays stores holidays for whole years: the years present in the
// list replace what the table had for them.
func (s *Store) SaveHolidays(ctx context.Context, list []Holiday) error {
	years := map[int]bool{}
	for _, h := range list {
		years[h.Day.Year()] = true
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		for y := range years {
			if _, err := tx.ExecContext(ctx, `DELETE FROM exchange_holidays WHERE day BETWEEN ? AND ?`, y*10000+101, y*10000+1231); err != nil {
				return classify(err, "clear holidays")
			}
		}
		for _, h := range list {
			if _, err := tx.ExecContext(ctx, `INSERT INTO exchange_holidays(day, name) VALUES (?, ?) ON CONFLICT(day) DO UPDATE SET name = excluded.name`, int(h.Day), h.Name); err != nil {
				return classify(err, "insert holiday")
			}
		}
		return nil
	})
}

// Holidays lists the stored holidays in day order.
func (s *Store) Holidays(ctx context.Context) ([]Holiday, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT day, name FROM exchange_holidays ORDER BY day`)
	if err != nil {
		return nil, classify(err, "read holidays")
	}
	defer rows.Close()
	var out []Holiday
	for rows.Next() {
		var h Holiday
		var d int
		if err := rows.Scan(&d, &h.Name); err != nil {
			return nil, classify(err, "read holidays")
		}
		h.Day = market.Day(d)
		out = append(out, h)
	}
	return out, classify(rows.Err(), "read holidays")
}
