package cli

import (
	"context"
	"fmt"
	"log/slog"

	"mdqs/internal/finance"
	"mdqs/internal/market"
	"mdqs/internal/sources"
	"mdqs/internal/upstream"
)

const reportsUsage = `usage: mdqs reports COMMAND [flags]

commands:
  import  import financial reports' main indicators from the configured
          source (mdqs reports import -period 2024Q3)

Run "mdqs reports import -h" for its flags.`

// Reports runs `mdqs reports import`: it stores the main indicators of the
// periodic reports from the configured source (EastMoney's data centre, or
// the demo market in demo mode), as the server's finance job does. -period
// imports one period of every stock, -code one stock's every period, both
// together one report; with neither, the -latest N periods (default
// finance.periods). Importing again changes only restated reports; a page
// that fails is reported and the command exits 1. It works while a server
// runs on the same database.
func Reports(ctx context.Context, env Env, args []string) error {
	sub, rest, err := subcommand(env, "reports", args, reportsUsage)
	if sub == "" {
		return err
	}
	if sub != "import" {
		fmt.Fprintln(env.Stderr, reportsUsage)
		return Usage("mdqs reports: unknown command %q (want import)", sub)
	}
	fs := newFlags("reports import", "reports import [-period 2024Q3] [-code 600519.SH] [-latest N] [-db FILE] [-config FILE] [-create]", env)
	periodArg := fs.String("period", "", "report period, 2024Q3 or its period-end day 2024-09-30")
	codeArg := fs.String("code", "", "one stock, 600519.SH, sh600519 or 600519")
	latest := fs.Int("latest", 0, "with neither -period nor -code: the N latest periods (default finance.periods)")
	sf := addStoreFlags(fs, true)
	if err := ParseFlags(env, fs, rest); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return Usage("mdqs reports import: unexpected argument %q", fs.Arg(0))
	}
	var req finance.ImportRequest
	if *periodArg != "" {
		p, err := upstream.PeriodOf(*periodArg)
		if err != nil {
			return Usage("mdqs reports import: -period: %v", err)
		}
		req.Period = p
	}
	if *codeArg != "" {
		c, err := market.ParseCode(*codeArg)
		if err != nil {
			return Usage("mdqs reports import: -code: %v", err)
		}
		req.Code = c
	}
	if *latest < 0 || *latest > 8 {
		return Usage("mdqs reports import: -latest must be 1..8")
	}
	cfg, store, err := openConfigured(ctx, env, sf, 1)
	if err != nil {
		return err
	}
	defer store.Close()
	clock := market.SystemClock{}
	src, err := sources.New(cfg, market.DefaultCalendar(), clock)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	svc, err := finance.FromConfig(cfg, store, src.Demo, nil, clock, log)
	if err != nil {
		return err
	}
	reqs := []finance.ImportRequest{req}
	if req.Period == 0 && req.Code.IsZero() {
		n := *latest
		if n == 0 {
			n = svc.Config().Periods
		}
		reqs = reqs[:0]
		for _, p := range finance.RecentPeriods(market.DayOf(clock.Now()), n) {
			reqs = append(reqs, finance.ImportRequest{Period: p})
		}
	}
	failed := false
	for _, r := range reqs {
		res, err := svc.Import(ctx, r)
		if err != nil {
			fmt.Fprintf(env.Stdout, "%s: failed: %v\n", r.Scope(), err)
			failed = true
			continue
		}
		c := res.Counts
		fmt.Fprintf(env.Stdout, "%s: %d rows in %d pages from %s: %d new, %d updated, %d unchanged\n",
			r.Scope(), res.Fetched, res.Pages, svc.Config().Source, c.Inserted, c.Updated, c.Unchanged)
		for _, f := range res.Failures {
			fmt.Fprintf(env.Stdout, "%s: page %d not stored: %s\n", r.Scope(), f.Page, f.Error)
			failed = true
		}
	}
	if failed {
		return &ExitError{Code: 1, Err: fmt.Errorf("some reports were not imported")}
	}
	return nil
}
