package db

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"mdqs/internal/auth"
)

// recordNonce inserts key, or takes over an expired row of it, and
// returns a row only then: a live row is a replay.
const recordNonce = `INSERT INTO nonces(key, expires_at) VALUES (?, ?)
	ON CONFLICT(key) DO UPDATE SET expires_at = excluded.expires_at WHERE nonces.expires_at <= ?
	RETURNING 1`

// RecordNonce records a signed request's nonce key until expires and
// reports whether it was fresh: false when a row for key is live at now
// (a replay, accepted before by this or another process). It is one
// statement, so two processes racing on one key cannot both see it fresh.
// On PostgreSQL it runs outside the store's write lock, which an import
// may hold for seconds, and commits on its own: a unique key is all the
// exclusion it needs. On SQLite it is a write like any other.
func (s *Store) RecordNonce(ctx context.Context, key string, expires, now time.Time) (fresh bool, err error) {
	scan := func(row *sql.Row) error {
		var one int
		err := row.Scan(&one)
		switch {
		case err == nil:
			fresh = true
		case errors.Is(err, sql.ErrNoRows):
			fresh = false
		default:
			return classify(err, "record nonce")
		}
		return nil
	}
	args := []any{key, expires.UnixMilli(), now.UnixMilli()}
	if s.dialect == postgresDialect {
		return fresh, scan(s.w.QueryRowContext(ctx, recordNonce, args...))
	}
	err = s.write(ctx, func(tx *sql.Tx) error { return scan(tx.QueryRowContext(ctx, recordNonce, args...)) })
	return fresh, err
}

// LiveNonces lists the nonces live at now, for a lone server to load
// into its memory at start.
func (s *Store) LiveNonces(ctx context.Context, now time.Time) ([]auth.RecordedNonce, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT key, expires_at FROM nonces WHERE expires_at > ? ORDER BY key`, now.UnixMilli())
	if err != nil {
		return nil, classify(err, "read nonces")
	}
	defer rows.Close()
	var out []auth.RecordedNonce
	for rows.Next() {
		var n auth.RecordedNonce
		var ms int64
		if err := rows.Scan(&n.Key, &ms); err != nil {
			return nil, classify(err, "read nonces")
		}
		n.Expires = time.UnixMilli(ms)
		out = append(out, n)
	}
	if err := rows.Err(); err != nil {
		return nil, classify(err, "read nonces")
	}
	return out, nil
}

// PurgeNonces deletes the nonces expired at now. Like RecordNonce it
// stays outside PostgreSQL's write lock.
func (s *Store) PurgeNonces(ctx context.Context, now time.Time) (int64, error) {
	const purge = `DELETE FROM nonces WHERE expires_at <= ?`
	if s.dialect == postgresDialect {
		res, err := s.w.ExecContext(ctx, purge, now.UnixMilli())
		if err != nil {
			return 0, classify(err, "purge nonces")
		}
		n, _ := res.RowsAffected()
		return n, nil
	}
	var n int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, purge, now.UnixMilli())
		if err != nil {
			return classify(err, "purge nonces")
		}
		n, _ = res.RowsAffected()
		return nil
	})
	return n, err
}
