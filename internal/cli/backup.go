package cli

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"mdqs/db"
	"mdqs/internal/config"
)

const backupUsage = `usage: mdqs backup -to FILE [-force] [-db FILE] [-config FILE]

Copies the database into FILE while the server keeps running: no need to
stop it. The copy is the database as it was when the backup began, and a
progress bar shows the copy. Then the copy is checked: SQLite's integrity
check, the schema version, and every table's rows against the database
at that moment. FILE appears only when the copy is complete and checked;
if anything fails (or Ctrl-C), FILE is not written.

An existing FILE is kept unless -force. To restore, stop the server and
copy the backup in place of the database file (docs/backup.md says how).

PostgreSQL: use its own tools, pg_dump or pg_basebackup (docs/backup.md).`

// Backup runs `mdqs backup`: the archive's minutes cannot be fetched again
// once the sources drop them, and they live in one file on one PC.
func Backup(ctx context.Context, env Env, args []string) error {
	fs := newFlags("backup", "backup -to FILE [-force] [-db FILE] [-config FILE]", env)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), backupUsage)
		fmt.Fprintln(fs.Output())
		fs.PrintDefaults()
	}
	to := fs.String("to", "", "the backup file to write, e.g. D:\\backup\\mdqs.db")
	force := fs.Bool("force", false, "replace FILE when it exists")
	sf := addStoreFlags(fs, false)
	if err := ParseFlags(env, fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return Usage("mdqs backup: unexpected argument %q", fs.Arg(0))
	}
	if *to == "" {
		return Usage("mdqs backup: give -to with the backup file to write, e.g. mdqs backup -to D:\\backup\\mdqs.db")
	}
	src := *sf.db
	if src == "" {
		cfg, _, err := config.Load(env.ConfigInput(*sf.config))
		if err != nil {
			return err
		}
		src = cfg.DBPath()
	}
	if db.IsPostgres(src) {
		return Usage("mdqs backup: the database %s is a PostgreSQL server: back it up with PostgreSQL's own tools, "+
			"pg_dump (one database) or pg_basebackup (the whole server); docs/backup.md gives the commands", db.Redact(src))
	}
	if _, err := checkStore(env, src, false, "give -db with the server's database file, or run the command in its folder"); err != nil {
		return err
	}
	*to = absolute(*to)
	fmt.Fprintf(env.Stderr, "back up into %s\n", *to)

	start := time.Now()
	var (
		mu sync.Mutex
		m  *meter
	)
	progress := func(done, total int64) {
		mu.Lock()
		defer mu.Unlock()
		if m == nil {
			m = newMeter(env.Stderr, megabytes(total), "MB", "", start)
		}
		// Full only at the end: the meter draws a full bar at once.
		mb := megabytes(total)
		if done < total {
			mb = min(int(done>>20), mb-1)
		}
		m.update(mb, 0)
		if done == total {
			m.finish()
			fmt.Fprintln(env.Stderr, "checking the copy: SQLite's integrity check, then every table's rows")
		}
	}
	stopNote := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if m != nil {
			m.note("interrupted: stopping")
		}
	})
	defer stopNote()
	rep, err := db.Backup(ctx, src, *to, db.BackupOptions{Progress: progress, Replace: *force, BusyTimeout: commandBusyTimeout})
	mu.Lock()
	if m != nil {
		m.finish()
	}
	mu.Unlock()
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return &ExitError{Code: 130, Err: fmt.Errorf("interrupted: nothing was written to %s", *to)}
	case errors.Is(err, db.ErrBackupExists):
		return &ExitError{Code: 1, Err: fmt.Errorf("%s already exists: add -force to replace it, or give another file name", *to)}
	default:
		return &ExitError{Code: 1, Err: err}
	}
	printBackup(env, *to, rep)
	return nil
}

// printBackup says what was copied and what the check found.
func printBackup(env Env, to string, rep *db.BackupReport) {
	fmt.Fprintf(env.Stdout, "backed up %s into %s in %s\n", sizeText(rep.Bytes), to, roundDuration(rep.Copying))
	fmt.Fprintf(env.Stdout, "checked the copy in %s: SQLite's integrity check ok, schema version %d, %d tables, %s rows, each table's rows as in the database when the backup began\n",
		roundDuration(rep.Checking), rep.Schema, len(rep.Tables), group(int(rep.Rows)))
}

// megabytes is a size in whole MB, at least 1 (the bar's total), rounded
// as sizeText rounds it.
func megabytes(n int64) int {
	return max(int((n+1<<19)>>20), 1)
}

// sizeText is a size in MB (KB below one), as a file manager shows it.
func sizeText(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%.0f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}
