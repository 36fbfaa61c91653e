package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"mdqs/db"
	"mdqs/internal/archive"
	"mdqs/internal/config"
	"mdqs/internal/market"
	"mdqs/internal/secmaster"
	"mdqs/internal/sources"
)

const archiveUsage = `usage: mdqs archive COMMAND [flags]

commands:
  status  what the minute archive holds: each day's codes archived,
          flagged and missing, the days still due, the bars and the
          bytes a bar on disk
  run     archive the due days now (the server's job does it after each
          close): -day YYYY-MM-DD for one day, -codes for some codes
  verify  check every kept day again with what the store holds now (a day
          archived before its daily bar was stored is checked against it)
  merge   fill this store's gaps from another install's archive: -from
          FILE (a colleague's server.db, an older backup) or -from
          postgres://...; each day checked, recorded with where it came
          from, and never a day this store already holds overwritten

Run "mdqs archive COMMAND -h" for a command's flags.`

// Archive runs `mdqs archive status` and `mdqs archive run`.
func Archive(ctx context.Context, env Env, args []string) error {
	sub, rest, err := subcommand(env, "archive", args, archiveUsage)
	if sub == "" {
		return err
	}
	switch sub {
	case "status":
		fs := newFlags("archive status", "archive status [-db FILE] [-config FILE]", env)
		sf := addStoreFlags(fs, false)
		if err := ParseFlags(env, fs, rest); err != nil {
			return err
		}
		svc, store, err := openArchive(ctx, env, sf)
		if err != nil {
			return err
		}
		defer store.Close()
		st, err := svc.Status(ctx)
		if err != nil {
			return err
		}
		printArchiveStatus(env.Stdout, st)
		return nil
	case "run":
		fs := newFlags("archive run", "archive run [-day YYYY-MM-DD] [-codes 600519.SH,...] [-db FILE] [-config FILE]", env)
		dayArg := fs.String("day", "", "one due day, YYYY-MM-DD (default: every due day not archived)")
		codesArg := fs.String("codes", "", "comma-separated codes (default: the day's universe)")
		sf := addStoreFlags(fs, false)
		if err := ParseFlags(env, fs, rest); err != nil {
			return err
		}
		req, err := parseArchiveRun(*dayArg, *codesArg)
		if err != nil {
			return err
		}
		svc, store, err := openArchive(ctx, env, sf)
		if err != nil {
			return err
		}
		defer store.Close()
		return runArchive(ctx, env, svc, req)
	case "verify":
		fs := newFlags("archive verify", "archive verify [-db FILE] [-config FILE]", env)
		sf := addStoreFlags(fs, false)
		if err := ParseFlags(env, fs, rest); err != nil {
			return err
		}
		svc, store, err := openArchive(ctx, env, sf)
		if err != nil {
			return err
		}
		defer store.Close()
		return verifyArchive(ctx, env, svc)
	case "merge":
		fs := newFlags("archive merge", "archive merge -from FILE|postgres://... [-db FILE] [-config FILE]", env)
		from := fs.String("from", "", "the other archive: a store file (opened read-only) or a PostgreSQL URL")
		sf := addStoreFlags(fs, false)
		if err := ParseFlags(env, fs, rest); err != nil {
			return err
		}
		if *from == "" {
			return Usage("mdqs archive merge: -from is required: the store file or PostgreSQL URL of the other archive")
		}
		svc, store, err := openArchive(ctx, env, sf)
		if err != nil {
			return err
		}
		defer store.Close()
		return mergeArchive(ctx, env, svc, store, *from)
	}
	fmt.Fprintln(env.Stderr, archiveUsage)
	return Usage("mdqs archive: unknown command %q", sub)
}

func parseArchiveRun(dayArg, codesArg string) (archive.Request, error) {
	var req archive.Request
	if dayArg != "" {
		d, err := market.ParseDay(dayArg)
		if err != nil {
			return req, Usage("mdqs archive run: -day: %v", err)
		}
		req.Day = d
	}
	if c := strings.TrimSpace(codesArg); c != "" {
		for _, s := range strings.Split(c, ",") {
			code, err := market.ParseCode(s)
			if err != nil {
				return req, Usage("mdqs archive run: -codes: %v", err)
			}
			req.Codes = append(req.Codes, code)
		}
	}
	return req, nil
}

// openArchive builds the archive of the configuration on its store, the
// way the server's job runs it.
func openArchive(ctx context.Context, env Env, sf storeFlags) (*archive.Service, *db.Store, error) {
	cfg, store, err := openConfigured(ctx, env, sf, 2)
	if err != nil {
		return nil, nil, err
	}
	svc, err := buildArchive(ctx, cfg, store, env.Stderr)
	if err != nil {
		store.Close()
		return nil, nil, err
	}
	return svc, store, nil
}

func buildArchive(ctx context.Context, cfg config.Config, store *db.Store, logTo io.Writer) (*archive.Service, error) {
	cal, err := LoadCalendar(ctx, cfg, store)
	if err != nil {
		return nil, err
	}
	clock := market.SystemClock{}
	src, err := sources.New(cfg, cal, clock)
	if err != nil {
		return nil, err
	}
	// The universe is read from the store's record; nothing here records.
	sec := secmaster.New(store, nil, cal, clock, secmaster.Config{RecordAfter: 15*60 + 5})
	log := slog.New(slog.NewTextHandler(logTo, &slog.HandlerOptions{Level: slog.LevelWarn}))
	return archive.FromConfig(cfg, store, src, sec, cal, clock, log), nil
}

func runArchive(ctx context.Context, env Env, svc *archive.Service, req archive.Request) error {
	due := svc.Due()
	fmt.Fprintf(env.Stdout, "archive: due %v to %v\n", due[0], due[len(due)-1])
	var m *meter
	start := time.Now()
	req.Progress = func(done, total, bars int) {
		if m == nil {
			m = newMeter(env.Stdout, total, "codes", "kept", start)
		}
		m.update(done, bars)
	}
	rep, err := svc.Run(ctx, req)
	if m != nil {
		m.finish()
	}
	if market.KindOf(err) == market.KindInvalid {
		return &ExitError{Code: 2, Err: err}
	}
	fmt.Fprintf(env.Stdout, "done: %d codes asked in %d requests; %d code-days archived (%d already held whole), %d flagged, %d gaps; %s bars, %.1f s\n",
		rep.Codes, rep.Requests, rep.Archived, rep.Held, rep.Flagged, rep.Gaps, group(rep.Bars), time.Since(start).Seconds())
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return &ExitError{Code: 130, Err: fmt.Errorf("interrupted: what was fetched is kept; run the same command again to resume")}
	}
	return &ExitError{Code: 1, Err: fmt.Errorf("%w (what was fetched is kept; run the same command again to resume)", err)}
}

func printArchiveStatus(w io.Writer, st archive.Status) {
	fmt.Fprintf(w, "source: %s\n", st.Source)
	fmt.Fprintf(w, "due (the source's window): %v to %v; pending: %s\n", st.Due[0], st.Due[len(st.Due)-1], daysText(st.Pending))
	if len(st.Days) == 0 {
		fmt.Fprintln(w, "no day archived yet")
	} else {
		fmt.Fprintf(w, "%-10s  %8s  %7s  %5s  %11s  %13s\n", "day", "archived", "flagged", "gaps", "bars", "derived opens")
		for _, d := range st.Days {
			fmt.Fprintf(w, "%-10s  %8d  %7d  %5d  %11s  %13d\n", d.Day, d.Archived, d.Flagged, d.Gaps, group(int(d.Bars)), d.DerivedOpens)
		}
	}
	fmt.Fprintf(w, "archived 1-minute bars: %s in %d days\n", group(int(st.Bars)), len(st.Days))
	if st.BytesPerBar > 0 {
		fmt.Fprintf(w, "minute store: %s bars (1m and 5m, every source), %.1f MiB on disk, %.2f bytes a bar\n",
			group(int(st.StoreBars)), float64(st.StoreBytes)/(1<<20), st.BytesPerBar)
	}
}

func daysText(days []market.Day) string {
	if len(days) == 0 {
		return "none"
	}
	s := make([]string, len(days))
	for i, d := range days {
		s[i] = d.String()
	}
	return strings.Join(s, ", ")
}

func verifyArchive(ctx context.Context, env Env, svc *archive.Service) error {
	var m *meter
	start := time.Now()
	rep, err := svc.Verify(ctx, func(done, total int) {
		if m == nil {
			m = newMeter(env.Stdout, total, "days", "checked", start)
		}
		m.update(done, 0)
	})
	if m != nil {
		m.finish()
	}
	fmt.Fprintf(env.Stdout, "verified %d code-days of %d days: %d pass, %d flagged (%d of them with their bars gone), %d without a daily bar to check against; %d records changed, %.1f s\n",
		rep.Checked, rep.Days, rep.Archived, rep.Flagged, rep.Missing, rep.Unchecked, rep.Changed, time.Since(start).Seconds())
	if err != nil {
		return &ExitError{Code: 1, Err: err}
	}
	if rep.Flagged > 0 {
		return &ExitError{Code: 3, Err: fmt.Errorf("%d code-days are flagged: mdqs archive status shows the days, GET /v1/api/archive/status the counts", rep.Flagged)}
	}
	return nil
}

// mergeArchive opens the other archive read-only (nothing in it is
// migrated or written, and it must hold the same market as this store:
// demo bars never enter a live archive) and merges it in.
func mergeArchive(ctx context.Context, env Env, svc *archive.Service, store *db.Store, from string) error {
	origin, here := db.Redact(from), store.Path()
	if !db.IsPostgres(from) {
		origin, here = absolute(from), absolute(here)
	}
	if origin == here {
		return Usage("mdqs archive merge: -from is this store itself")
	}
	if _, err := checkStore(env, from, false, "give -from with the other archive's store file"); err != nil {
		return err
	}
	other, err := db.Open(ctx, from, db.Options{ReadOnly: true, Readers: 1, BusyTimeout: commandBusyTimeout,
		SQLiteSchema: env.SQLiteSchema, Market: store.Market()})
	if err != nil {
		return &ExitError{Code: 1, Err: err}
	}
	defer other.Close()
	var m *meter
	start := time.Now()
	rep, err := svc.Merge(ctx, other, origin, func(done, total int) {
		if m == nil {
			m = newMeter(env.Stdout, total, "days", "", start)
		}
		m.update(done, 0)
	})
	if m != nil {
		m.finish()
	}
	fmt.Fprintf(env.Stdout, "merged from %s: %d days, %d code-days offered; %d filled (%d of them flagged by this store's checks), %d upgraded from 5-minute to 1-minute, %d already held here and left alone, %d without their bars there; %s bars, %.1f s\n",
		origin, rep.Days, rep.Offered, rep.Filled+rep.Upgraded, rep.Flagged, rep.Upgraded, rep.Held, rep.Missing, group(rep.Bars), time.Since(start).Seconds())
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return &ExitError{Code: 130, Err: fmt.Errorf("interrupted: the days merged are kept; run the same command again to go on")}
	}
	return &ExitError{Code: 1, Err: fmt.Errorf("%w (the days merged are kept; run the same command again to go on)", err)}
}
