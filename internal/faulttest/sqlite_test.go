package faulttest

import (
	"database/sql"
	"fmt"
	"strconv"

	_ "github.com/jackc/pgx/v5/stdlib" // the pgx driver, to read a PostgreSQL store
	_ "modernc.org/sqlite"
)

// integrityCheck opens a database file the server has left and runs
// PRAGMA integrity_check on it.
func integrityCheck(path string) error {
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return err
	}
	defer db.Close()
	var res string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&res); err != nil {
		return fmt.Errorf("integrity_check: %w", err)
	}
	if res != "ok" {
		return fmt.Errorf("integrity_check = %q", res)
	}
	return nil
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
