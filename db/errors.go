package db

import (
	"context"
	"database/sql"
	"errors"

	"mdqs/internal/market"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// classify turns a driver error into a market error by SQLite result code,
// never by message text. op names what was being done, for the logs.
func classify(err error, op string) error {
	if err == nil {
		return nil
	}
	var me *market.Error
	if errors.As(err, &me) {
		return err
	}
	if errors.Is(err, sql.ErrNoRows) {
		return market.Wrap(market.KindNotFound, err, "%s", op)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return market.Wrap(market.KindUnavailable, err, "%s: cancelled", op)
	}
	if pe, ok := classifyPostgres(err, op); ok {
		return pe
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff { // primary code; extended codes carry detail above the low byte
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return market.Wrap(market.KindUnavailable, err, "%s: database busy", op)
		case sqlite3.SQLITE_CONSTRAINT:
			return market.Wrap(market.KindConflict, err, "%s", op)
		case sqlite3.SQLITE_FULL:
			return market.Wrap(market.KindUnavailable, err, "%s: disk full", op)
		case sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_IOERR:
			return market.Wrap(market.KindUnavailable, err, "%s: database not writable", op)
		}
	}
	return market.Wrap(market.KindInternal, err, "%s", op)
}
