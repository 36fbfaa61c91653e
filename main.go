// Command mdqs is a market data query service for the Chinese A-share
// market: one binary that serves sector rankings, K-lines and the desktop
// trading terminal's data over signed HTTP/JSON on localhost.
//
// This file only wires: it parses the command line and configuration, opens
// the store, builds the server, starts the jobs, waits for a signal, and shuts
// everything down in order.
package main

import (
	"context"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"mdqs/internal/crosssection"
	"mdqs/internal/limitpool"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"mdqs/api"
	"mdqs/cache"
	"mdqs/db"
	"mdqs/internal/alert"
	"mdqs/internal/archive"
	"mdqs/internal/auth"
	"mdqs/internal/board"
	"mdqs/internal/bridge"
	"mdqs/internal/cli"
	"mdqs/internal/config"
	"mdqs/internal/corpaction"
	"mdqs/internal/demotdx"
	"mdqs/internal/etf"
	"mdqs/internal/finance"
	"mdqs/internal/hotrank"
	"mdqs/internal/indexmembers"
	"mdqs/internal/kline"
	"mdqs/internal/lhb"
	"mdqs/internal/market"
	"mdqs/internal/mcpserver"
	"mdqs/internal/movement"
	"mdqs/internal/news"
	"mdqs/internal/quote"
	"mdqs/internal/ranking"
	"mdqs/internal/relay"
	"mdqs/internal/screener"
	"mdqs/internal/secmaster"
	"mdqs/internal/sources"
	"mdqs/internal/stream"
	"mdqs/internal/upstream"
	"mdqs/jobs"
)

// The store's schema and the shipped defaults, from the repository's root:
// go:embed cannot reach a parent folder, so the packages that need them
// (db, the commands) are handed them from here.
var (
	//go:embed schema.sql
	sqliteSchema string
	//go:embed config.toml
	configFile []byte
)

// version is a release's version, stamped by its build (-ldflags
// "-X main.version=1.2.0", .goreleaser.yaml); empty in any other build,
// which then says what its build information holds (cli.BuildVersion).
var version string

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	env := cli.Env{
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Environ: os.Environ,
		Version: cli.BuildVersion(version), CacheDir: os.UserCacheDir,
		SQLiteSchema: sqliteSchema, ConfigFile: configFile,
	}
	code := exitCode(run(ctx, env, os.Args[1:]), os.Stderr)
	stop() // Ctrl+C while the window waits ends mdqs as usual
	cli.HoldOnError(code, os.Stdin, os.Stderr)
	os.Exit(code)
}

const usage = `usage: mdqs [command] [flags]

commands:
  serve          serve the API (the default when no command is given)
  client         add | list | disable | enable API clients
  call           send one signed request: mdqs call GET /v1/api/whoami
  mcp            serve MCP on stdio for a desktop agent (Claude Desktop, Cursor, ...): tools over a running mdqs
  config         defaults | check: print the built-in defaults; say what a configuration gives
  calendar       import | status: exchange holidays (a newly published year)
  reports        import: financial reports (mdqs reports import -period 2024Q3)
  lhb            backfill: the dragon-tiger list of past days (mdqs lhb backfill -from 2026-09-01)
  backfill       fetch and store bars: mdqs backfill -codes 600519.SH,000001.SZ|all -freq D -from 2016-01-04
  export         write data out as CSV or Parquet (or qlib's CSVs): mdqs export -what bars -codes all -from 2026-01-05 -out bars.parquet
  import         tdx: import the terminal's files (mdqs import tdx -dir C:\new_tdx)
  migrate-store  copy a SQLite store into PostgreSQL: mdqs migrate-store -from mdqs.db -to postgres://...
  archive        status | run | verify: the minute archive (what it holds; archive the due days now; check again)
  backup         copy the database while the server runs, and check the copy: mdqs backup -to D:\backup\mdqs.db
  service        install | uninstall | start | stop | status: run mdqs serve at boot or login
  doctor         check what makes a live start fail, and say how to fix each (-json for scripts)
  healthcheck    GET /healthz of the server: exit 0 when it answers, 1 otherwise (a container's HEALTHCHECK)
  version        print the version

Commands other than serve work on an existing database file and say which;
only client add (and an import given -create) makes a new one. Wherever a
database file is asked for (-db, server.db), a PostgreSQL URL may be given.
Run "mdqs COMMAND -h" for a command's flags.`

func run(ctx context.Context, env cli.Env, args []string) error {
	cmd := "serve"
	switch {
	case len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help"):
		// The command list, not serve's flags: serve is only the default.
		cmd, args = "help", args[1:]
	case len(args) > 0 && !strings.HasPrefix(args[0], "-"):
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		// Under the Windows service manager serve answers its controls;
		// elsewhere this is serve itself.
		return cli.RunService(ctx, env, func(ctx context.Context, env cli.Env) error {
			return serve(ctx, env, args, serveHooks{})
		})
	case "client":
		return cli.Clients(ctx, env, args)
	case "call":
		return cli.Call(ctx, env, args)
	case "mcp":
		return cli.MCP(ctx, env, args)
	case "config":
		return cli.Config(ctx, env, args)
	case "calendar":
		return cli.Calendar(ctx, env, args)
	case "reports":
		return cli.Reports(ctx, env, args)
	case "lhb":
		return cli.LHB(ctx, env, args)
	case "backfill":
		return cli.Backfill(ctx, env, args)
	case "export":
		return cli.Export(ctx, env, args)
	case "import":
		return cli.Import(ctx, env, args)
	case "migrate-store":
		return cli.MigrateStore(ctx, env, args)
	case "archive":
		return cli.Archive(ctx, env, args)
	case "backup":
		return cli.Backup(ctx, env, args)
	case "service":
		return cli.Service(ctx, env, args)
	case "doctor":
		return cli.Doctor(ctx, env, args)
	case "healthcheck":
		return cli.Healthcheck(ctx, env, args)
	case "version":
		return cli.Version(env, args)
	case "help":
		fmt.Fprintln(env.Stdout, usage)
		return nil
	}
	fmt.Fprintln(env.Stderr, usage)
	return cli.Usage("unknown command %q", cmd)
}

func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	var ee *cli.ExitError
	if errors.As(err, &ee) {
		if ee.Code != 0 && !errors.Is(ee.Err, flag.ErrHelp) {
			fmt.Fprintln(stderr, "mdqs:", ee.Err)
		}
		return ee.Code
	}
	fmt.Fprintln(stderr, "mdqs:", err)
	return 1
}

// serveHooks let tests see inside serve: the bound address (they listen on
// port 0), a pinned clock (market logic at any hour of any day), and the
// demo client's hash parameters (tests that start hundreds of servers).
type serveHooks struct {
	onListen func(net.Addr)
	clock    market.Clock    // nil: the system clock
	demoKDF  *auth.KDFParams // nil: auth.DefaultKDF
	// holdStart, when set, holds the first run of every start-up job
	// until it is closed: a test sees the server as it is while they run.
	holdStart <-chan struct{}
}

// serve runs the server until ctx ends.
func serve(ctx context.Context, env cli.Env, args []string, hooks serveHooks) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: mdqs serve [-config FILE] [-addr HOST:PORT] [-db FILE]")
		fs.PrintDefaults()
	}
	configPath := fs.String("config", "", "configuration file (default ./config.toml when present, else the built-in defaults)")
	addr := fs.String("addr", "", "listen address HOST:PORT (overrides server.addr)")
	dbPath := fs.String("db", "", "database file (overrides server.db; default mdqs-demo.db in demo mode, mdqs.db in live mode)")
	if err := cli.ParseFlags(env, fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return cli.Usage("mdqs serve: unexpected argument %q", fs.Arg(0))
	}
	cfg, from, err := config.Load(env.ConfigInput(*configPath), func(c *config.Config) {
		if *addr != "" {
			c.Server.Addr = *addr
		}
		if *dbPath != "" {
			c.Server.DB = *dbPath
		}
	})
	if err != nil {
		return err
	}
	// Before anything is written: a port another program holds is said at
	// once, with the fix, and leaves no database behind. The real listener
	// opens only at the end (see authCfg.StartedAt), so this one closes.
	probe, err := listen(cfg.Server.Addr)
	if err != nil {
		return err
	}
	probe.Close()
	log := newLogger(cfg.Log, env.Stderr)
	var clock market.Clock = market.SystemClock{}
	if hooks.clock != nil {
		clock = hooks.clock
	}

	storeMarket := db.MarketLive
	if cfg.DemoMode() {
		storeMarket = db.MarketDemo
	}
	store, err := db.Open(ctx, cfg.DBPath(), db.Options{Readers: cfg.Server.DBReaders, Market: storeMarket, SQLiteSchema: env.SQLiteSchema})
	if err != nil {
		return err
	}
	defer store.Close()
	// A read-only database still serves what it holds, and so does one
	// whose write lock another process holds: start-up writes below then
	// warn (and wait for the lock in the background), and writes answer 503.
	startup := jobs.NewStartupWrites(store, log)
	if store.ReadOnly() {
		log.Warn("database opened read-only (no write permission on the file or its folder): reads are served, writes answer 503 'database not writable'",
			"db", db.Redact(cfg.DBPath()))
	}
	if n := store.WALPending(); n > 0 {
		log.Warn("the database's -wal file holds committed transactions not yet in the file (a writer stopped without closing it): they are read through its -shm",
			"db", db.Redact(cfg.DBPath()), "pages", n)
	}

	tm, err := startTeam(ctx, cfg, store, log)
	if err != nil {
		return err
	}
	defer tm.stop()
	authCfg := auth.FromConfig(cfg.Auth)
	// On PostgreSQL several instances may serve the store: each records
	// every nonce there. A lone server keeps them in memory: requests
	// signed before the next whole second are refused, and the listener
	// opens only then (below), so a request the previous process answered
	// cannot be replayed to this one, however fast the restart; the few
	// dated ahead of its clock it recorded in the store (Restore, below).
	authCfg.SharedStore = db.IsPostgres(cfg.DBPath())
	if !authCfg.SharedStore {
		authCfg.StartedAt = clock.Now().Truncate(time.Second).Add(time.Second)
		if hooks.clock != nil {
			// A pinned clock is a test's: it stands still, or moves back
			// past the start; restarts are the real binary's business.
			authCfg.StartedAt = time.Unix(1, 0)
		}
	}
	authSvc, err := auth.New(store, clock, authCfg)
	if err != nil {
		return err
	}
	defer authSvc.Close()
	if _, err := authSvc.Restore(ctx); err != nil {
		return fmt.Errorf("replay protection: read the nonces the store recorded: %w", err)
	}

	demoKDF := auth.DefaultKDF
	if hooks.demoKDF != nil {
		demoKDF = *hooks.demoKDF
	}
	if err := startup.Do(ctx, "demo client", func(ctx context.Context) error {
		return seedDemo(ctx, cfg, store, clock, log, demoKDF)
	}); err != nil {
		return err
	}
	if err := checkClients(ctx, cfg, store, clock, log); err != nil {
		return err
	}

	cal, err := cli.LoadCalendar(ctx, cfg, store)
	if err != nil {
		return err
	}
	src, err := sources.New(cfg, cal, clock)
	if err != nil {
		return err
	}
	window := cfg.Market.Window()
	soft := time.Duration(cfg.Market.BoardsTop50RefreshMS) * time.Millisecond
	collector := board.NewCollector(store, src.Sectors(), clock, log, board.Policy{Calendar: cal, Window: window, Soft: soft})
	defer collector.Close()
	detector := movement.NewDetector(movement.Thresholds{Pct: cfg.Market.MovementPct, Speed: cfg.Market.MovementSpeedPct,
		SpeedWindow: cfg.Market.MovementSpeedWindow.Duration}, store, clock, collector)
	collector.Observe(detector.Observe)
	if err := collector.Warm(ctx); err != nil {
		return err
	}
	movements := movement.NewService(collector, store, cal, clock, window, detector)
	eodAt, _ := market.ParseTimeOfDay(cfg.Market.EODAt)
	rankings, err := ranking.New(ranking.Config{
		Soft:        soft,
		Hard:        time.Duration(cfg.Market.BoardsTop50RedisTTLSec) * time.Second,
		Window:      window,
		EODAt:       eodAt,
		CatchUpDays: cfg.Market.CatchUpDays,
		Mode:        cfg.Sources.Default,
		Shared:      tm.cache(),
		Collects:    tm.lead.IsLeader,
	}, collector, store, cal, clock, log, cfg.Cache.MaxBytes)
	if err != nil {
		return err
	}
	defer rankings.Close()

	klines, err := kline.FromConfig(cfg, store, src, cal, clock, log, tm.cache())
	if err != nil {
		return err
	}
	pager, err := kline.NewPager(klines, cfg.Kline.Refresh.Duration, tm.cache())
	if err != nil {
		return err
	}
	defer pager.Close()
	hot, err := hotrank.FromConfig(cfg, store, src.Demo, src.Limiters, cal, clock, log)
	if err != nil {
		return err
	}
	newsSvc, err := news.FromConfig(cfg, store, src.Demo, src.Limiters, clock, log)
	if err != nil {
		return err
	}
	reports, err := finance.FromConfig(cfg, store, src.Demo, src.Limiters, clock, log)
	if err != nil {
		return err
	}
	dragon, err := lhb.FromConfig(cfg, store, src.Demo, cal, src.Limiters, clock, log)
	if err != nil {
		return err
	}
	terminal, terminalJobs, err := terminalBridge(cfg, store, src, cal, clock, log)
	if err != nil {
		return err
	}
	klineEOD, _ := market.ParseTimeOfDay(cfg.Kline.EODAt)
	tdxAt, _ := market.ParseTimeOfDay(cfg.TDX.RefreshAt)
	eodCfg := kline.EODConfig{}
	if src.IsDemo() {
		eodCfg.SeedDays, eodCfg.History = cfg.Demo.HistoryDays, src.Demo
	}

	// The quote service owns the snapshot and its age; screens read it
	// through the service (age 0: the frame keeps no copy of its own), so
	// screens, alerts and /v1/api/quotes share one upstream walk.
	single, quoteSource := src.SingleQuotes()
	quotes := quote.New(src.Quotes(), single, cal, clock, quote.Config{Age: cfg.Screener.QuoteAge.Duration, Source: quoteSource})
	// The ETF list: push2's ETF boards, or the demo's funds.
	etfSource, etfSourceName := src.ETFs()
	etfs := etf.New(etfSource, clock, etf.Config{Soft: cfg.ETF.Refresh.Duration, Hard: cfg.ETF.MaxAge.Duration, Source: etfSourceName})
	// The end of day stores each fund's daily bar from it too, which the
	// minute archive checks the fund's minutes against.
	eodCfg.More = []kline.QuoteSource{etfs}
	// Each trading day's final quote list, recorded after the close: the
	// universe and names of the day, which no source keeps.
	// The ETFs the A-share list leaves out join the day's universe, and
	// so the minute archive, in demo mode as live (the demo's funds trade
	// as its stocks do).
	secCfg := secmaster.Config{RecordAfter: 15*60 + 5, More: []secmaster.Quotes{etfs}}
	if src.Demo != nil {
		// The demo market knows its past: its record starts with its
		// history (the funds included), as a live one's starts on the
		// first day mdqs runs.
		secCfg.History, secCfg.BackfillDays = src.Demo, min(cfg.Demo.HistoryDays, securitiesBackfill)
	}
	securities := secmaster.New(store, quotes, cal, clock, secCfg)
	minutes := newArchive(cfg, store, src, securities, cal, clock, log)
	// The exchanges' lists of delisted companies (live mode only): the
	// delisting days no quote list keeps.
	delisted, err := secmaster.DelistedFromConfig(cfg, store, src.Limiters, clock)
	if err != nil {
		return err
	}
	frame := screener.NewFrame(store, quotes, src.Membership(store), screener.StoreHotRanks{Store: store, Clock: clock}, cal, clock, 0)
	if src.IsDemo() && cfg.Demo.HistoryDays > 0 {
		frame.ReadHistoryFrom(src.Demo)
	}
	// A screen of a past date screens the stocks listed that day.
	frame.ReadPastFrom(securities)
	alerts := alert.New(store, frame, cal, clock, window, log, alert.Config{Webhooks: alert.WebhooksFrom(cfg.Alerts)})
	// Screens read the bars, chips and signals of the day the end-of-day
	// job has just stored: the job rebuilds the frame once it is done.
	eodCfg.Derived = func(market.Day) { frame.Invalidate() }
	screens := screener.NewQueue(store, frame, clock, log, screener.Config{Owner: tm.name, Workers: cfg.Screener.Workers, Timeout: cfg.Screener.Timeout.Duration,
		MaxActivePerClient: cfg.Screener.MaxActivePerClient, DefaultLimit: cfg.Screener.DefaultLimit, MaxLimit: cfg.Screener.MaxLimit})

	// The limit pools derived from the store, and EastMoney's published
	// ones to compare them with (live mode only: the demo market
	// publishes none, and pools made up for it would measure nothing).
	limitPools := limitpool.New(store, securities, quotes, cal, clock, quoteSource)
	pools, err := publishedPools(cfg, store, src, cal, clock, log)
	if err != nil {
		return err
	}
	switch {
	case src.IsDemo():
		// The demo's pools come from its own history, which its store
		// does not hold whole.
		limitPools.ReadHistoryFrom(src.Demo)
		limitPools.PublishedOff("the demo market publishes no pools: EastMoney's are imported in live mode only")
	case pools == nil:
		limitPools.PublishedOff("the import of the published pools is off (limit_pools.import = false)")
	}

	runner := jobs.NewRunner(log, clock)
	runner.SetLeadership(tm.lead)
	if hooks.holdStart != nil {
		runner.HoldFirstRuns(hooks.holdStart)
	}
	// Every instance sweeps its own replay set; the store's part is
	// idempotent, so followers running it too costs one DELETE.
	runner.Add(jobs.Job{Name: "purge-tokens", Interval: cfg.Auth.TokenPurgeInterval.Duration, RunAtStart: true,
		Run: func(ctx context.Context) error { _, err := authSvc.PurgeExpired(ctx); return err }})
	if tm.shared != nil {
		runner.Add(jobs.Job{Name: "redis-probe", Interval: redisProbeInterval, Run: tm.shared.Probe})
	}
	runner.Add(jobs.Job{LeaderOnly: true, Name: "collect-sectors", Interval: soft,
		Gate: func(now time.Time) bool { return window.Contains(cal, now) }, Run: rankings.Collect})
	runner.Add(jobs.Job{LeaderOnly: true, Name: jobs.EndOfDay, About: "the end-of-day ranking", Interval: time.Minute, RunAtStart: true,
		Run: func(ctx context.Context) error { _, err := rankings.EndOfDay(ctx); return err }})
	if cfg.DemoMode() {
		// The demo's past days are replays: a first one-year stats/range
		// would replay some 240 of them while the caller waits. Kept ahead
		// in the background, a minute after start (not a start-up job: the
		// server is ready without them) and checked each minute after (one
		// row a day read once they are kept).
		runner.Add(jobs.Job{LeaderOnly: true, Name: "demo-daily-stats", Interval: time.Minute,
			Run: func(ctx context.Context) error { _, err := rankings.KeepStatsAhead(ctx, 366); return err }})
	}
	runner.Add(jobs.Job{LeaderOnly: true, Name: "intraday-refresh", Interval: cfg.Kline.Refresh.Duration,
		Gate: func(now time.Time) bool { return window.Contains(cal, now) }, Run: klines.Intraday().Refresh})
	runner.Add(jobs.Job{LeaderOnly: true, Name: jobs.KlineEndOfDay, About: "the end-of-day derivation", Interval: 5 * time.Minute, RunAtStart: true,
		Gate: func(now time.Time) bool { return !now.Before(klineEOD.On(market.DayOf(now))) },
		Run: func(ctx context.Context) error {
			return errors.Join(klines.EndOfDay(ctx, src.Quotes(), eodCfg), frame.Refresh(ctx))
		}})
	for _, tj := range terminalJobs {
		runner.Add(tj)
	}
	if terminalJobs == nil && terminal.Configured() {
		runner.Add(jobs.Job{LeaderOnly: true, Name: jobs.TDXRefresh, About: "the terminal folder's import", Interval: cfg.TDX.RefreshEvery.Duration, RunAtStart: true,
			Gate: func(now time.Time) bool { return !now.Before(tdxAt.On(market.DayOf(now))) },
			Run:  func(ctx context.Context) error { _, err := terminal.Refresh(ctx, nil); return err }})
	}
	runner.Add(jobs.Job{LeaderOnly: true, Name: jobs.HotRank, About: "the hot rank import", Interval: cfg.HotRank.Interval.Duration, Gate: hot.InWindow, Run: hot.Collect})
	// Alerts see each quote refresh: the frame refreshes its snapshot when
	// it is quote_age old, so evaluating as often finds every one.
	runner.Add(jobs.Job{LeaderOnly: true, Name: "alerts", Interval: cfg.Screener.QuoteAge.Duration, Gate: alerts.InWindow, Run: alerts.Job})
	// Their webhooks' outbox, at any hour (a message still retrying after
	// the close goes on): one read a second while nothing is due; only the
	// leader sends, and a claim in the store keeps a second would-be
	// leader from sending the same message.
	runner.Add(jobs.Job{LeaderOnly: true, Name: "alert-webhooks", About: "the alerts' webhook messages", Interval: time.Second, Run: alerts.DeliverJob})
	// Every instance builds its screens' frame at start and again when the
	// trading day moves on or another instance's end of day derived a new
	// day, before a screen asks (a screen arriving meanwhile waits for
	// that build).
	runner.Add(jobs.Job{Name: jobs.ScreenFrame, About: "the screens' frame", Interval: time.Minute, RunAtStart: true, Run: frame.Refresh})
	hub := stream.NewHub(stream.Config{Clock: clock, MaxPerClient: cfg.Stream.MaxPerClient})
	wantsQuotes := func() bool { return hub.Wants(stream.Quote) }
	instance := tm.instance()
	if tm.rc != nil {
		// On a team the leader's events reach every instance's streams
		// through Redis, with the same ids (package relay); the rings are
		// filled from it before the listener opens.
		rel := relay.New(hub, tm.rc, relay.Config{Instance: tm.name, Leader: tm.lead.IsLeader, Log: log})
		rel.Start(ctx)
		defer rel.Stop()
		wantsQuotes, instance.Relay = rel.WantsQuotes, rel.Status
	}
	// The stream's quote events come from snapshot refreshes: in the
	// session, while a stream of any instance listens for quotes, the
	// leader refreshes every quote_age even when no screen, alert or quote
	// request asks (at most once per age, shared with them); nobody
	// listening costs no upstream call.
	runner.Add(jobs.Job{LeaderOnly: true, Name: "quote-refresh", Interval: cfg.Screener.QuoteAge.Duration,
		Gate: func(now time.Time) bool { return alerts.InWindow(now) && wantsQuotes() },
		Run:  func(ctx context.Context) error { _, err := quotes.Quotes(ctx); return err }})
	runner.Add(jobs.Job{LeaderOnly: true, Name: jobs.HotRankClose, About: "the hot rank import", Interval: time.Minute, RunAtStart: true, Run: hot.AtStart})
	runner.Add(jobs.Job{LeaderOnly: true, Name: jobs.RecordSecurities, About: "the securities record", Interval: 5 * time.Minute, RunAtStart: true, Run: securities.Record})
	if delisted != nil {
		// Hourly, so a failed read is retried soon; each list is read only
		// once per securities.delisted_interval (Import says so).
		runner.Add(jobs.Job{LeaderOnly: true, Name: jobs.DelistedLists, About: "the delisted lists' import", Interval: time.Hour, RunAtStart: true, Run: delisted.Import})
	}
	if minutes != nil {
		// Not at start: a day's archive takes half an hour at 3 requests a
		// second, and readiness does not wait for it.
		runner.Add(jobs.Job{LeaderOnly: true, Name: "archive-minutes", Interval: 5 * time.Minute, Run: minutes.Job})
	}
	runner.Add(jobs.Job{LeaderOnly: true, Name: jobs.UpdateNews, About: "the news import", Interval: cfg.News.Interval.Duration, RunAtStart: true, Run: newsSvc.Job})
	runner.Add(jobs.Job{LeaderOnly: true, Name: "prune-news", Interval: 6 * time.Hour, RunAtStart: true, Run: newsSvc.Prune})
	// The dragon-tiger list: from lhb.publish_at, every lhb.interval until
	// the day's list appears (Job does nothing once the due days are held).
	runner.Add(jobs.Job{LeaderOnly: true, Name: jobs.LHB, About: "the dragon-tiger list import", Interval: cfg.LHB.Interval.Duration, RunAtStart: true, Run: dragon.Job})
	// EastMoney's published limit pools (live mode): from
	// limit_pools.import_at, every limit_pools.interval until the day's
	// appear, over the days the source still keeps.
	if pools != nil {
		runner.Add(jobs.Job{LeaderOnly: true, Name: jobs.PublishedLimitPools, About: "the published limit pools' import", Interval: cfg.LimitPools.Interval.Duration, RunAtStart: true, Run: pools.Job})
	}
	runner.Add(jobs.Job{LeaderOnly: true, Name: jobs.FinancialReports, About: "the financial reports' import", Interval: cfg.Finance.Interval.Duration, RunAtStart: true, Run: reports.Job})
	runner.Add(jobs.Job{LeaderOnly: true, Name: "prune-snapshots", Interval: 6 * time.Hour, RunAtStart: true,
		Run: func(ctx context.Context) error {
			_, err := store.PruneSnapshots(ctx, market.DayOf(clock.Now()).AddDays(-cfg.Market.SnapshotRetentionDays))
			return err
		}})

	// 前复权's default anchor is a code's latest bar, as the klines know it.
	actions := corpaction.New(store, cal, clock, window).WithLatest(klines)
	if adjusted, name := src.AdjustedBars(); adjusted != nil {
		actions.WithUpstream(corpaction.NewUpstream(adjusted, name, klines)) // until a gbbq is imported
	}
	// Streams end before the server's Shutdown waits for its handlers.
	defer hub.Close()
	hosts := api.NewHostCheck(config.IsLoopback(cfg.Server.Addr), cfg.Server.AllowedHosts)
	if hosts.Off() && config.IsLoopback(cfg.Server.Addr) {
		log.Warn("server.allowed_hosts = [\"*\"]: requests naming any host are answered, so a web page that points its name at 127.0.0.1 (DNS rebinding) " +
			"can call this server, and in demo mode take a token with the public demo secret; list the names you use instead")
	}
	srv := api.New(api.Deps{
		Auth: authSvc, Store: store, Rankings: rankings, Movements: movements, Klines: klines, Pager: pager, Bridge: terminal,
		Actions:    actions,
		Securities: securities,
		// The market's bars of a day, over that day's universe.
		CrossSection: crosssection.New(store, securities, cal, clock),
		LimitPools:   limitPools,
		Archive:      minutes,
		Quotes:       quotes,
		ETFs:         etfs,
		Alerts:       alerts,
		Calendar:     cal, Jobs: runner, Log: log, Clock: clock,
		MaxBodyBytes: cfg.Server.MaxBodyBytes, Version: env.Version,
		UpstreamWait: cfg.Server.UpstreamWait.Duration,
		CacheStats:   []func() cache.Stats{rankings.CacheStats, pager.CacheStats},
		Sources: func() []upstream.Status {
			return slices.Concat(src.Statuses(), hot.Statuses(), newsSvc.Statuses(), reports.Statuses(), delisted.Statuses(), dragon.Statuses(), pools.Statuses())
		},
		SourceMode: cfg.Sources.Default,
		Info:       api.InfoDeps{HotRank: hot, News: newsSvc, Finance: reports},
		Screener:   screens,
		LHB:        dragon,
		Limits:     rateLimits(cfg.Limits, tm.limits()),
		Instance:   instance,
		Stream:     hub,
		Hosts:      hosts,
		MCP:        mcpDeps(cfg, clock, log, env.Version),
	})
	httpSrv := &http.Server{
		Handler:           srv.Handler(),
		ReadHeaderTimeout: cfg.Server.ReadHeaderTimeout.Duration,
		ReadTimeout:       cfg.Server.ReadTimeout.Duration,
		WriteTimeout:      cfg.Server.WriteTimeout.Duration,
		IdleTimeout:       cfg.Server.IdleTimeout.Duration,
		// Above the API's bounds, so that a head over them gets an answer
		// saying what to shorten; api.Listener makes net/http's own
		// answers beyond this one the envelope too.
		MaxHeaderBytes: api.ReadHeaderLimit,
		ErrorLog:       slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	httpSrv.RegisterOnShutdown(hub.Close)
	if wait := authCfg.StartedAt.Sub(clock.Now()); wait > 0 {
		select { // under a second: see authCfg.StartedAt
		case <-time.After(wait):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	ln, err := listen(cfg.Server.Addr)
	if err != nil {
		return err
	}
	runner.Start(ctx)
	defer runner.Stop()
	if err := startup.Do(ctx, "screen queue", screens.Start); err != nil {
		return err
	}
	defer screens.Stop()
	startup.Start(ctx)
	defer startup.Stop() // before screens.Stop: a postponed start must not race it
	serveErr := make(chan error, 1)
	go func() { serveErr <- httpSrv.Serve(api.Listener(ln)) }()
	log.Info("mdqs listening", "addr", ln.Addr().String(), "mode", modeName(cfg), "db", db.Redact(cfg.DBPath()), "sources", sourceNames(cfg),
		"config", from, "version", env.Version, "signature", cfg.Auth.Signature, "instance", tm.name, "leader", tm.lead.IsLeader(),
		"redis", tm.redisAddr())
	cli.Banner(env.Stdout, cfg, ln.Addr().String())
	if hooks.onListen != nil {
		hooks.onListen(ln.Addr())
	}
	listening := time.Now()
	go func() {
		select {
		case <-runner.CaughtUp():
			if ctx.Err() == nil {
				log.Info("mdqs ready: every start-up job has run", "after", time.Since(listening).Round(time.Millisecond))
			}
		case <-ctx.Done():
		}
	}()

	select {
	case <-ctx.Done():
	case err := <-serveErr:
		return fmt.Errorf("http server: %w", err)
	}
	log.Info("shutting down: draining requests", "deadline", cfg.Server.ShutdownTimeout.Duration)
	shutdownCtx, cancel := context.WithTimeout(context.Background(), cfg.Server.ShutdownTimeout.Duration)
	defer cancel()
	err = httpSrv.Shutdown(shutdownCtx)
	if err != nil {
		log.Warn("requests still running at the shutdown deadline; closing their connections", "err", err)
		httpSrv.Close()
	}
	// Deferred, in reverse order: stop jobs, close the token cache, then
	// checkpoint and close the database.
	log.Info("mdqs stopped")
	return nil
}

// listen opens the server's listener; an address in use (another mdqs,
// another program) is said with the way out.
func listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	// EADDRINUSE, or Windows's WSAEADDRINUSE (10048), which package
	// syscall does not name there.
	if err != nil && (errors.Is(err, syscall.EADDRINUSE) || errors.Is(err, syscall.Errno(10048))) {
		return nil, fmt.Errorf("cannot listen on %s: another program (perhaps another mdqs) is listening there; stop it, or serve on another port with -addr, e.g. -addr 127.0.0.1:8081 (or server.addr in config.toml)", addr)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot listen on %s: %w; choose another address with -addr HOST:PORT (or server.addr in config.toml)", addr, err)
	}
	return ln, nil
}

// terminalBridge builds the terminal bridge of a configuration. In demo
// mode (tdx.dir empty or "demo") it is the demo market's own terminal, with
// two jobs: demo-terminal, on every instance, writes this instance's folder
// (beside the database, or mdqs-demo-tdx-INSTANCE on a team's store) and
// rewrites it when the demo market's day moves on; demo-terminal-import,
// the leader's, imports it into the store. The bridge's requests wait for
// both, at most server.upstream_wait, so a follower serves the bar files of
// its own folder and the names and blocks the leader imported, and never
// waits on the leader without a bound. The jobs are nil for a live folder,
// which the tdx-refresh job imports after the close.
func terminalBridge(cfg config.Config, store *db.Store, src *sources.Set, cal *market.Calendar, clock market.Clock,
	log *slog.Logger) (*bridge.Service, []jobs.Job, error) {
	dir := cfg.TerminalDir()
	if !cfg.UsesDemoTerminal() || src.Demo == nil {
		terminal, err := bridge.New(dir, store, cal, clock, log)
		return terminal, nil, err
	}
	terminal := bridge.NewDemo(dir, store, cal, clock, log, cfg.Server.UpstreamWait.Duration)
	w := &demotdx.Writer{Market: src.Demo, Calendar: cal, Clock: clock, Dir: dir, Days: cfg.Demo.HistoryDays, Log: log,
		Identity: fmt.Sprintf("seed %d, %d stocks, %d industries, %d concepts", cfg.Demo.Seed, cfg.Demo.Stocks, cfg.Demo.Industries, cfg.Demo.Concepts)}
	// Every minute: the check is one small file read, and the day moves
	// on at 15:00, when the demo's daily bars become final.
	write := jobs.Job{Name: jobs.DemoTerminal, About: "the demo terminal folder's writing", Interval: time.Minute, RunAtStart: true, Run: func(ctx context.Context) error {
		_, err := w.Ensure(ctx)
		terminal.Written(err)
		return err
	}}
	imp := jobs.Job{Name: jobs.DemoTerminalImport, About: "the demo terminal's import", LeaderOnly: true, Interval: time.Minute, RunAtStart: true, Run: func(ctx context.Context) error {
		// Ensure again (one at a time with the write job's): the import
		// must not find the folder missing or of the day before.
		_, err := w.Ensure(ctx)
		if err == nil {
			// The demo indices' members of the days before today, as a
			// terminal would have shown them had mdqs run every day; the
			// import then records today's from the folder's spblock.dat.
			now := clock.Now()
			_, err = indexmembers.Backfill(ctx, store, src.Demo, cal, "demo", market.DayOf(now), cfg.Demo.HistoryDays, now)
		}
		if err == nil {
			_, err = terminal.Refresh(ctx, nil)
		}
		terminal.Prepared(err)
		return err
	}}
	return terminal, []jobs.Job{write, imp}, nil
}

// seedDemo seeds the well-known demo client where the configuration asks
// for it (demo.enabled in demo mode, demo.live_client in live mode), and
// only while the server is reachable from this machine alone; anywhere
// else it disables one left in the store, since its secret is public.
func seedDemo(ctx context.Context, cfg config.Config, store *db.Store, clock market.Clock, log *slog.Logger, kdf auth.KDFParams) error {
	wanted := cfg.Demo.Enabled
	if !cfg.DemoMode() {
		wanted = cfg.Demo.LiveClient
	}
	disable := func(why string) error {
		disabled, err := auth.DisableDemoClient(ctx, store, clock.Now())
		if disabled {
			log.Warn("disabled the demo client left in the store: " + why)
		}
		return err
	}
	switch {
	case !wanted && cfg.DemoMode() && config.IsLoopback(cfg.Server.Addr):
		return nil
	case !wanted && cfg.DemoMode():
		// A container serves on 0.0.0.0 with demo.enabled = false: a demo
		// client an earlier run on loopback left in its volume must not
		// let the network in.
		return disable("the server listens on a non-loopback address, where the public demo secret would let anyone in")
	case !wanted:
		return disable("live mode does not seed the public demo client unless demo.live_client = true")
	case !config.IsLoopback(cfg.Server.Addr):
		log.Warn("demo client not seeded: the server listens on a non-loopback address, where the public demo secret would let anyone in; add real clients with 'mdqs client add'",
			"addr", cfg.Server.Addr)
		return disable("the server listens on a non-loopback address")
	}
	wrote, err := auth.EnsureDemoClient(ctx, store, clock.Now(), kdf)
	if err != nil {
		return err
	}
	if wrote {
		log.Info("seeded client 'demo' with secret 'demo-secret' and every scope (loopback only)", "mode", modeName(cfg))
	} else {
		log.Info("client 'demo' / 'demo-secret' is ready (loopback only)", "mode", modeName(cfg))
	}
	return nil
}

// checkClients tells a live server's operator how to let scripts in when
// no client can: a live store starts with none.
func checkClients(ctx context.Context, cfg config.Config, store *db.Store, clock market.Clock, log *slog.Logger) error {
	clients, err := store.Clients(ctx, clock.Now())
	if err != nil {
		return err
	}
	for _, c := range clients {
		if c.ActiveAt(clock.Now()) {
			return nil
		}
	}
	log.Warn("no API client is enabled, so every request will be refused: add one with 'mdqs client add -id NAME -scopes \"*\"' (it prints the secret)",
		"db", db.Redact(cfg.DBPath()))
	return nil
}

// modeName is what the start log says the server serves.
func modeName(cfg config.Config) string {
	if cfg.DemoMode() {
		return "demo"
	}
	return "live"
}

// sourceNames lists the sources the server's answers come from.
func sourceNames(cfg config.Config) string {
	switch {
	case cfg.DemoMode():
		return "demo market (offline)"
	case cfg.Sources.Default == "auto":
		return "auto: industries akshare@" + cfg.Sources.AKShare.BaseURL + ", concepts push2@" + cfg.Sources.Push2.BaseURL + ", bars push2his@" + cfg.Sources.Push2His.BaseURL
	case cfg.Sources.Default == "akshare":
		return "akshare@" + cfg.Sources.AKShare.BaseURL + ", bars push2his@" + cfg.Sources.Push2His.BaseURL
	}
	return "push2@" + cfg.Sources.Push2.BaseURL + ", bars push2his@" + cfg.Sources.Push2His.BaseURL
}

func newLogger(c config.Log, w io.Writer) *slog.Logger {
	var level slog.Level
	level.UnmarshalText([]byte(c.Level))
	// Log times are written in the zone the API answers in (Asia/Shanghai,
	// with its +08:00), whatever the host's zone: a log line and an answer
	// about the same moment then read the same.
	opts := &slog.HandlerOptions{Level: level, ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey && len(groups) == 0 && a.Value.Kind() == slog.KindTime {
			a.Value = slog.TimeValue(a.Value.Time().In(market.Shanghai()))
		}
		return a
	}}
	if c.Format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

func rateLimits(l config.Limits, shared api.SharedLimits) api.Limits {
	out := api.Limits{Shared: shared, Client: api.RateLimit{Rate: l.ClientRate, Burst: l.ClientBurst},
		Token:        api.RateLimit{Rate: l.TokenRate, Burst: l.TokenBurst},
		FailedSecret: api.RateLimit{Rate: l.FailedSecretRate, Burst: l.FailedSecretBurst},
		BadToken:     api.RateLimit{Rate: l.BadTokenRate, Burst: l.BadTokenBurst},
		Clients:      map[string]api.RateLimit{}}
	for id, c := range l.Clients {
		out.Clients[id] = api.RateLimit{Rate: c.Rate, Burst: c.Burst}
	}
	return out
}

// newArchive is the minute archive of the configuration, nil when off.
func newArchive(cfg config.Config, store *db.Store, src *sources.Set, sec *secmaster.Service, cal *market.Calendar,
	clock market.Clock, log *slog.Logger) *archive.Service {
	if !cfg.Archive.Enabled {
		return nil
	}
	return archive.FromConfig(cfg, store, src, sec, cal, clock, log)
}

// securitiesBackfill bounds the demo's back-filled record: each day is a
// quote list of the whole demo market (5,300 stocks at real size).
const securitiesBackfill = 60

// publishedPools is the importer of EastMoney's published limit pools;
// nil in demo mode or when limit_pools.import is off.
func publishedPools(cfg config.Config, store *db.Store, src *sources.Set, cal *market.Calendar, clock market.Clock, log *slog.Logger) (*limitpool.Importer, error) {
	l := cfg.LimitPools
	if src.IsDemo() || !l.Import {
		return nil, nil
	}
	d := upstream.DefaultPush2ExConfig()
	c, err := upstream.NewPush2Ex(upstream.Push2ExConfig{SourceConfig: l.Push2Ex.Source(d.SourceConfig)}, src.Limiters, clock)
	if err != nil {
		return nil, err
	}
	return limitpool.NewImporter(limitpool.ImportConfig{ImportAt: l.ImportTime(), WindowDays: l.WindowDays}, store, c, cal, clock, log, c.Status), nil
}

// mcpDeps is /mcp as the configuration has it: off unless mcp.http; its
// tools call the API's own handler in-process as the caller.
func mcpDeps(cfg config.Config, clock market.Clock, log *slog.Logger, version string) api.MCPDeps {
	if !cfg.MCP.HTTP {
		return api.MCPDeps{}
	}
	log.Info("MCP (Streamable HTTP) at /mcp, for tokens whose client has scope mcp", "remote", cfg.MCP.Remote, "allowed_origins", cfg.MCP.Origins())
	return api.MCPDeps{Remote: cfg.MCP.Remote, Origins: cfg.MCP.Origins(), Front: func(h http.Handler) http.Handler {
		return mcpserver.NewHTTP(h, mcpserver.HTTPOptions{Options: mcpserver.Options{Version: version, Clock: clock, Log: log},
			SessionIdle: cfg.MCP.SessionIdle.Duration, MaxBodyBytes: cfg.Server.MaxBodyBytes})
	}}
}
