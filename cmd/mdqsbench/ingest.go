package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"mdqs/db"
	"mdqs/internal/checkout"
	"mdqs/internal/demo"
	"mdqs/internal/market"
)

const ingestAbout = `Measures the ingest rate of db.IngestBars against the sqlite3 command-line
tool's .import of the same rows, in the same run, and prints their ratio
(goal: at least 0.5).

The rows are the demo market's daily bars of whole stocks, ten years each,
in key order, until -rows. The Go side stores them with db.IngestBars in
calls of -tx-rows rows (one transaction each) into a fresh database with
the full schema; its time runs from the first call to the end of the
store's Close (which checkpoints the WAL into the file). The CLI side gets
the same rows as a CSV (columns and integer prices exactly as the store
writes them; written before the clock starts) and runs, as one timed
process, PRAGMA journal_mode=WAL and synchronous=NORMAL (the store's
settings), the store's CREATE TABLE bars, then BEGIN; .import --csv
--skip 0 FILE bars; COMMIT. Both databases are checked to hold the same
rows. The Go side then offers the same rows again (nothing is written: the
idempotent path).

-variants also times a copy of the store's upsert with other rows per
statement and per transaction (and a plain INSERT for scale).`

func ingest(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("ingest", ingestAbout, stderr)
	rows := fs.Int("rows", 1_000_000, "rows to ingest")
	txRows := fs.Int("tx-rows", 50_000, "rows per db.IngestBars call (one transaction)")
	dir := fs.String("dir", "", "directory for the databases and the CSV (default: a new temporary one, removed after)")
	keep := fs.Bool("keep", false, "keep the temporary directory")
	sqlite3 := fs.String("sqlite3", "sqlite3", "the sqlite3 command-line tool")
	variants := fs.Bool("variants", false, "also time rows-per-statement and rows-per-transaction variants")
	repeat := fs.Int("repeat", 3, "rounds (medians are reported)")
	seed := fs.Int64("seed", 20240101, "demo market seed")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *rows < 1 || *txRows < 1 || *repeat < 1 {
		return usageError{"ingest: -rows, -tx-rows and -repeat must be positive"}
	}
	schema, err := checkout.SQLiteSchema()
	if err != nil {
		return err
	}
	ddl, err := barsDDL(schema)
	if err != nil {
		return err
	}
	cliPath, err := exec.LookPath(*sqlite3)
	if err != nil {
		return fmt.Errorf("the sqlite3 command-line tool is needed for the comparison (apt-get install sqlite3): %w", err)
	}
	work := *dir
	if work == "" {
		if work, err = os.MkdirTemp("", "mdqsbench-ingest-"); err != nil {
			return err
		}
		if !*keep {
			defer os.RemoveAll(work)
		}
	} else if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}

	t0 := time.Now()
	batches, err := benchRows(ctx, *rows, *seed)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "rows: %d daily bars of %d stocks from the demo market (generated in %.1f s)\n", *rows, len(batches), time.Since(t0).Seconds())

	csvPath := filepath.Join(work, "bars.csv")
	if err := writeCSV(csvPath, batches); err != nil {
		return err
	}
	goDB, cliDB := filepath.Join(work, "go.db"), filepath.Join(work, "cli.db")
	// Rounds interleave the contenders so that a noisy neighbour on a
	// shared machine slows all of them alike; medians are reported.
	var goT, againT, walT, defT []time.Duration
	var again db.IngestCounts
	same := true
	for round := range *repeat {
		removeDB(goDB)
		d, c, err := ingestGo(ctx, goDB, batches, *txRows)
		if err != nil {
			return err
		}
		if c.Written != *rows {
			return fmt.Errorf("db.IngestBars wrote %d of %d rows into a fresh database", c.Written, *rows)
		}
		goT = append(goT, d)
		if d, again, err = ingestGo(ctx, goDB, batches, *txRows); err != nil {
			return err
		}
		againT = append(againT, d)
		for _, wal := range []bool{true, false} {
			removeDB(cliDB)
			d, err := importCLI(ctx, cliPath, cliDB, ddl, csvPath, wal)
			if err != nil {
				return err
			}
			if wal {
				walT = append(walT, d)
				continue
			}
			defT = append(defT, d)
			ok, err := sameBars(ctx, goDB, cliDB)
			if err != nil {
				return err
			}
			same = same && ok
		}
		fmt.Fprintf(stderr, "round %d: Go %.2f s, re-ingest %.2f s, CLI (WAL) %.2f s, CLI (defaults) %.2f s\n",
			round+1, goT[round].Seconds(), againT[round].Seconds(), walT[round].Seconds(), defT[round].Seconds())
	}
	if !same {
		return errors.New("the two databases do not hold the same rows: the comparison is void")
	}

	goRate := rate(*rows, median(goT))
	fmt.Fprintf(stdout, "Go side: db.IngestBars on modernc.org/sqlite (SQLite %s)\n", sqliteVersion(ctx, goDB))
	walRate, defRate := rate(*rows, median(walT)), rate(*rows, median(defT))
	fmt.Fprintf(stdout, "medians of %d rounds; both sides hold the same rows (count and column sums checked)\n", *repeat)
	fmt.Fprintf(stdout, "db.IngestBars, %d rows per call:                 %.2f s  %7.0f rows/s  file %d bytes\n",
		*txRows, median(goT).Seconds(), goRate, fileBytes(goDB))
	fmt.Fprintf(stdout, "sqlite3 %s .import, WAL + synchronous=NORMAL:   %.2f s  %7.0f rows/s  ratio Go/CLI %.2f\n",
		cliVersion(ctx, cliPath), median(walT).Seconds(), walRate, goRate/walRate)
	fmt.Fprintf(stdout, "sqlite3 %s .import, its defaults (rollback journal, synchronous=FULL): %.2f s  %7.0f rows/s  ratio Go/CLI %.2f  file %d bytes\n",
		cliVersion(ctx, cliPath), median(defT).Seconds(), defRate, goRate/defRate, fileBytes(cliDB))
	fmt.Fprintf(stdout, "ratio against the faster CLI run: %.2f (goal >= 0.5)\n", goRate/max(walRate, defRate))
	fmt.Fprintf(stdout, "re-ingest of the same rows (db.IngestBars): %.2f s  %7.0f rows/s  written %d, unchanged %d\n",
		median(againT).Seconds(), rate(*rows, median(againT)), again.Written, again.Unchanged)
	if *variants {
		return runVariants(ctx, stdout, work, ddl, batches, max(walRate, defRate), *repeat)
	}
	return nil
}

// median of a few timings.
func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// benchRows is the demo market's daily bars of whole stocks, ten years
// each, in code order, cut at n rows.
func benchRows(ctx context.Context, n int, seed int64) ([]db.BarBatch, error) {
	cal := market.DefaultCalendar()
	end := lastCompleteDay(cal, time.Now())
	from := cal.Next(market.NewDay(end.Year()-10, end.Month(), end.Dom()))
	m, err := demoMarket(5300, seed, cal, from, fixedClock(end.At(20, 0, 0)))
	if err != nil {
		return nil, err
	}
	list := m.Stocks()
	codes := make([]market.Code, len(list))
	for i, s := range list {
		codes[i] = s.Code
	}
	slices.SortFunc(codes, func(a, b market.Code) int { return strings.Compare(a.String(), b.String()) })
	gctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var out []db.BarBatch
	have := 0
	for s := range generate(gctx, m, codes, from, end, false, 2) {
		if s.err != nil {
			return nil, fmt.Errorf("demo bars of %v: %w", s.code, s.err)
		}
		bars := s.daily[:min(len(s.daily), n-have)]
		if len(bars) == 0 {
			continue
		}
		out = append(out, db.BarBatch{Code: s.code, Freq: market.Daily, Source: demo.Source, Bars: bars,
			Cover: &db.Span{First: from, Last: end}})
		if have += len(bars); have == n {
			cancel()
			return out, nil
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("the demo market holds only %d daily rows; ask for fewer", have)
}

// ingestGo stores the batches with db.IngestBars in calls of about txRows
// rows; the time runs to the end of Close, whose checkpoint puts the rows
// in the database file, as the sqlite3 process's exit does.
func ingestGo(ctx context.Context, path string, batches []db.BarBatch, txRows int) (time.Duration, db.IngestCounts, error) {
	var total db.IngestCounts
	store, err := openStore(ctx, path, db.Options{Readers: 1})
	if err != nil {
		return 0, total, err
	}
	start := time.Now()
	for _, chunk := range txChunks(batches, txRows) {
		c, err := store.IngestBars(ctx, chunk)
		if err != nil {
			store.Close()
			return 0, total, err
		}
		total.Bars += c.Bars
		total.Written += c.Written
		total.Unchanged += c.Unchanged
	}
	if err := store.Close(); err != nil {
		return 0, total, err
	}
	return time.Since(start), total, nil
}

// txChunks groups whole batches into runs of at least rows rows (the last
// may be smaller): a batch is never split, as a backfill never splits a
// code's bars from its coverage.
func txChunks(batches []db.BarBatch, rows int) [][]db.BarBatch {
	var out [][]db.BarBatch
	start, n := 0, 0
	for i, b := range batches {
		n += len(b.Bars)
		if n >= rows {
			out = append(out, batches[start:i+1])
			start, n = i+1, 0
		}
	}
	if start < len(batches) {
		out = append(out, batches[start:])
	}
	return out
}

// priceUnits is the store's integer price (ten-thousandths of a yuan),
// computed as db/bars.go does.
func priceUnits(v float64) int64 { return int64(math.Round(v * 10_000)) }

// writeCSV writes the rows exactly as the store stores them. A CSV cannot
// carry NULL (an empty field imports as an empty string), so an unknown measure is an
// error: the demo market's daily bars have none.
func writeCSV(path string, batches []db.BarBatch) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var line []byte
	for _, b := range batches {
		code := b.Code.String()
		for _, x := range b.Bars {
			if math.IsNaN(x.TurnoverRate) || math.IsNaN(x.LargeOrderNet) {
				f.Close()
				return fmt.Errorf("%s %v: an unknown measure cannot go into the CSV", code, x.Day)
			}
			line = append(line[:0], code...)
			line = append(line, ",1440,"...)
			line = strconv.AppendInt(line, x.TS, 10)
			line = append(line, ',')
			line = strconv.AppendInt(line, int64(x.Day), 10)
			for _, p := range []float64{x.Open, x.High, x.Low, x.Close} {
				line = append(line, ',')
				line = strconv.AppendInt(line, priceUnits(p), 10)
			}
			line = append(line, ',')
			line = strconv.AppendInt(line, x.Volume, 10)
			for _, v := range []float64{x.Amount, x.TurnoverRate, x.LargeOrderNet} {
				line = append(line, ',')
				line = strconv.AppendFloat(line, v, 'g', -1, 64)
			}
			line = append(line, ',')
			line = append(line, b.Source...)
			line = append(line, '\n')
			w.Write(line)
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// importCLI times one sqlite3 process that creates bars and imports the
// CSV in one transaction, with the store's journal settings (wal) or the
// tool's own defaults.
func importCLI(ctx context.Context, cli, dbPath, ddl, csvPath string, wal bool) (time.Duration, error) {
	script := ddl + "\nBEGIN;\n.import --csv --skip 0 " + strconv.Quote(csvPath) + " bars\nCOMMIT;\n"
	if wal {
		script = "PRAGMA journal_mode=WAL;\nPRAGMA synchronous=NORMAL;\n" + script
	}
	cmd := exec.CommandContext(ctx, cli, "-bail", dbPath)
	cmd.Stdin = strings.NewReader(script)
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("sqlite3 .import: %v: %s", err, bytes.TrimSpace(errOut.Bytes()))
	}
	d := time.Since(start)
	if errOut.Len() > 0 {
		return 0, fmt.Errorf("sqlite3 .import: %s", bytes.TrimSpace(errOut.Bytes()))
	}
	return d, nil
}

func cliVersion(ctx context.Context, cli string) string {
	out, err := exec.CommandContext(ctx, cli, "-version").Output()
	if err != nil {
		return "(version unknown)"
	}
	if f := strings.Fields(string(out)); len(f) > 0 {
		return f[0]
	}
	return "(version unknown)"
}

// sameBars compares the two databases' bars by count and sums of every
// column.
func sameBars(ctx context.Context, a, b string) (bool, error) {
	const q = `SELECT count(*), sum(ts), sum(trade_date), sum(open), sum(high), sum(low), sum(close), sum(volume),
		total(amount), total(turnover_rate), total(large_order_net), count(DISTINCT code), count(DISTINCT source) FROM bars`
	var sums [2][13]float64
	for i, path := range []string{a, b} {
		conn, err := sql.Open("sqlite", path+"?_pragma=query_only(1)")
		if err != nil {
			return false, err
		}
		row := conn.QueryRowContext(ctx, q)
		dest := make([]any, 13)
		for k := range dest {
			dest[k] = &sums[i][k]
		}
		err = row.Scan(dest...)
		conn.Close()
		if err != nil {
			return false, fmt.Errorf("check %s: %w", path, err)
		}
	}
	for k := range sums[0] {
		x, y := sums[0][k], sums[1][k]
		if math.Abs(x-y) > 1e-9*math.Max(math.Abs(x), math.Abs(y)) {
			return false, nil
		}
	}
	return true, nil
}

// sqliteVersion is the SQLite library the Go side links.
func sqliteVersion(ctx context.Context, path string) string {
	conn, err := sql.Open("sqlite", path+"?_pragma=query_only(1)")
	if err != nil {
		return "unknown"
	}
	defer conn.Close()
	var v string
	if conn.QueryRowContext(ctx, "SELECT sqlite_version()").Scan(&v) != nil {
		return "unknown"
	}
	return v
}

func removeDB(path string) {
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		os.Remove(p)
	}
}
