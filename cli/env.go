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

	"mdqs/config"
	"mdqs/db"
)

// Env is what a command may touch of the outside world.
type Env struct {
	Stdin         io.Reader
	Stdout        io.Writer
	Stderr        io.Writer
	Getenv        func(string) string
	Schema        string // schema.sql, embedded by main
	DefaultConfig []byte // config.toml, embedded by main
	Version       string
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

// openStore opens the database a command works on: -db when given, else the
// one the configuration names.
func openStore(ctx context.Context, env Env, configPath, dbPath string) (*db.Store, error) {
	if dbPath == "" {
		cfg, _, err := config.Load(configPath, env.DefaultConfig)
		if err != nil {
			return nil, err
		}
		dbPath = cfg.Server.DB
	}
	return db.Open(ctx, dbPath, env.Schema, db.Options{Readers: 1})
}
