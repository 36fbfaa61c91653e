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
	step    string // a Go step run after sql in the same transaction ("-- go: NAME"), or ""
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
		if name, ok := strings.CutPrefix(strings.TrimSpace(line), "-- go: "); ok && cur != nil {
			if !knownStep(name) {
				return nil, fmt.Errorf("schema: version %d names Go step %q, which this binary does not have", cur.version, name)
			}
			cur.step = name
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
		applied, err := migrateOne(ctx, w, m)
		if err != nil {
			return current, fmt.Errorf("db: migrate to %d: %w", m.version, err)
		}
		current = max(current, applied)
	}
	return current, nil
}

// migrateOne applies m in one transaction, unless another process has
// since: the transaction is IMMEDIATE (it holds the write lock from its
// start), so the version read inside it is the one it would change, and
// of two servers started together one migrates while the other waits and
// then skips. It returns the version the file is at.
func migrateOne(ctx context.Context, w *sql.DB, m migration) (int, error) {
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	var at int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&at); err != nil {
		return 0, err
	}
	if at >= m.version {
		return at, nil
	}
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return 0, err
	}
	if err := runStep(ctx, tx, m.step); err != nil {
		return 0, err
	}
	// PRAGMA takes no bound parameters; the value is our own integer.
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", m.version)); err != nil {
		return 0, err
	}
	return m.version, tx.Commit()
}

// Go steps are the migrations SQL cannot write, named in the schema's
// section by a line "-- go: NAME" so the file still says what each version
// does; they run inside the section's transaction, after its SQL.
func knownStep(name string) bool { return name == "pack_minute_rows" }

func runStep(ctx context.Context, tx *sql.Tx, name string) error {
	switch name {
	case "":
		return nil
	case "pack_minute_rows":
		return packMinuteRows(ctx, tx)
	}
	return fmt.Errorf("no Go step %q", name)
}
