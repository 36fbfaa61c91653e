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

const migrateStoreUsage = `usage: mdqs migrate-store [-from FILE] -to postgres://USER@HOST[:PORT]/DATABASE [-config FILE]

Copies every table of a SQLite store (bars, clients and tokens, news,
reports, rankings, jobs) into a PostgreSQL database, with a progress bar,
in chunks that each commit: a copy interrupted (Ctrl-C, a lost connection)
goes on where it stopped when run again. It ends by counting every table's
rows on both sides and exits 1 on any difference.

Stop the server on the file first. The target must be a new database (or
schema), or one holding an unfinished copy; the password is best given in
PGPASSWORD rather than on the command line.`

// MigrateStore runs `mdqs migrate-store`: a trader who outgrows one PC
// moves their store to a PostgreSQL server and keeps history and clients.
func MigrateStore(ctx context.Context, env Env, args []string) error {
	fs := newFlags("migrate-store", "migrate-store [-from FILE] -to postgres://... [-config FILE]", env)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), migrateStoreUsage)
		fmt.Fprintln(fs.Output())
		fs.PrintDefaults()
	}
	from := fs.String("from", "", "the SQLite database file (default: server.db of the configuration)")
	to := fs.String("to", "", "the PostgreSQL database, postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=disable]")
	cfgPath := fs.String("config", "", "configuration file (default ./config.toml when present, else the built-in defaults)")
	if err := ParseFlags(env, fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return Usage("mdqs migrate-store: unexpected argument %q", fs.Arg(0))
	}
	if !db.IsPostgres(*to) {
		return Usage("mdqs migrate-store: -to must be a PostgreSQL URL, postgres://USER@HOST[:PORT]/DATABASE")
	}
	src := *from
	if src == "" {
		cfg, _, err := config.Load(env.ConfigInput(*cfgPath))
		if err != nil {
			return err
		}
		src = cfg.DBPath()
	}
	if db.IsPostgres(src) {
		return Usage("mdqs migrate-store: -from must be a SQLite file; %s is a server", db.Redact(src))
	}
	if _, err := checkStore(env, src, false, "give -from with the server's database file"); err != nil {
		return err
	}
	source, err := db.Open(ctx, src, db.Options{Readers: 1, BusyTimeout: commandBusyTimeout, SQLiteSchema: env.SQLiteSchema})
	if err != nil {
		return &ExitError{Code: 1, Err: err}
	}
	defer source.Close()
	target, err := db.Open(ctx, *to, db.Options{Readers: 1})
	if err != nil {
		return &ExitError{Code: 1, Err: err}
	}
	defer target.Close()
	fmt.Fprintf(env.Stderr, "copy %s (schema version %d) into %s\n", src, source.SchemaVersion(), db.Redact(*to))

	start := time.Now()
	var (
		mu sync.Mutex
		m  *meter
	)
	progress := func(table string, copied, total int64) {
		mu.Lock()
		defer mu.Unlock()
		if m == nil {
			m = newMeter(env.Stderr, int(total), "rows", "", start)
		}
		m.update(int(copied), 0)
	}
	stopNote := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if m != nil {
			m.note("interrupted: stopping after the current chunk")
		}
	})
	defer stopNote()
	counts, err := source.CopyTo(ctx, target, db.CopyOptions{Progress: progress})
	mu.Lock()
	if m != nil {
		m.finish()
	}
	copied := 0
	if m != nil {
		copied = m.done
	}
	mu.Unlock()
	if len(counts) > 0 {
		printCounts(env, counts)
	}
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return &ExitError{Code: 130, Err: errors.New("interrupted: the chunks committed are kept; run the same command again to copy the rest")}
	default:
		return &ExitError{Code: 1, Err: err}
	}
	elapsed := time.Since(start)
	fmt.Fprintf(env.Stdout, "copied %s rows in %s", group(copied), roundDuration(elapsed))
	if r, ok := rate(copied, elapsed); ok {
		fmt.Fprintf(env.Stdout, " (%s rows/s)", group(r))
	}
	fmt.Fprintln(env.Stdout, "; every table's rows match.\nServe from it: set server.db to the -to URL in config.toml, or give it as mdqs serve -db URL")
	return nil
}

// printCounts is the copy's check: each table's rows on both sides.
func printCounts(env Env, counts []db.TableCount) {
	fmt.Fprintf(env.Stdout, "%-20s %14s %14s\n", "table", "source rows", "target rows")
	for _, c := range counts {
		mark := ""
		if c.Source != c.Target {
			mark = "  differs"
		}
		fmt.Fprintf(env.Stdout, "%-20s %14s %14s%s\n", c.Table, group(int(c.Source)), group(int(c.Target)), mark)
	}
}
