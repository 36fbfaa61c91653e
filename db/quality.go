package db

import (
	"context"
	"database/sql"
	"errors"
	"runtime"
	"sync"

	"mdqs/internal/market"
)

// MinuteDaysOn are every code's stored days of day at freq, decoded on
// every core, in code order: what a day's quality report compares.
func (s *Store) MinuteDaysOn(ctx context.Context, day market.Day, freq market.Freq) ([]MinuteDay, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT code, data, source FROM minute_days WHERE day = ? AND freq = ? ORDER BY code`,
		int(day), FreqMinutes(freq))
	if err != nil {
		return nil, classify(err, "read minute days")
	}
	var out []MinuteDay
	var data [][]byte
	for rows.Next() {
		var code string
		var rec []byte
		d := MinuteDay{Day: day, Freq: freq}
		if err := rows.Scan(&code, &rec, &d.Source); err != nil {
			rows.Close()
			return nil, classify(err, "read minute days")
		}
		if d.Code, err = market.ParseCode(code); err != nil {
			rows.Close()
			return nil, market.Wrap(market.KindInternal, err, "minute_days holds code %q", code)
		}
		out, data = append(out, d), append(data, rec)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, classify(err, "read minute days")
	}
	errs := make([]error, len(out))
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	for k := range workers {
		wg.Go(func() {
			for i := k; i < len(out); i += workers {
				out[i].Bars, errs[i] = decodeDay(out[i].Code, freq, day, data[i])
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// MinuteCodesOn are the codes with a stored day of day at freq, without
// reading their records: what a merge must not touch.
func (s *Store) MinuteCodesOn(ctx context.Context, day market.Day, freq market.Freq) (map[market.Code]bool, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT code FROM minute_days WHERE day = ? AND freq = ?`, int(day), FreqMinutes(freq))
	if err != nil {
		return nil, classify(err, "read minute days")
	}
	defer rows.Close()
	out := map[market.Code]bool{}
	for rows.Next() {
		var code string
		if err := rows.Scan(&code); err != nil {
			return nil, classify(err, "read minute days")
		}
		c, err := market.ParseCode(code)
		if err != nil {
			return nil, market.Wrap(market.KindInternal, err, "minute_days holds code %q", code)
		}
		out[c] = true
	}
	return out, classify(rows.Err(), "read minute days")
}

// SourcedBar is a stored bar with the source that stored it.
type SourcedBar struct {
	market.Bar
	Source string
}

// DailyBarsOn are codes' stored daily bars of day with their sources
// (codes without one are left out), one primary-key lookup a code.
func (s *Store) DailyBarsOn(ctx context.Context, day market.Day, codes []market.Code) (map[market.Code]SourcedBar, error) {
	st, err := s.readStmt(ctx, `SELECT ts, open, high, low, close, volume, amount, source FROM bars
		WHERE code = ? AND freq = 1440 AND ts >= ? AND ts <= ?`)
	if err != nil {
		return nil, classify(err, "read daily bars")
	}
	from, to := day.Start().Unix(), day.At(23, 59, 59).Unix()
	out := map[market.Code]SourcedBar{}
	for _, c := range codes {
		var v [7]any
		var b SourcedBar
		err := st.QueryRowContext(ctx, c.String(), from, to).Scan(&v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &b.Source)
		if err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				continue
			}
			return nil, classify(err, "read daily bars")
		}
		b.Bar = market.Bar{Day: day, TS: anyInt(v[0]), Open: fromPrice(anyInt(v[1])), High: fromPrice(anyInt(v[2])),
			Low: fromPrice(anyInt(v[3])), Close: fromPrice(anyInt(v[4])), Volume: anyInt(v[5]), Amount: anyFloat(v[6])}
		out[c] = b
	}
	return out, nil
}
