package db

import (
	"context"
	"database/sql"

	"mdqs/internal/market"
	"mdqs/internal/minutepack"
)

// MinuteDay is one code's bars of one trading day at one intraday
// frequency, as the packed minute store keeps them.
type MinuteDay struct {
	Code   market.Code
	Freq   market.Freq // Min1 or Min5
	Day    market.Day
	Bars   []market.Bar
	Source string
}

// PutMinuteDays stores days, each as one record (internal/minutepack,
// deflated), in one transaction; a day already stored is replaced whole.
func (s *Store) PutMinuteDays(ctx context.Context, days []MinuteDay) error {
	recs := make([][]byte, len(days))
	for i, d := range days {
		if d.Freq != market.Min1 && d.Freq != market.Min5 {
			return market.Errorf(market.KindInvalid, "minute days of %s: freq %s, want 1m or 5m", d.Code, d.Freq)
		}
		rec, err := minutepack.Encode(d.Bars, minutepack.Options{Deflate: true})
		if err != nil {
			return market.Wrap(market.KindInvalid, err, "minute days of %s %s on %s: %v", d.Code, d.Freq, d.Day, err)
		}
		if h, _ := minutepack.Info(rec); h.Day != d.Day {
			return market.Errorf(market.KindInvalid, "minute days of %s: bars of %s filed under %s", d.Code, h.Day, d.Day)
		}
		recs[i] = rec
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO minute_days(code, freq, day, bars, data, source) VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT(code, freq, day) DO UPDATE SET bars = excluded.bars, data = excluded.data, source = excluded.source`)
		if err != nil {
			return classify(err, "store minute days")
		}
		defer stmt.Close()
		for i, d := range days {
			if _, err := stmt.ExecContext(ctx, d.Code.String(), FreqMinutes(d.Freq), int(d.Day), len(d.Bars), recs[i], d.Source); err != nil {
				return classify(err, "store minute days")
			}
		}
		return nil
	})
}

// MinuteDays are code's stored days at freq from from to to (both
// included), oldest first, their bars decoded. A record that does not
// decode is an internal error naming it: the store holds what it wrote.
func (s *Store) MinuteDays(ctx context.Context, code market.Code, freq market.Freq, from, to market.Day) ([]MinuteDay, error) {
	st, err := s.readStmt(ctx, `SELECT day, data, source FROM minute_days WHERE code = ? AND freq = ? AND day >= ? AND day <= ? ORDER BY day`)
	if err != nil {
		return nil, classify(err, "read minute days")
	}
	rows, err := st.QueryContext(ctx, code.String(), FreqMinutes(freq), int(from), int(to))
	if err != nil {
		return nil, classify(err, "read minute days")
	}
	defer rows.Close()
	var out []MinuteDay
	for rows.Next() {
		var day int64
		var data []byte
		d := MinuteDay{Code: code, Freq: freq}
		if err := rows.Scan(&day, &data, &d.Source); err != nil {
			return nil, classify(err, "read minute days")
		}
		d.Day = market.Day(day)
		if d.Bars, err = minutepack.Decode(data); err != nil {
			return nil, market.Wrap(market.KindInternal, err, "the stored minute day of %s %s on %s: %v", code, freq, d.Day, err)
		}
		out = append(out, d)
	}
	return out, classify(rows.Err(), "read minute days")
}
