package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"mdqs/internal/lhb"
	"mdqs/internal/market"
	"mdqs/internal/sources"
)

const lhbUsage = `usage: mdqs lhb COMMAND [flags]

commands:
  backfill  import the dragon-tiger list (龙虎榜) of a range of trading days
            from the configured source (mdqs lhb backfill -from 2026-09-01 -to 2026-09-30)

Run "mdqs lhb backfill -h" for its flags.`

// LHB runs `mdqs lhb backfill`: it imports every trading day of -from..-to
// (default -to: the latest day whose list is out) that the store does not
// hold yet (-force: every day), as the server's lhb job does for its last
// lhb.catch_up_days days, one day per transaction. A day not published
// yet is reported and skipped; a failing day stops the command with exit
// 1, the days before it stored. It works while a server runs on the same
// database.
func LHB(ctx context.Context, env Env, args []string) error {
	sub, rest, err := subcommand(env, "lhb", args, lhbUsage)
	if sub == "" {
		return err
	}
	if sub != "backfill" {
		fmt.Fprintln(env.Stderr, lhbUsage)
		return Usage("mdqs lhb: unknown command %q (want backfill)", sub)
	}
	fs := newFlags("lhb backfill", "lhb backfill -from DAY [-to DAY] [-force] [-db FILE] [-config FILE] [-create]", env)
	fromArg := fs.String("from", "", "first day, YYYY-MM-DD (required)")
	toArg := fs.String("to", "", "last day, YYYY-MM-DD (default: the latest trading day whose list is out)")
	force := fs.Bool("force", false, "import days the store holds again (replacing them)")
	sf := addStoreFlags(fs, true)
	if err := ParseFlags(env, fs, rest); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return Usage("mdqs lhb backfill: unexpected argument %q", fs.Arg(0))
	}
	from, err := market.ParseDay(*fromArg)
	if err != nil {
		return Usage("mdqs lhb backfill: -from is required, a day YYYY-MM-DD: %v", err)
	}
	cfg, store, err := openConfigured(ctx, env, sf, 1)
	if err != nil {
		return err
	}
	defer store.Close()
	clock := market.SystemClock{}
	cal, err := LoadCalendar(ctx, cfg, store)
	if err != nil {
		return err
	}
	src, err := sources.New(cfg, cal, clock)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	svc, err := lhb.FromConfig(cfg, store, src.Demo, cal, nil, clock, log)
	if err != nil {
		return err
	}
	to := market.DayOf(clock.Now())
	if due := svc.Due(clock.Now()); len(due) > 0 {
		to = due[len(due)-1]
	}
	if *toArg != "" {
		if to, err = market.ParseDay(*toArg); err != nil {
			return Usage("mdqs lhb backfill: -to: %v", err)
		}
	}
	if from > to {
		return Usage("mdqs lhb backfill: -from %v is after -to %v", from, to)
	}
	days := 0
	err = svc.Backfill(ctx, from, to, *force, func(r lhb.ImportResult, err error) {
		switch {
		case errors.Is(err, lhb.ErrNotPublished):
			fmt.Fprintf(env.Stdout, "%v: not published yet, skipped\n", r.Day)
		case err != nil:
			fmt.Fprintf(env.Stdout, "%v: failed: %v\n", r.Day, err)
		case r.Listings == 0:
			days++
			fmt.Fprintf(env.Stdout, "%v: no list (recorded) from %s\n", r.Day, svc.Config().Source)
		default:
			days++
			fmt.Fprintf(env.Stdout, "%v: %d listings of %d stocks, %d seats, %d requests to %s\n", r.Day, r.Listings, r.Stocks, r.Seats,
				r.Requests, svc.Config().Source)
		}
	})
	fmt.Fprintf(env.Stdout, "%d days imported of %v..%v\n", days, from, to)
	if err != nil {
		return &ExitError{Code: 1, Err: fmt.Errorf("the backfill stopped: %w", err)}
	}
	return nil
}
