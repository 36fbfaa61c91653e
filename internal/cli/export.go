package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"mdqs/api"
	"mdqs/db"
	"mdqs/internal/adjust"
	"mdqs/internal/board"
	"mdqs/internal/config"
	"mdqs/internal/corpaction"
	"mdqs/internal/export"
	"mdqs/internal/kline"
	"mdqs/internal/lhb"
	"mdqs/internal/limitpool"
	"mdqs/internal/market"
	"mdqs/internal/quote"
	"mdqs/internal/ranking"
	"mdqs/internal/secmaster"
	"mdqs/internal/sources"
)

const exportUsage = "usage: mdqs export -what bars|minutes|rankings|limit-pools|lhb|index-members -from DAY [-to DAY] -out PATH " +
	"[-format csv|parquet] [-codes all|600519.SH,...] [-freq D|1m|5m] [-adjust none|qfq|hfq] [-qlib] [-store-only] [-db FILE] [-config FILE]"

// The datasets mdqs export writes, and the endpoint whose rows each is
// (bars and minutes stream from the store, the others are the API's
// answers a day at a time).
var exportWhats = []string{"bars", "minutes", "rankings", "limit-pools", "lhb", "index-members"}

// exportRequest is the validated command line.
type exportRequest struct {
	what      string
	codes     []market.Code // nil: all
	freq      market.Freq
	from, to  market.Day // to 0: the last complete day
	format    export.Format
	out       string
	adjust    adjust.Mode
	qlib      bool
	storeOnly bool
	// adjustGiven: -adjust was on the command line (-qlib's default is hfq).
	adjustGiven bool
}

// Export runs `mdqs export`: the store's bars (any frequency, the minute
// archive's), the daily rankings, the limit pools, the dragon-tiger list
// and index members of a range of days, to CSV or Parquet, or (bars) to
// qlib's layout. Where the store lacks a day it is filled as the API
// would fill it (the demo market in demo mode, the sources live), unless
// -store-only, which says what is missing and exits 1 without a file.
func Export(ctx context.Context, env Env, args []string) error {
	fs := newFlags("export", exportUsage[len("usage: mdqs "):], env)
	what := fs.String("what", "bars", "what to export: "+strings.Join(exportWhats, ", "))
	codesArg := fs.String("codes", "all", "bars, minutes: codes (600519.SH, sh600519 or 600519), comma-separated, or all; index-members: index codes, or all observed")
	freqArg := fs.String("freq", "", "bars: D (default), 1m or 5m; minutes: 1m (default) or 5m")
	fromArg := fs.String("from", "", "first day, YYYY-MM-DD (required)")
	toArg := fs.String("to", "", "last day, YYYY-MM-DD (default: the last complete trading day)")
	formatArg := fs.String("format", "", "csv or parquet (default: from -out's extension, else csv)")
	out := fs.String("out", "", "the file to write (with -qlib, a folder) (required)")
	adjustArg := fs.String("adjust", "none", "bars, minutes: none, qfq (前复权) or hfq (后复权), the terminal's method as /v1/api/kline/adjusted; -qlib's default is hfq")
	qlib := fs.Bool("qlib", false, "bars, minutes: qlib's layout, one CSV per code in the folder -out (date,open,high,low,close,volume,amount,factor) for qlib's dump_bin")
	storeOnly := fs.Bool("store-only", false, "export what the store holds and fill nothing: a missing day is listed, the exit status is 1 and no file is written")
	sf := addStoreFlags(fs, false)
	if err := ParseFlags(env, fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return Usage("mdqs export: unexpected argument %q\n%s", fs.Arg(0), exportUsage)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	req, err := parseExport(*what, *codesArg, *freqArg, *fromArg, *toArg, *formatArg, *out, *adjustArg, *qlib, *storeOnly, set)
	if err != nil {
		return err
	}
	cfg, store, err := openConfigured(ctx, env, sf, 2)
	if err != nil {
		return err
	}
	defer store.Close()
	cal, err := LoadCalendar(ctx, cfg, store)
	if err != nil {
		return err
	}
	clock := market.SystemClock{}
	src, err := sources.New(cfg, cal, clock)
	if err != nil {
		return err
	}
	logTo := &meterLog{w: env.Stderr}
	log := slog.New(slog.NewTextHandler(logTo, &slog.HandlerOptions{Level: slog.LevelWarn}))
	x := &exporter{env: env, cfg: cfg, store: store, cal: cal, clock: clock, src: src, log: log, logTo: logTo, req: req}
	if req.what == "bars" || req.what == "minutes" {
		return x.bars(ctx)
	}
	return x.pages(ctx)
}

func parseExport(what, codesArg, freqArg, fromArg, toArg, formatArg, out, adjustArg string, qlib, storeOnly bool, set map[string]bool) (exportRequest, error) {
	req := exportRequest{what: strings.ToLower(strings.TrimSpace(what)), out: out, qlib: qlib, storeOnly: storeOnly, adjustGiven: set["adjust"]}
	if !slices.Contains(exportWhats, req.what) {
		return req, Usage("mdqs export: -what %q: want one of %s", what, strings.Join(exportWhats, ", "))
	}
	bars := req.what == "bars" || req.what == "minutes"
	if out == "" {
		return req, Usage("mdqs export: -out is required (the file to write; with -qlib, a folder)\n%s", exportUsage)
	}
	if fromArg == "" {
		return req, Usage("mdqs export: -from is required (YYYY-MM-DD)\n%s", exportUsage)
	}
	var err error
	if req.from, err = market.ParseDay(fromArg); err != nil {
		return req, Usage("mdqs export: -from: %v", err)
	}
	if toArg != "" {
		if req.to, err = market.ParseDay(toArg); err != nil {
			return req, Usage("mdqs export: -to: %v", err)
		}
		if req.to < req.from {
			return req, Usage("mdqs export: -from %v is after -to %v", req.from, req.to)
		}
	}
	for _, f := range []string{"freq", "adjust", "qlib"} {
		if set[f] && !bars {
			return req, Usage("mdqs export: -%s is for bars and minutes, not %s", f, req.what)
		}
	}
	if set["codes"] && !bars && req.what != "index-members" {
		return req, Usage("mdqs export: -codes is for bars, minutes and index-members, not %s", req.what)
	}
	switch f := strings.TrimSpace(freqArg); {
	case req.what == "minutes" && f == "":
		req.freq = market.Min1
	case req.what == "bars" && f == "":
		req.freq = market.Daily
	case bars:
		if req.freq, err = market.ParseFreq(f); err != nil {
			return req, Usage("mdqs export: -freq: %v", err)
		}
		if req.what == "minutes" && req.freq == market.Daily {
			return req, Usage("mdqs export: -what minutes takes -freq 1m or 5m (daily bars are -what bars)")
		}
	}
	if req.adjust, err = adjust.ParseMode(adjustArg); err != nil {
		return req, Usage("mdqs export: -adjust: %v", err)
	}
	if qlib && !set["adjust"] {
		// qlib's convention is adjusted prices with their factor, and
		// 后复权 keeps the past as it was when events come: a later dump
		// appends to the same history.
		req.adjust = adjust.HFQ
	}
	switch {
	case formatArg != "":
		if req.format, err = export.ParseFormat(formatArg); err != nil {
			return req, Usage("mdqs export: -format: %v", err)
		}
	case strings.EqualFold(filepath.Ext(out), ".parquet"):
		req.format = export.Parquet
	default:
		req.format = export.CSV
	}
	if qlib && req.format == export.Parquet {
		return req, Usage("mdqs export: -qlib writes qlib's CSVs: leave -format out, or csv")
	}
	if c := strings.TrimSpace(codesArg); c != "" && !strings.EqualFold(c, "all") {
		for _, s := range strings.Split(c, ",") {
			code, err := market.ParseCode(s)
			if err != nil {
				return req, Usage("mdqs export: -codes: %v", err)
			}
			if !slices.Contains(req.codes, code) {
				req.codes = append(req.codes, code)
			}
		}
	}
	return req, nil
}

// exporter runs one export.
type exporter struct {
	env   Env
	cfg   config.Config
	store *db.Store
	cal   *market.Calendar
	clock market.Clock
	src   *sources.Set
	log   *slog.Logger
	logTo *meterLog
	req   exportRequest
}

// meta is what every file says of mdqs.
func (x *exporter) meta() export.Meta {
	mode := "live"
	if x.cfg.DemoMode() {
		mode = "demo"
	}
	return export.Meta{{Key: "mdqs_version", Value: x.env.Version}, {Key: "mode", Value: mode}}
}

// bars exports bars or the minute archive, streaming from the store.
func (x *exporter) bars(ctx context.Context) error {
	r := x.req
	klines, err := kline.FromConfig(x.cfg, x.store, x.src, x.cal, x.clock, x.log, nil)
	if err != nil {
		return err
	}
	last := klines.LastCompleteDay()
	to := r.to
	if to == 0 || to > last {
		to = last // later bars are not final
	}
	codes := r.codes
	if codes == nil {
		if codes, err = x.allCodes(ctx, r.freq); err != nil {
			return err
		}
	}
	if len(codes) == 0 {
		return &ExitError{Code: 1, Err: fmt.Errorf("no %s series to export: the store holds none%s", r.freq, map[bool]string{true: "", false: " and the source lists no stocks"}[r.storeOnly])}
	}
	actions := corpaction.New(x.store, x.cal, x.clock, x.cfg.Market.Window()).WithLatest(klines)
	start := time.Now()
	fmt.Fprintf(x.env.Stdout, "export %s bars of %d codes, %v to %v, to %s (%s)\n", r.freq, len(codes), r.from, to, r.out, formatName(r))
	m := newMeter(x.env.Stdout, len(codes), "codes", "written", start)
	x.logTo.m = m
	skipped := 0
	sum, err := export.ExportBars(ctx, export.BarDeps{
		Store: x.store, Calendar: x.cal, Clock: x.clock, Fill: klines, Meta: x.meta(),
		Adjustment: func(ctx context.Context, code market.Code, mode adjust.Mode) (adjust.Schedule, error) {
			a, err := actions.Adjustment(ctx, code, mode, 0)
			return a.Schedule, err
		},
		Progress: func(done, total, rows int) { m.update(done, rows) },
		Skipped: func(code market.Code, err error) {
			skipped++
			m.note(fmt.Sprintf("skipped %s: %v", code, err))
		},
	}, export.BarRequest{Codes: codes, Freq: r.freq, From: r.from, To: to, Format: r.format, Out: r.out,
		Adjust: r.adjust, Qlib: r.qlib, StoreOnly: r.storeOnly})
	m.finish()
	if err != nil && r.qlib && !x.req.adjustGiven && market.KindOf(err) == market.KindUnavailable {
		err = fmt.Errorf("%w; -qlib adjusts (后复权) unless -adjust none gives the stored prices (factor 1)", err)
	}
	return x.done(ctx, sum, err, m.elapsed(), fmt.Sprintf("%d of %d codes", sum.Series, len(codes)), skipped, "unknown to the source")
}

// allCodes are the codes of -codes all: the series the store holds, and
// (unless store-only) every stock the source knows.
func (x *exporter) allCodes(ctx context.Context, freq market.Freq) ([]market.Code, error) {
	cov, err := x.store.Covered(ctx, freq)
	if err != nil {
		return nil, err
	}
	var codes []market.Code
	for _, c := range cov {
		codes = append(codes, c.Code)
	}
	if !x.req.storeOnly {
		more, err := allCodes(ctx, x.src, x.store)
		if err != nil {
			return nil, err
		}
		codes = append(codes, more...)
	}
	slices.SortFunc(codes, func(a, b market.Code) int { return strings.Compare(a.String(), b.String()) })
	return slices.Compact(codes), nil
}

func formatName(r exportRequest) string {
	if r.qlib {
		return "qlib's layout, one CSV per code, prices " + r.adjust.String()
	}
	if r.adjust != adjust.None {
		return string(r.format) + ", prices " + r.adjust.String()
	}
	return string(r.format)
}

// done prints the summary, or says why the export failed.
func (x *exporter) done(ctx context.Context, sum export.Summary, err error, elapsed time.Duration, what string, skipped int, why string) error {
	var me *export.MissingError
	var md *export.MissingDaysError
	switch {
	case errors.As(err, &me), errors.As(err, &md):
		return &ExitError{Code: 1, Err: fmt.Errorf("%w; nothing written: export without -store-only to fill what is missing as the API would", err)}
	case err != nil && ctx.Err() != nil:
		return &ExitError{Code: 130, Err: errors.New("interrupted: nothing written")}
	case err != nil:
		return &ExitError{Code: 1, Err: fmt.Errorf("%w (nothing written)", err)}
	}
	speed := ""
	if r, ok := rate(sum.Rows, elapsed); ok {
		speed = ", " + group(r) + " rows/s"
	}
	files := x.req.out
	if sum.Files != 1 {
		files = fmt.Sprintf("%d files in %s", sum.Files, x.req.out)
	}
	span := "no day"
	if sum.First != 0 {
		span = sum.First.String() + " to " + sum.Last.String()
	}
	note := ""
	if skipped > 0 {
		note = fmt.Sprintf(" (%d %s)", skipped, why)
	}
	fmt.Fprintf(x.env.Stdout, "done: %s rows of %s%s, %s, source %s, to %s (%.1f MB), %.1f s%s\n",
		group(sum.Rows), what, note, span, strings.Join(sum.Sources, ","), files, float64(sum.Bytes)/1e6, elapsed.Seconds(), speed)
	return nil
}

// pages exports a dataset from the API's answers, a day at a time, on a
// server wired here as serve wires it, for that dataset only.
func (x *exporter) pages(ctx context.Context) error {
	r := x.req
	to := r.to
	if to == 0 {
		to = market.DayOf(x.clock.Now())
	}
	days := x.cal.Between(r.from, to)
	if len(days) == 0 {
		return &ExitError{Code: 1, Err: fmt.Errorf("no trading day between %v and %v", r.from, to)}
	}
	deps := api.Deps{Store: x.store, Calendar: x.cal, Clock: x.clock, Log: x.log, SourceMode: x.cfg.Sources.Default}
	var path string
	var lead []export.Column
	var queries []export.Query
	q := func(d market.Day, target string, lead ...string) export.Query {
		return export.Query{Day: d, Target: target, Lead: lead}
	}
	switch r.what {
	case "rankings":
		path = "/v1/api/boards/top50"
		rk, closeRankings, err := x.rankings()
		if err != nil {
			return err
		}
		defer closeRankings()
		deps.Rankings = rk
		for _, d := range days {
			queries = append(queries, q(d, path+"?day="+d.String()))
		}
	case "limit-pools":
		path = "/v1/api/limit_pool"
		pools, err := x.limitPools(ctx)
		if err != nil {
			return err
		}
		deps.LimitPools = pools
		lead = []export.Column{{Name: "kind", Type: export.TypeString}}
		for _, d := range days {
			for _, k := range []string{"up", "down", "broken"} {
				queries = append(queries, q(d, path+"?date="+d.String()+"&kind="+k, k))
			}
		}
	case "lhb":
		path = "/v1/api/lhb"
		svc, err := lhb.FromConfig(x.cfg, x.store, x.src.Demo, x.cal, x.src.Limiters, x.clock, x.log)
		if err != nil {
			return err
		}
		deps.LHB = svc
		if !r.storeOnly {
			// Fill as the lhb job would: the days the store lacks.
			fmt.Fprintf(x.env.Stdout, "importing the dragon-tiger days the store lacks, %v to %v\n", days[0], days[len(days)-1])
			if err := svc.Backfill(ctx, days[0], days[len(days)-1], false, nil); err != nil {
				return &ExitError{Code: 1, Err: fmt.Errorf("importing the dragon-tiger list: %w", err)}
			}
		}
		for _, d := range days {
			queries = append(queries, q(d, path+"?date="+d.String()))
		}
	case "index-members":
		path = "/v1/api/index/members"
		lead = []export.Column{{Name: "index", Type: export.TypeString}}
		indexes := r.codes
		if indexes == nil {
			observed, err := x.store.IndexesObserved(ctx)
			if err != nil {
				return err
			}
			for _, o := range observed {
				indexes = append(indexes, o.Index)
			}
		}
		if len(indexes) == 0 {
			return &ExitError{Code: 1, Err: errors.New("the store has observed no index's members (the terminal's import records them)")}
		}
		for _, d := range days {
			for _, ix := range indexes {
				queries = append(queries, q(d, path+"?code="+url.QueryEscape(ix.String())+"&date="+d.String(), ix.String()))
			}
		}
	}
	cols, err := api.PageColumns(path)
	if err != nil {
		return err
	}
	server := api.New(deps)
	start := time.Now()
	fmt.Fprintf(x.env.Stdout, "export %s, %v to %v (%d queries of %s), to %s (%s)\n", r.what, days[0], days[len(days)-1], len(queries), path, r.out, r.format)
	m := newMeter(x.env.Stdout, len(queries), "queries", "", start)
	x.logTo.m = m
	skipped := 0
	sum, err := export.ExportPages(ctx, export.PageDeps{
		Answer: server.Page, Clock: x.clock, Meta: x.meta(),
		Progress: func(done, total, rows int) { m.update(done, rows) },
		Skipped:  func(export.Query, error) { skipped++ },
	}, export.PagesRequest{What: r.what, Lead: lead, Columns: cols, Queries: queries, Format: r.format, Out: r.out, StoreOnly: r.storeOnly,
		Skip: func(err error) bool {
			// A day the answer does not exist for (before the history, a
			// list not imported) is left out and said; store-only, a day
			// the store cannot answer alone (503) is missing too.
			k := market.KindOf(err)
			return k == market.KindNotFound || r.storeOnly && k == market.KindUnavailable
		}})
	m.finish()
	return x.done(ctx, sum, err, m.elapsed(), fmt.Sprintf("%d days", sum.Series), skipped, "queries answered 404: nothing that day")
}

// rankings is the ranking service as serve wires it; store-only, with no
// source, so that a day the store lacks is not replayed.
func (x *exporter) rankings() (*ranking.Service, func(), error) {
	window := x.cfg.Market.Window()
	soft := time.Duration(x.cfg.Market.BoardsTop50RefreshMS) * time.Millisecond
	sectors := x.src.Sectors()
	if x.req.storeOnly {
		sectors = map[string]board.SectorSource{}
	}
	col := board.NewCollector(x.store, sectors, x.clock, x.log, board.Policy{Calendar: x.cal, Window: window, Soft: soft})
	eodAt, _ := market.ParseTimeOfDay(x.cfg.Market.EODAt)
	rk, err := ranking.New(ranking.Config{Soft: soft, Hard: time.Duration(x.cfg.Market.BoardsTop50RedisTTLSec) * time.Second,
		Window: window, EODAt: eodAt, CatchUpDays: x.cfg.Market.CatchUpDays, Mode: x.cfg.Sources.Default,
		Collects: func() bool { return !x.req.storeOnly }}, col, x.store, x.cal, x.clock, x.log, x.cfg.Cache.MaxBytes)
	if err != nil {
		col.Close()
		return nil, nil, err
	}
	return rk, func() { rk.Close(); col.Close() }, nil
}

// limitPools is the limit-pool service as serve wires it, and (unless
// store-only) its universe recorded as serve's start-up job records it:
// in demo mode the demo's history, which the pools then read too.
func (x *exporter) limitPools(ctx context.Context) (*limitpool.Service, error) {
	single, quoteSource := x.src.SingleQuotes()
	quotes := quote.New(x.src.Quotes(), single, x.cal, x.clock, quote.Config{Age: x.cfg.Screener.QuoteAge.Duration, Source: quoteSource})
	secCfg := secmaster.Config{RecordAfter: 15*60 + 5}
	if x.src.Demo != nil && !x.req.storeOnly {
		secCfg.History, secCfg.BackfillDays = x.src.Demo, min(x.cfg.Demo.HistoryDays, securitiesBackfill)
	}
	securities := secmaster.New(x.store, quotes, x.cal, x.clock, secCfg)
	if !x.req.storeOnly {
		if err := securities.Record(ctx); err != nil {
			return nil, fmt.Errorf("recording the universe, as the securities job does: %w", err)
		}
	}
	pools := limitpool.New(x.store, securities, quotes, x.cal, x.clock, quoteSource)
	if x.src.IsDemo() && !x.req.storeOnly {
		pools.ReadHistoryFrom(x.src.Demo)
	}
	return pools, nil
}

// securitiesBackfill is serve's (main.go): the demo's record reaches back
// that many trading days.
const securitiesBackfill = 60
