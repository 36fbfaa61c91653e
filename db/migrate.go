package db

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
)

type migration struct {
	version int
	sql     string
}

// parseSchema splits schema.sql into its "-- version N" sections. Versions
// must start at 1 and follow each other, so a gap or a reordering in the file
// is caught before it touches a database.
func parseSchema(schema string) ([]migration, error) {
	var out []migration
	var cur *migration
	sc := bufio.NewScanner(strings.NewReader(schema))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "-- version "); ok {
			v, err := strconv.Atoi(strings.TrimSpace(rest))
			if err != nil {
				return nil, fmt.Errorf("schema: bad version line %q", line)
			}
			if v != len(out)+1 {
				return nil, fmt.Errorf("schema: version %d follows version %d; versions must count up from 1", v, len(out))
			}
			out = append(out, migration{version: v})
			cur = &out[len(out)-1]
			continue
		}
		if cur != nil {
			cur.sql += line + "\n"
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("schema: no \"-- version N\" section")
	}
	return out, nil
}

// migrate applies every section above the database's user_version, each in
// one transaction with its version bump.
func migrate(ctx context.Context, w *sql.DB, migrations []migration) (int, error) {
	var current int
	if err := w.QueryRowContext(ctx, "PRAGMA user_version").Scan(&current); err != nil {
		return 0, fmt.Errorf("db: read schema version: %w", err)
	}
	latest := migrations[len(migrations)-1].version
	if current > latest {
		return 0, fmt.Errorf("db: the database is at schema version %d, newer than this binary's %d; use a newer mdqs", current, latest)
	}
	for _, m := range migrations[current:] {
		tx, err := w.BeginTx(ctx, nil)
		if err != nil {
			return current, fmt.Errorf("db: migrate to %d: %w", m.version, err)
		}
		if _, err := tx.ExecContext(ctx, m.sql); err != nil {
			tx.Rollback()
			return current, fmt.Errorf("db: migrate to %d: %w", m.version, err)
		}
		// PRAGMA takes no bound parameters; the value is our own integer.
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", m.version)); err != nil {
			tx.Rollback()
			return current, fmt.Errorf("db: migrate to %d: %w", m.version, err)
		}
		if err := tx.Commit(); err != nil {
			return current, fmt.Errorf("db: migrate to %d: %w", m.version, err)
		}
		current = m.version
	}
	return current, nil
}
