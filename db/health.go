package db

import (
	"context"
	"database/sql"
	"os"
	"time"
)

// Health is what GET /v1/api/health/db reports. It carries no path: the
// file's location can reveal the user's home folder.
type Health struct {
	PingMS        float64   `json:"ping_ms"`
	JournalMode   string    `json:"journal_mode"`
	SchemaVersion int       `json:"schema_version"`
	PageSize      int64     `json:"page_size"`
	PageCount     int64     `json:"page_count"`
	FreePages     int64     `json:"freelist_pages"`
	FileBytes     int64     `json:"file_bytes"`
	WALBytes      int64     `json:"wal_bytes"`
	Readers       PoolStats `json:"readers"`
	Writer        PoolStats `json:"writer"`
	// ReadOnly: the file could only be opened for reading; writes answer 503.
	ReadOnly bool `json:"read_only"`
}

// PoolStats is the part of sql.DBStats worth watching.
type PoolStats struct {
	MaxOpen      int     `json:"max_open"`
	Open         int     `json:"open"`
	InUse        int     `json:"in_use"`
	WaitCount    int64   `json:"wait_count"`
	WaitMS       float64 `json:"wait_ms"`
	MaxIdleClose int64   `json:"max_idle_closed"`
}

func poolStats(db *sql.DB) PoolStats {
	st := db.Stats()
	return PoolStats{
		MaxOpen: st.MaxOpenConnections, Open: st.OpenConnections, InUse: st.InUse,
		WaitCount: st.WaitCount, WaitMS: float64(st.WaitDuration.Microseconds()) / 1000, MaxIdleClose: st.MaxIdleClosed,
	}
}

// Health pings a reader and reads the file's vital signs.
func (s *Store) Health(ctx context.Context) (Health, error) {
	h := Health{SchemaVersion: s.schema, Readers: poolStats(s.r), Writer: poolStats(s.w), ReadOnly: s.readOnly}
	start := time.Now()
	if err := s.r.PingContext(ctx); err != nil {
		return h, classify(err, "ping")
	}
	var one int
	if err := s.r.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		return h, classify(err, "ping")
	}
	h.PingMS = float64(time.Since(start).Microseconds()) / 1000
	if s.dialect == postgresDialect {
		// The server's figures: its size, and no journal or pages to speak of.
		h.JournalMode = "postgresql"
		if err := s.r.QueryRowContext(ctx, `SELECT pg_database_size(current_database())`).Scan(&h.FileBytes); err != nil {
			return h, classify(err, "database size")
		}
		return h, nil
	}
	for _, q := range []struct {
		pragma string
		dest   any
	}{
		{"PRAGMA journal_mode", &h.JournalMode},
		{"PRAGMA page_size", &h.PageSize},
		{"PRAGMA page_count", &h.PageCount},
		{"PRAGMA freelist_count", &h.FreePages},
	} {
		if err := s.r.QueryRowContext(ctx, q.pragma).Scan(q.dest); err != nil {
			return h, classify(err, q.pragma)
		}
	}
	if fi, err := os.Stat(s.path); err == nil {
		h.FileBytes = fi.Size()
	}
	if fi, err := os.Stat(s.path + "-wal"); err == nil {
		h.WALBytes = fi.Size()
	}
	return h, nil
}

// Pools are the reader and writer pools' figures, without touching the file.
func (s *Store) Pools() (readers, writer PoolStats) { return poolStats(s.r), poolStats(s.w) }

// Kind is the store's implementation, "sqlite" or "postgresql", for the
// health answers that say what an instance runs on.
func (s *Store) Kind() string {
	if s.dialect == postgresDialect {
		return "postgresql"
	}
	return "sqlite"
}
