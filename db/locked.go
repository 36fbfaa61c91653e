package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"

	"mdqs/internal/market"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// LockedError is a write that waited busy_timeout for the SQLite file's
// write lock while another process held it (an `mdqs import` on the same
// file, a second server, a sqlite3 shell left in a transaction). It names
// the holder where the system tells (Linux: /proc/locks).
type LockedError struct {
	Path    string
	PID     int    // the holder's process id; 0 if unknown
	Name    string // its program's name ("mdqs", "sqlite3"); "" if unknown
	Command string // its command line, for the log; "" if unknown
	Err     error  // the driver's SQLITE_BUSY
}

func (e *LockedError) Error() string {
	return fmt.Sprintf("%s is locked by %s", filepath.Base(e.Path), e.holder(true))
}

func (e *LockedError) Unwrap() error { return e.Err }

// holder names the process: its pid and program, and with full its
// command line (logs and the operator's terminal; clients get the name).
func (e *LockedError) holder(full bool) string {
	switch {
	case e.PID > 0 && full && e.Command != "":
		return fmt.Sprintf("another process (pid %d: %s)", e.PID, e.Command)
	case e.PID > 0 && e.Name != "":
		return fmt.Sprintf("another process (pid %d, %s)", e.PID, e.Name)
	case e.PID > 0:
		return fmt.Sprintf("another process (pid %d)", e.PID)
	}
	return "another process (such as an mdqs import or a sqlite3 shell on the same file)"
}

// lockedError describes err, an SQLITE_BUSY of a write on the store's
// file, as a 503 naming the process that holds the lock.
func (s *Store) lockedError(err error) error {
	le := lockedBy(s.path, err)
	return &market.Error{Kind: market.KindUnavailable, Message: market.DefaultMessage(market.KindUnavailable),
		Detail: fmt.Sprintf("the database is locked by %s, which holds its write lock: writes wait until it lets go; reads are served",
			le.holder(false)),
		Err: le}
}

// lockedBy is err (an SQLITE_BUSY on path) with the lock's holder.
func lockedBy(path string, err error) *LockedError {
	le := &LockedError{Path: path, Err: err}
	le.PID = lockHolder(path)
	if le.PID > 0 {
		le.Name, le.Command = processName(le.PID)
	}
	return le
}

// isBusy reports an SQLite "database is locked" (SQLITE_BUSY): another
// connection held the lock for longer than busy_timeout.
func isBusy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY
}

// begin starts a write transaction on conn. On SQLite, a write lock held
// by another process past busy_timeout is a *LockedError naming it; while
// it is held, begin tries without waiting (see Store.lockHeld).
func (s *Store) begin(ctx context.Context, conn *sql.Conn) (*sql.Tx, error) {
	if s.dialect == postgresDialect {
		tx, err := conn.BeginTx(ctx, nil)
		return tx, classify(err, "begin")
	}
	held := s.lockHeld.Load()
	if held {
		if _, err := conn.ExecContext(ctx, "PRAGMA busy_timeout = 0"); err != nil {
			return nil, classify(err, "begin")
		}
	}
	tx, err := conn.BeginTx(ctx, nil)
	if held {
		// Restored even when ctx has ended, or the connection would keep
		// not waiting once the lock is free.
		restore, rctx := fmt.Sprintf("PRAGMA busy_timeout = %d", s.busy.Milliseconds()), context.WithoutCancel(ctx)
		if err == nil {
			if _, err = tx.ExecContext(rctx, restore); err != nil {
				tx.Rollback()
			}
		} else {
			conn.ExecContext(rctx, restore)
		}
	}
	switch {
	case err == nil:
		s.lockHeld.Store(false)
		return tx, nil
	case isBusy(err):
		s.lockHeld.Store(true)
		return nil, s.lockedError(err)
	}
	return nil, classify(err, "begin")
}
