package db

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"mdqs/internal/auth"
	"mdqs/internal/market"
)

const clientColumns = `id, secret_hash, scopes, enabled, expires_at, api_key_hash, enable_log, created_at, updated_at`

// PutClient creates a client or replaces one with the same id. Replacing
// revokes every token of the old one: a new secret must lock out whoever held
// the old one. It reports whether a client was replaced.
func (s *Store) PutClient(ctx context.Context, c auth.Client) (replaced bool, err error) {
	err = s.write(ctx, func(tx *sql.Tx) error {
		var one int
		switch err := tx.QueryRowContext(ctx, `SELECT 1 FROM clients WHERE id = ?`, c.ID).Scan(&one); {
		case err == nil:
			replaced = true
		case !errors.Is(err, sql.ErrNoRows):
			return classify(err, "find client")
		}
		if replaced {
			if _, err := tx.ExecContext(ctx, `DELETE FROM tokens WHERE client_id = ?`, c.ID); err != nil {
				return classify(err, "revoke tokens")
			}
			_, err := tx.ExecContext(ctx, `UPDATE clients SET secret_hash = ?, scopes = ?, enabled = ?, expires_at = ?,
				api_key_hash = ?, enable_log = ?, updated_at = ? WHERE id = ?`,
				c.SecretHash, int64(c.Scopes), flag(c.Enabled), nullTime(c.ExpiresAt), nullString(c.APIKeyHash), flag(c.EnableLog),
				c.UpdatedAt.UnixMilli(), c.ID)
			if err != nil {
				return classify(err, "update client")
			}
		} else {
			_, err := tx.ExecContext(ctx, `INSERT INTO clients(`+clientColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				c.ID, c.SecretHash, int64(c.Scopes), flag(c.Enabled), nullTime(c.ExpiresAt), nullString(c.APIKeyHash), flag(c.EnableLog),
				c.CreatedAt.UnixMilli(), c.UpdatedAt.UnixMilli())
			if err != nil {
				return classify(err, "insert client")
			}
		}
		return bumpAuthRevision(ctx, tx)
	})
	return replaced, err
}

// SetClientEnabled enables or disables a client. Disabling also deletes its
// tokens. A missing client is a not-found error.
func (s *Store) SetClientEnabled(ctx context.Context, id string, enabled bool, now time.Time) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE clients SET enabled = ?, updated_at = ? WHERE id = ?`, flag(enabled), now.UnixMilli(), id)
		if err != nil {
			return classify(err, "update client")
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return market.Errorf(market.KindNotFound, "no client %q", id)
		}
		if !enabled {
			if _, err := tx.ExecContext(ctx, `DELETE FROM tokens WHERE client_id = ?`, id); err != nil {
				return classify(err, "revoke tokens")
			}
		}
		return bumpAuthRevision(ctx, tx)
	})
}

// Client reads one client; a missing one is a not-found error.
func (s *Store) Client(ctx context.Context, id string) (auth.Client, error) {
	row := s.r.QueryRowContext(ctx, `SELECT `+clientColumns+` FROM clients WHERE id = ?`, id)
	c, err := scanClient(row)
	if errors.Is(err, sql.ErrNoRows) {
		return auth.Client{}, market.Errorf(market.KindNotFound, "no client %q", id)
	}
	return c, classify(err, "read client")
}

// Clients lists every client with its count of unexpired tokens.
func (s *Store) Clients(ctx context.Context, now time.Time) ([]auth.ClientInfo, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+clientColumns+`,
		(SELECT count(*) FROM tokens t WHERE t.client_id = clients.id AND t.expires_at > ?)
		FROM clients ORDER BY id`, now.UnixMilli())
	if err != nil {
		return nil, classify(err, "list clients")
	}
	defer rows.Close()
	var out []auth.ClientInfo
	for rows.Next() {
		var info auth.ClientInfo
		c, err := scanClient(rows, &info.LiveTokens)
		if err != nil {
			return nil, classify(err, "list clients")
		}
		info.Client = c
		out = append(out, info)
	}
	return out, classify(rows.Err(), "list clients")
}

// AuthRevision moves whenever any client changes, in this process or another.
func (s *Store) AuthRevision(ctx context.Context) (int64, error) {
	var v int64
	err := s.r.QueryRowContext(ctx, `SELECT value FROM counters WHERE name = 'auth_revision'`).Scan(&v)
	return v, classify(err, "read auth revision")
}

func bumpAuthRevision(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `UPDATE counters SET value = value + 1 WHERE name = 'auth_revision'`)
	return classify(err, "bump auth revision")
}

type scanner interface{ Scan(dest ...any) error }

func scanClient(row scanner, extra ...any) (auth.Client, error) {
	var c auth.Client
	var scopes int64
	var expires sql.NullInt64
	var apiKey sql.NullString
	var created, updated int64
	dest := append([]any{&c.ID, &c.SecretHash, &scopes, &c.Enabled, &expires, &apiKey, &c.EnableLog, &created, &updated}, extra...)
	if err := row.Scan(dest...); err != nil {
		return auth.Client{}, err
	}
	c.Scopes = auth.Scopes(scopes)
	if expires.Valid {
		c.ExpiresAt = time.UnixMilli(expires.Int64)
	}
	c.APIKeyHash = apiKey.String
	c.CreatedAt, c.UpdatedAt = time.UnixMilli(created), time.UnixMilli(updated)
	return c, nil
}

func nullTime(t time.Time) sql.NullInt64 {
	return sql.NullInt64{Int64: t.UnixMilli(), Valid: !t.IsZero()}
}

func nullString(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }
