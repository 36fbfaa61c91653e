// Package cli implements mdqs's commands other than serve: client
// administration (add, list, disable, enable) and `call`, the reference
// client that signs a request and prints the answer.
package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"mdqs/db"
	"mdqs/internal/config"
	"mdqs/internal/market"
)

// Env is what a command may touch of the outside world.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	// Environ is the process environment (os.Environ), whose MDQS_*
	// variables set configuration keys; nil: none (a test's).
	Environ func() []string
	Version string
	// CacheDir is the user's cache folder (os.UserCacheDir), where mdqs
	// call keeps its tokens; nil keeps none.
	CacheDir func() (string, error)
	// SQLiteSchema and ConfigFile are the files package main embeds from
	// the repository's root: schema.sql, which every SQLite store a
	// command opens is migrated to, and config.toml, the shipped defaults
	// `mdqs config defaults` prints.
	SQLiteSchema string
	ConfigFile   []byte
}

// ConfigInput is where a command reads its configuration: -config (or
// MDQS_CONFIG, else ./config.toml), under the environment's MDQS_*
// variables.
func (e Env) ConfigInput(path string) config.Input {
	in := config.Input{Path: path}
	if e.Environ != nil {
		in.Environ = e.Environ()
	}
	return in
}

// ExitError carries a process exit status for main to use.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// Usage marks a command-line mistake (exit status 2).
func Usage(format string, args ...any) error {
	return &ExitError{Code: 2, Err: fmt.Errorf(format, args...)}
}

// newFlags builds a flag set that reports errors instead of exiting. Its
// usage, on -h or after a mistake, is "usage: mdqs " + synopsis, then the
// flags.
func newFlags(name, synopsis string, env Env) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: mdqs "+synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// ParseFlags parses a command's arguments, flags among them in any order
// (mdqs call GET /path -pretty); "--" ends the flags. Afterwards fs.Args()
// holds the other arguments. Help asked for (-h) goes to stdout with exit
// 0; a mistake prints the usage to stderr and exits 2.
func ParseFlags(env Env, fs *flag.FlagSet, args []string) error {
	var msgs bytes.Buffer
	fs.SetOutput(&msgs)
	defer fs.SetOutput(env.Stderr)
	var positional []string
	for {
		err := fs.Parse(args)
		switch {
		case errors.Is(err, flag.ErrHelp):
			env.Stdout.Write(msgs.Bytes())
			return &ExitError{Code: 0, Err: err}
		case err != nil:
			env.Stderr.Write(msgs.Bytes())
			return &ExitError{Code: 2, Err: err}
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			positional = append(positional, rest...)
			break
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
	// Parsing "--" then the arguments leaves them as fs.Args(), and leaves
	// the flags as set.
	return fs.Parse(append([]string{"--"}, positional...))
}

// isHelp reports a request for help where a subcommand is expected.
func isHelp(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help" || arg == "help"
}

// subcommand splits args of a command made of subcommands (client,
// calendar, ...). With no subcommand it prints usage to stderr (exit 2);
// asked for help, to stdout (exit 0); either way sub is "".
func subcommand(env Env, name string, args []string, usage string) (sub string, rest []string, err error) {
	switch {
	case len(args) == 0:
		fmt.Fprintln(env.Stderr, usage)
		return "", nil, Usage("mdqs %s: no command given", name)
	case isHelp(args[0]):
		fmt.Fprintln(env.Stdout, usage)
		return "", nil, nil
	}
	return args[0], args[1:], nil
}

// storeFlags are the flags of a command that opens the store.
type storeFlags struct {
	db, config *string
	create     *bool // nil: the command never creates a store
}

// addStoreFlags adds -db and -config, and -create when the command may
// make a new store when asked.
func addStoreFlags(fs *flag.FlagSet, creatable bool) storeFlags {
	f := storeFlags{
		db:     fs.String("db", "", "database file (default: server.db of the configuration); it must exist"),
		config: fs.String("config", "", "configuration file (default ./config.toml when present, else the built-in defaults)"),
	}
	if creatable {
		f.create = fs.Bool("create", false, "create the database file when it does not exist")
	}
	return f
}

func (f storeFlags) creating() bool { return f.create != nil && *f.create }

// checkStore says which database file a command uses, and refuses a
// missing one unless create: a command run in the wrong folder must not
// leave an empty database there and answer from it. It reports whether the
// file is new.
func checkStore(env Env, path string, create bool, hint string) (isNew bool, err error) {
	if strings.HasPrefix(path, "file:") {
		return false, nil // a URI: SQLite resolves it
	}
	if db.IsPostgres(path) {
		// A server: the store makes its tables on first use, and the
		// database itself is the administrator's to create.
		fmt.Fprintln(env.Stderr, "database "+db.Redact(path))
		return false, nil
	}
	shown := absolute(path)
	_, err = os.Stat(path)
	switch {
	case err == nil:
		fmt.Fprintln(env.Stderr, "database "+shown)
		return false, nil
	case !errors.Is(err, fs.ErrNotExist):
		return false, &ExitError{Code: 1, Err: fmt.Errorf("database %s: %w", shown, err)}
	case !create:
		return false, &ExitError{Code: 1, Err: fmt.Errorf("database %s does not exist: %s", shown, hint)}
	}
	return true, nil
}

// announceCreated says a command made a new store, once it has.
func announceCreated(env Env, path string) {
	fmt.Fprintf(env.Stderr, "created %s (a new database)\n", absolute(path))
}

// absolute is path made absolute, or as it is where the working folder is
// unknown.
func absolute(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

// missingHint is what to do about a missing store, for commands that can
// create one with -create.
const missingHint = "give -db with an existing file, run the command in the folder of the server's database, or add -create to start a new one"

// openStore opens the database a command that holds no market data works
// on (clients, the calendar): -db when given, else the configuration's.
// A missing file is an error unless create.
func openStore(ctx context.Context, env Env, f storeFlags, create bool, hint string) (*db.Store, error) {
	dbPath := *f.db
	if dbPath == "" {
		cfg, _, err := config.Load(env.ConfigInput(*f.config))
		if err != nil {
			return nil, err
		}
		dbPath = cfg.DBPath()
	}
	isNew, err := checkStore(env, dbPath, create, hint)
	if err != nil {
		return nil, err
	}
	store, err := db.Open(ctx, dbPath, db.Options{Readers: 1, BusyTimeout: commandBusyTimeout, SQLiteSchema: env.SQLiteSchema})
	if err == nil && isNew {
		announceCreated(env, dbPath)
	}
	return store, err
}

// commandBusyTimeout is how long a command waits for the write lock of a
// database a server is using. A server importing or seeding writes one
// large transaction after another, and SQLite's busy handler only polls,
// so a short wait can miss every gap between them; a person at the
// command line would rather wait than retry.
const commandBusyTimeout = time.Minute

// openConfigured loads the configuration (-config, else ./config.toml, else
// the built-in defaults), points it at -db when given, and opens that store
// for the market the configuration's mode serves, as the server would. A
// missing file is an error unless -create.
func openConfigured(ctx context.Context, env Env, f storeFlags, readers int) (config.Config, *db.Store, error) {
	return openFor(ctx, env, f, readers, "")
}

// openFor is openConfigured for a command whose data belong to one market
// whatever the mode (the terminal's files are live data); "" follows the
// mode. A live store of a demo-mode configuration is its live file.
func openFor(ctx context.Context, env Env, f storeFlags, readers int, want string) (config.Config, *db.Store, error) {
	cfg, _, err := config.Load(env.ConfigInput(*f.config), func(c *config.Config) {
		if *f.db != "" {
			c.Server.DB = *f.db
		}
	})
	if err != nil {
		return config.Config{}, nil, err
	}
	path := cfg.DBPath()
	switch {
	case want == "" && cfg.DemoMode():
		want = db.MarketDemo
	case want == "":
		want = db.MarketLive
	case want == db.MarketLive && cfg.Server.DB == "":
		path = config.LiveDB
	}
	cfg.Server.DB = path
	isNew, err := checkStore(env, path, f.creating(), missingHint)
	if err != nil {
		return config.Config{}, nil, err
	}
	store, err := db.Open(ctx, path, db.Options{Readers: readers, BusyTimeout: commandBusyTimeout, Market: want, SQLiteSchema: env.SQLiteSchema})
	if err != nil {
		return config.Config{}, nil, err
	}
	if isNew {
		announceCreated(env, path)
	}
	return cfg, store, nil
}

// LoadCalendar is the trading calendar as the server reads it: the
// built-in holiday list, plus market.holidays_file, plus the years
// imported with `mdqs calendar import`.
func LoadCalendar(ctx context.Context, cfg config.Config, store *db.Store) (*market.Calendar, error) {
	cal := market.DefaultCalendar()
	if cfg.Market.HolidaysFile != "" {
		f, err := os.Open(cfg.Market.HolidaysFile)
		if err != nil {
			return nil, fmt.Errorf("market.holidays_file: %w", err)
		}
		defer f.Close()
		if err := cal.Merge(f); err != nil {
			return nil, fmt.Errorf("market.holidays_file: %w", err)
		}
	}
	imported, err := store.Holidays(ctx)
	if err != nil {
		return nil, err
	}
	days := map[market.Day]string{}
	for _, h := range imported {
		days[h.Day] = h.Name
	}
	return cal, cal.Add(days)
}
