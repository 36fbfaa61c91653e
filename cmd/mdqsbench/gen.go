package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"time"

	"mdqs/db"
	"mdqs/internal/demo"
	"mdqs/internal/market"
)

const genAbout = `Builds the benchmark database from the demo market: daily bars of every
stock over -years up to -end, plus one full day (-end) of 1-minute bars of
every stock, through db.IngestBars (the store's own upsert, coverage set
with the bars), plus the stocks table. At the defaults that is about 12.7
million daily and 1.27 million minute rows, about 1 GB.

A rerun skips every stock whose coverage already holds the range, so it
writes nothing and is quick; -force offers every bar again (nothing
changes, which measures the idempotent path). Ctrl-C stops between
transactions; a rerun resumes.`

func gen(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("gen", genAbout, stderr)
	path := fs.String("db", "", "database file, or postgres:// URL, to create or complete (required)")
	stocks := fs.Int("stocks", 5300, "stocks in the demo market (50..8000)")
	years := fs.Int("years", 10, "years of daily bars (1..25)")
	seed := fs.Int64("seed", 20240101, "demo market seed (the server's default is 20240101)")
	endArg := fs.String("end", "", "last trading day, YYYY-MM-DD (default: the last complete trading day now)")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "goroutines generating bars")
	txRows := fs.Int("tx-rows", 50_000, "rows per IngestBars call (one transaction)")
	force := fs.Bool("force", false, "offer every bar again even where the coverage holds it")
	if err := parse(fs, args); err != nil {
		return err
	}
	switch {
	case *path == "":
		return usageError{"gen: -db is required"}
	case *stocks < 50 || *stocks > 8000:
		return usageError{"gen: -stocks: want 50..8000"}
	case *years < 1 || *years > 25:
		return usageError{"gen: -years: want 1..25"}
	case *workers < 1 || *txRows < 1:
		return usageError{"gen: -workers and -tx-rows must be positive"}
	}
	end, err := dayFlag("end", *endArg)
	if err != nil {
		return err
	}
	cal := market.DefaultCalendar()
	if end == 0 {
		end = lastCompleteDay(cal, time.Now())
	}
	if !cal.IsTradingDay(end) {
		return usageError{fmt.Sprintf("gen: -end %v is not a trading day", end)}
	}
	from := cal.Next(market.NewDay(end.Year()-*years, end.Month(), end.Dom()))
	m, err := demoMarket(*stocks, *seed, cal, from, fixedClock(end.At(20, 0, 0)))
	if err != nil {
		return err
	}
	store, err := openStore(ctx, *path, db.Options{Readers: 2})
	if err != nil {
		return err
	}
	closed := false
	defer func() {
		if !closed {
			store.Close()
		}
	}()

	list := m.Stocks()
	slices.SortFunc(list, func(a, b demo.Stock) int { return strings.Compare(a.Code.String(), b.Code.String()) })
	if err := saveStocks(ctx, store, list); err != nil {
		return err
	}
	var codes []market.Code
	skipped := 0
	for _, s := range list {
		if !*force {
			d, _, okD, err := store.Coverage(ctx, s.Code, market.Daily)
			if err != nil {
				return err
			}
			m1, _, ok1, err := store.Coverage(ctx, s.Code, market.Min1)
			if err != nil {
				return err
			}
			if okD && ok1 && d.First <= from && d.Last >= end && m1.First <= end && m1.Last >= end {
				skipped++
				continue
			}
		}
		codes = append(codes, s.Code)
	}
	fmt.Fprintf(stdout, "gen: %d stocks (seed %d), daily bars %v..%v and 1m bars of %v, into %s; %d stocks already covered\n",
		len(list), *seed, from, end, end, db.Redact(*path), skipped)

	gctx, cancel := context.WithCancel(ctx)
	defer cancel()
	start := time.Now()
	var (
		total        db.IngestCounts
		daily, min1  int
		inIngest     time.Duration
		pending      []db.BarBatch
		pendingRows  int
		done         int
		committed    int // stocks whose bars are in
		lastProgress = start
	)
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		t0 := time.Now()
		c, err := store.IngestBars(ctx, pending)
		inIngest += time.Since(t0)
		if err != nil {
			return err
		}
		total.Bars += c.Bars
		total.Written += c.Written
		total.Unchanged += c.Unchanged
		committed += len(pending) / 2
		pending, pendingRows = pending[:0], 0
		return nil
	}
	for s := range generate(gctx, m, codes, from, end, true, *workers) {
		if s.err != nil {
			return fmt.Errorf("demo bars of %v: %w", s.code, s.err)
		}
		pending = append(pending,
			db.BarBatch{Code: s.code, Freq: market.Daily, Source: demo.Source, Bars: s.daily, Cover: &db.Span{First: from, Last: end}},
			db.BarBatch{Code: s.code, Freq: market.Min1, Source: demo.Source, Bars: s.min1, Cover: &db.Span{First: end, Last: end}})
		pendingRows += len(s.daily) + len(s.min1)
		daily += len(s.daily)
		min1 += len(s.min1)
		done++
		if pendingRows >= *txRows {
			if err := flush(); err != nil {
				return err
			}
		}
		if time.Since(lastProgress) >= 10*time.Second {
			lastProgress = time.Now()
			el := time.Since(start).Seconds()
			fmt.Fprintf(stderr, "gen: %d/%d stocks, %d rows, %.0f s, %.0f rows/s\n", done, len(codes), total.Bars, el, float64(total.Bars)/el)
		}
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("interrupted: %d of %d stocks committed; rerun to resume: %w", committed, len(codes), err)
	}
	if err := flush(); err != nil {
		return err
	}
	wall := time.Since(start)
	h, err := store.Health(ctx) // a server's database size (a file's is read after Close)
	if err != nil {
		return err
	}
	// Close checkpoints the WAL into the file, so the size below is the
	// whole database.
	closed = true
	if err := store.Close(); err != nil {
		return err
	}
	size := h.FileBytes
	if !db.IsPostgres(*path) {
		size = fileBytes(*path)
	}
	fmt.Fprintf(stdout, "rows offered: %d (%d daily + %d 1m); written %d, unchanged %d\n", total.Bars, daily, min1, total.Written, total.Unchanged)
	fmt.Fprintf(stdout, "wall: %.1f s, %.0f rows/s (generation on %d workers overlapping the ingest)\n", wall.Seconds(), rate(total.Bars, wall), *workers)
	fmt.Fprintf(stdout, "inside db.IngestBars: %.1f s, %.0f rows/s\n", inIngest.Seconds(), rate(total.Bars, inIngest))
	fmt.Fprintf(stdout, "database: %d bytes (%.2f GiB)\n", size, float64(size)/(1<<30))
	return nil
}

// saveStocks fills the stocks table as the end-of-day job would, so the
// database looks like a live one (and `mdqs backfill -codes all` in live
// mode finds every stock).
func saveStocks(ctx context.Context, store *db.Store, list []demo.Stock) error {
	rows := make([]db.Stock, 0, len(list))
	for _, s := range list {
		rows = append(rows, db.Stock{Code: s.Code, Name: s.Name, Type: market.Classify(s.Code), Industry: s.Industry,
			Listed: s.Listed, FloatShares: float64(s.FloatShares), Source: demo.Source})
	}
	return store.UpsertStocks(ctx, rows, time.Now())
}

func rate(n int, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}
