// Package cli implements mdqs's commands other than serve: client
// administration (add, list, disable, enable) and `call`, the reference
// client that signs a request and prints the answer.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"mdqs/config"
	"mdqs/db"
	"mdqs/market"
)

// Env is what a command may touch of the outside world.
type Env struct {
	Stdin   io.Reader
	Stdout  io.Writer
	Stderr  io.Writer
	Getenv  func(string) string
	Schema  string // schema.sql, embedded by main
	Version string
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

// newFlags builds a flag set that reports errors instead of exiting.
func newFlags(name string, env Env) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	return fs
}

func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return &ExitError{Code: 0, Err: err}
		}
		return &ExitError{Code: 2, Err: err}
	}
	return nil
}

// openStore opens the database a command that holds no market data works
// on (clients, the calendar): -db when given, else the configuration's.
func openStore(ctx context.Context, env Env, configPath, dbPath string) (*db.Store, error) {
	if dbPath == "" {
		cfg, _, err := config.Load(configPath)
		if err != nil {
			return nil, err
		}
		dbPath = cfg.DBPath()
	}
	return db.Open(ctx, dbPath, env.Schema, db.Options{Readers: 1, BusyTimeout: commandBusyTimeout})
}

// commandBusyTimeout is how long a command waits for the write lock of a
// database a server is using. A server importing or seeding writes one
// large transaction after another, and SQLite's busy handler only polls,
// so a short wait can miss every gap between them; a person at the
// command line would rather wait than retry.
const commandBusyTimeout = time.Minute

// openConfigured loads the configuration (-config, else ./config.toml, else
// the built-in defaults), points it at -db when given, and opens that store
// for the market the configuration's mode serves, as the server would.
func openConfigured(ctx context.Context, env Env, configPath, dbPath string, readers int) (config.Config, *db.Store, error) {
	return openFor(ctx, env, configPath, dbPath, readers, "")
}

// openFor is openConfigured for a command whose data belong to one market
// whatever the mode (the terminal's files are live data); "" follows the
// mode. A live store of a demo-mode configuration is its live file.
func openFor(ctx context.Context, env Env, configPath, dbPath string, readers int, want string) (config.Config, *db.Store, error) {
	cfg, _, err := config.Load(configPath)
	if err != nil {
		return config.Config{}, nil, err
	}
	if dbPath != "" {
		cfg.Server.DB = dbPath
	}
	if err := cfg.Validate(); err != nil {
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
	store, err := db.Open(ctx, path, env.Schema, db.Options{Readers: readers, BusyTimeout: commandBusyTimeout, Market: want})
	if err != nil {
		return config.Config{}, nil, err
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
