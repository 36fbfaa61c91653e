package cli

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"mdqs/db"
	"mdqs/internal/bridge"
	"mdqs/internal/market"
)

const importUsage = `usage: mdqs import SOURCE [flags]

sources:
  tdx  the desktop terminal's new or changed files (bars, names, blocks),
       into the live store: mdqs import tdx -dir C:\new_tdx

Run "mdqs import tdx -h" for its flags.`

// Import runs `mdqs import tdx`: what POST /v1/api/refresh does, from the
// command line, with a progress bar. It imports the terminal folder's new
// or changed files (bars, names, blocks) into the database, in batches that
// each commit whole, so an interrupted import (Ctrl-C) keeps what it
// committed and the next run imports the rest. A server may run on the
// same database meanwhile.
func Import(ctx context.Context, env Env, args []string) error {
	sub, rest, err := subcommand(env, "import", args, importUsage)
	if sub == "" {
		return err
	}
	if sub != "tdx" {
		fmt.Fprintln(env.Stderr, importUsage)
		return Usage("mdqs import: unknown source %q (want tdx)", sub)
	}
	fs := newFlags("import tdx", "import tdx [-dir FOLDER] [-db FILE] [-config FILE] [-create]", env)
	dir := fs.String("dir", "", "the terminal's install folder, e.g. C:\\new_tdx (default: tdx.dir of the configuration)")
	sf := storeFlags{
		db:     fs.String("db", "", "database file (default: server.db of the configuration, else the live store mdqs.db: the terminal's files are live data); it must exist"),
		config: fs.String("config", "", "configuration file (default ./config.toml when present, else the built-in defaults)"),
		create: fs.Bool("create", false, "create the database file when it does not exist"),
	}
	if err := ParseFlags(env, fs, rest); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return Usage("mdqs import tdx: unexpected argument %q", fs.Arg(0))
	}
	cfg, store, err := openFor(ctx, env, sf, 1, db.MarketLive)
	if err != nil {
		return err
	}
	defer store.Close()
	folder := *dir
	if folder == "" && !cfg.UsesDemoTerminal() { // the demo terminal is demo data: never a live store's
		folder = cfg.TDX.Dir
	}
	if folder == "" {
		return Usage("mdqs import tdx: no folder: give -dir, or set tdx.dir in config.toml")
	}
	cal, err := LoadCalendar(ctx, cfg, store)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	svc, err := bridge.New(folder, store, cal, market.SystemClock{}, log)
	if err != nil {
		return &ExitError{Code: 1, Err: err}
	}

	// The number of changed files is known once the folder is scanned, so
	// the meter appears with the first file, timed from the start. It
	// counts the bars read: they are written in batches, and a file that
	// changed may hold no new bar (the summary says how many were written).
	start := time.Now()
	var (
		mu sync.Mutex
		m  *meter
	)
	progress := func(done, total int, rep *bridge.Report) {
		mu.Lock()
		defer mu.Unlock()
		if m == nil {
			m = newMeter(env.Stderr, total, "files", "read", start)
		}
		m.update(done, rep.Bars)
	}
	stopNote := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if m != nil {
			m.note("interrupted: stopping after the current batch")
		}
	})
	defer stopNote()
	rep, err := svc.Refresh(ctx, progress)
	mu.Lock()
	if m != nil {
		m.finish()
	}
	mu.Unlock()
	if rep != nil {
		printImport(env, rep)
	}
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return &ExitError{Code: 130, Err: fmt.Errorf("interrupted: the batches committed are kept; run the same command again to import the rest")}
	}
	return &ExitError{Code: 1, Err: err}
}

func printImport(env Env, rep *bridge.Report) {
	fmt.Fprintf(env.Stdout, "scanned %s files, %s changed: %s bar files, %s bars read, %s written, %s names",
		group(rep.FilesScanned), group(rep.FilesChanged), group(rep.BarFiles), group(rep.Bars), group(rep.BarsWritten), group(rep.Names))
	for _, kind := range bridge.BlockKinds() {
		if n, ok := rep.Blocks[kind]; ok {
			fmt.Fprintf(env.Stdout, ", %d %s blocks", n, kind)
		}
	}
	if rep.IndexLists > 0 {
		fmt.Fprintf(env.Stdout, ", %d index member lists", rep.IndexLists)
	}
	if rep.ActionCodesChanged > 0 {
		fmt.Fprintf(env.Stdout, ", %s corporate actions (%s codes changed)", group(rep.Actions), group(rep.ActionCodesChanged))
	}
	fmt.Fprintf(env.Stdout, ", %.1f s\n", rep.Seconds)
	for _, p := range rep.Problems {
		if p.File != "" {
			fmt.Fprintf(env.Stdout, "problem: %s: %s\n", p.File, p.Error)
		} else {
			fmt.Fprintf(env.Stdout, "problem: %s\n", p.Error)
		}
	}
	for _, f := range rep.Flagged {
		fmt.Fprintf(env.Stdout, "flagged: %s: %s (%s records)\n", f.File, f.Reason, group(f.Records))
	}
}
