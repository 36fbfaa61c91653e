package db

import (
	"context"
	"database/sql"
	"time"

	"mdqs/internal/market"
)

// Stock is a security the service knows.
type Stock struct {
	Code        market.Code
	Name        string
	Type        market.SecurityType
	Industry    string
	Listed      market.Day // 0: unknown
	FloatShares float64    // NaN: unknown
	Source      string
}

// UpsertStocks creates or refreshes securities in one transaction.
func (s *Store) UpsertStocks(ctx context.Context, list []Stock, now time.Time) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO stocks(code, name, exchange, type, industry, listed_day, float_shares, source, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(code) DO UPDATE SET name = excluded.name, type = excluded.type,
			industry = CASE WHEN excluded.industry != '' THEN excluded.industry ELSE stocks.industry END,
			listed_day = coalesce(excluded.listed_day, stocks.listed_day),
			float_shares = coalesce(excluded.float_shares, stocks.float_shares),
			source = excluded.source, updated_at = excluded.updated_at
			WHERE stocks.name IS DISTINCT FROM excluded.name OR stocks.type IS DISTINCT FROM excluded.type
			OR excluded.industry != stocks.industry OR excluded.listed_day IS DISTINCT FROM stocks.listed_day
			OR excluded.float_shares IS DISTINCT FROM stocks.float_shares`)
		if err != nil {
			return classify(err, "prepare stock upsert")
		}
		defer stmt.Close()
		for _, st := range list {
			var listed sql.NullInt64
			if st.Listed != 0 {
				listed = sql.NullInt64{Int64: int64(st.Listed), Valid: true}
			}
			if _, err := stmt.ExecContext(ctx, st.Code.String(), st.Name, string(st.Code.Exchange), string(st.Type), st.Industry,
				listed, nullFloat(st.FloatShares), st.Source, now.UnixMilli()); err != nil {
				return classify(err, "upsert stock")
			}
		}
		return nil
	})
}

// StockNames maps codes to names.
func (s *Store) StockNames(ctx context.Context) (map[string]string, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT code, name FROM stocks`)
	if err != nil {
		return nil, classify(err, "read stock names")
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var code, name string
		if err := rows.Scan(&code, &name); err != nil {
			return nil, classify(err, "read stock names")
		}
		out[code] = name
	}
	return out, classify(rows.Err(), "read stock names")
}
