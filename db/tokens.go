package db

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"mdqs/internal/auth"
	"mdqs/internal/market"
)

// InsertToken stores a token and, in the same transaction, evicts the
// client's oldest live tokens beyond max (and its expired ones). Because every
// write goes through the one writer connection, concurrent issuances for the
// same client are serialised and the limit holds exactly. It returns the
// hashes it removed, so callers can drop them from caches.
func (s *Store) InsertToken(ctx context.Context, t auth.Token, max int) (evicted []string, err error) {
	err = s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO tokens(hash, client_id, created_at, expires_at) VALUES (?, ?, ?, ?)`,
			t.Hash, t.ClientID, t.CreatedAt.UnixMilli(), t.ExpiresAt.UnixMilli())
		if err != nil {
			return classify(err, "insert token")
		}
		rows, err := tx.QueryContext(ctx, `SELECT id, hash, 0 FROM tokens WHERE client_id = ? AND expires_at <= ?
			UNION ALL
			SELECT id, hash, 1 FROM (SELECT id, hash FROM tokens WHERE client_id = ? AND expires_at > ?
				ORDER BY created_at DESC, id DESC LIMIT 1000000000 OFFSET ?) AS older`,
			t.ClientID, t.CreatedAt.UnixMilli(), t.ClientID, t.CreatedAt.UnixMilli(), max)
		if err != nil {
			return classify(err, "find evictable tokens")
		}
		var ids []int64
		liveEvicted := false
		for rows.Next() {
			var id, live int64
			var hash string
			if err := rows.Scan(&id, &hash, &live); err != nil {
				rows.Close()
				return classify(err, "find evictable tokens")
			}
			ids = append(ids, id)
			evicted = append(evicted, hash)
			liveEvicted = liveEvicted || live == 1
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return classify(err, "find evictable tokens")
		}
		for _, id := range ids {
			if _, err := tx.ExecContext(ctx, `DELETE FROM tokens WHERE id = ?`, id); err != nil {
				return classify(err, "evict token")
			}
		}
		if liveEvicted {
			// Other instances (or processes) hold the evicted token in
			// their caches: the revision tells them to look again.
			return bumpAuthRevision(ctx, tx)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return evicted, nil
}

// TokenByHash finds a token and its client. A missing token is a not-found
// error; expiry is the caller's to judge, against its own clock.
func (s *Store) TokenByHash(ctx context.Context, hash string) (auth.Token, auth.Client, error) {
	row := s.r.QueryRowContext(ctx, `SELECT c.id, c.secret_hash, c.scopes, c.enabled, c.expires_at, c.api_key_hash,
		c.enable_log, c.created_at, c.updated_at, t.created_at, t.expires_at
		FROM tokens t JOIN clients c ON c.id = t.client_id WHERE t.hash = ?`, hash)
	var created, expires int64
	c, err := scanClient(row, &created, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return auth.Token{}, auth.Client{}, market.Errorf(market.KindNotFound, "no such token")
	}
	if err != nil {
		return auth.Token{}, auth.Client{}, classify(err, "read token")
	}
	t := auth.Token{Hash: hash, ClientID: c.ID, CreatedAt: time.UnixMilli(created), ExpiresAt: time.UnixMilli(expires)}
	return t, c, nil
}

// PurgeExpiredTokens deletes tokens that expired before now.
func (s *Store) PurgeExpiredTokens(ctx context.Context, now time.Time) (int64, error) {
	var n int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM tokens WHERE expires_at <= ?`, now.UnixMilli())
		if err != nil {
			return classify(err, "purge tokens")
		}
		n, _ = res.RowsAffected()
		return nil
	})
	return n, err
}
