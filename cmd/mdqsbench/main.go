// Command mdqsbench measures mdqs's K-line store and endpoint at
// real-market scale, on whatever machine runs it. It is not part of the
// service and not part of `go test ./...`: its runs take minutes and write
// about a gigabyte.
//
//	go run ./cmd/mdqsbench gen -db /tmp/mdqs-bench.db
//	go run ./cmd/mdqsbench ingest
//	go run ./cmd/mdqsbench kline -db /tmp/mdqs-bench.db
//	go run ./cmd/mdqsbench vipdoc -dir /tmp/fake_tdx
//
// It uses the store's own schema, schema.sql of the checkout it runs in.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"mdqs/internal/market"
)

const usage = `usage: mdqsbench COMMAND [flags]

commands:
  gen     build the benchmark database from the demo market through db.IngestBars:
          daily bars of every stock over -years, plus one full day of 1m bars of
          every stock; prints rows, seconds, rows/s and the file size. A rerun
          skips what is covered and writes nothing.
  ingest  the ingest rate of db.IngestBars against the sqlite3 command-line
          tool's .import of the same rows (a CSV, into bars created from
          schema.sql), in the same run, and their ratio (goal >= 0.5);
          -variants also tries rows per statement and per transaction.
  kline   starts the server in-process over a generated database and sends -n
          signed GET /v1/api/kline requests (one stock, one year of daily bars,
          ma5,ma20): latency p50/p90/p99/max, requests/s, server memory.
  vipdoc  write a generated terminal folder (-files .day files of -bars bars),
          to time "mdqs import tdx -dir" on.

Run "mdqsbench COMMAND -h" for a command's flags.`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
	case errors.As(err, new(usageError)):
		fmt.Fprintln(os.Stderr, "mdqsbench:", err)
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "mdqsbench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return usageError{"no command"}
	}
	cmd, args := args[0], args[1:]
	switch cmd {
	case "gen":
		return gen(ctx, args, stdout, stderr)
	case "ingest":
		return ingest(ctx, args, stdout, stderr)
	case "kline":
		return klineBench(ctx, args, stdout, stderr)
	case "vipdoc":
		return vipdoc(args, stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprintln(stdout, usage)
		return nil
	}
	fmt.Fprintln(stderr, usage)
	return usageError{fmt.Sprintf("unknown command %q", cmd)}
}

// usageError is a command-line mistake (exit status 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// newFlags is a flag set whose -h prints the command's description first.
func newFlags(name, about string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: mdqsbench %s [flags]\n\n%s\n\nflags:\n", name, about)
		fs.PrintDefaults()
	}
	return fs
}

func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("%s: unexpected argument %q", fs.Name(), fs.Arg(0))}
	}
	return nil
}

// barsDDL is schema.sql's CREATE TABLE bars statement, for the sqlite3
// command-line tool's side of the ingest comparison.
func barsDDL(schema string) (string, error) {
	start := strings.Index(schema, "CREATE TABLE bars (")
	if start < 0 {
		return "", errors.New("schema.sql has no CREATE TABLE bars")
	}
	end := strings.Index(schema[start:], ";")
	if end < 0 {
		return "", errors.New("schema.sql: CREATE TABLE bars has no end")
	}
	return schema[start : start+end+1], nil
}

// fixedClock pins the demo market's "now", so the bars it returns (those
// completed by then) do not depend on when the benchmark runs.
type fixedClock time.Time

func (c fixedClock) Now() time.Time { return time.Time(c) }

// lastCompleteDay is the newest trading day whose daily bar is final now:
// today after the 15:00 close, else the trading day before (as
// kline.Service.LastCompleteDay with the default window).
func lastCompleteDay(cal *market.Calendar, now time.Time) market.Day {
	today := market.DayOf(now)
	if cal.IsTradingDay(today) && !now.Before(today.At(15, 0, 0)) {
		return today
	}
	return cal.Prev(today)
}

// dayFlag parses a YYYY-MM-DD flag; empty is zero.
func dayFlag(name, s string) (market.Day, error) {
	if s == "" {
		return 0, nil
	}
	d, err := market.ParseDay(s)
	if err != nil {
		return 0, usageError{fmt.Sprintf("-%s: %v", name, err)}
	}
	return d, nil
}

// fileBytes is the size of a database and its -wal file.
func fileBytes(path string) int64 {
	var n int64
	for _, p := range []string{path, path + "-wal"} {
		if st, err := os.Stat(p); err == nil {
			n += st.Size()
		}
	}
	return n
}
