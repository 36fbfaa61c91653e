// Package config reads mdqs's TOML configuration. Parsing is strict (an
// unknown key is an error that names it) and separate from validation, which
// names the bad field; a file only needs the keys it changes, the others keep
// Default's values (which the shipped config.toml at the repository's root
// writes down, commented).
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"

	"mdqs/internal/market"
)

// Config is the whole configuration. Spec names map to keys by section:
// AUTHZ_TOKEN_TTL_HOURS is auth.token_ttl_hours, AUTHZ_TOKEN_MAX_PER_CLIENT is
// auth.token_max_per_client.
type Config struct {
	// home is the folder of the file the configuration was read from ("":
	// the built-in defaults): a team's demo terminal folders go there.
	home string

	Server  Server  `toml:"server"`
	Auth    Auth    `toml:"auth"`
	Limits  Limits  `toml:"limits"`
	Market  Market  `toml:"market"`
	Sources Sources `toml:"sources"`
	HotRank HotRank `toml:"hot_rank"`
	News    News    `toml:"news"`
	Finance Finance `toml:"finance"`
	// LHB is the dragon-tiger list (龙虎榜).
	LHB LHB `toml:"lhb"`
	// LimitPools is the import of EastMoney's published limit pools.
	LimitPools LimitPools `toml:"limit_pools"`
	// Securities is the security master's upstream lists.
	Securities Securities `toml:"securities"`
	// Archive is the minute archive job.
	Archive  Archive  `toml:"archive"`
	Kline    Kline    `toml:"kline"`
	TDX      TDX      `toml:"tdx"`
	Screener Screener `toml:"screener"`
	// Alerts is the alerts' webhooks.
	Alerts Alerts `toml:"alerts"`
	Stream Stream `toml:"stream"`
	Cache  Cache  `toml:"cache"`
	Demo   Demo   `toml:"demo"`
	Log    Log    `toml:"log"`

	// ETF is the ETF list (GET /v1/api/etfs).
	ETF ETF `toml:"etf"`
	// MCP is /mcp, the MCP endpoint (docs/mcp.md).
	MCP MCP `toml:"mcp"`
}

// Market holds the spec's MARKET_CONF constants (MARKET_CONF.X is
// market.x in lower case) and the market jobs' settings.
type Market struct {
	BoardsTop50RefreshMS   int    `toml:"boards_top50_refresh_ms"`
	BoardsTop50RedisTTLSec int    `toml:"boards_top50_redis_ttl_sec"`
	BoardsTop50WindowStart string `toml:"boards_top50_window_start"`
	BoardsTop50WindowEnd   string `toml:"boards_top50_window_end"`
	// EODAt is when the end-of-day job stores the day's ranking; a few
	// minutes after the close lets the final snapshot settle.
	EODAt string `toml:"eod_at"`
	// CatchUpDays bounds how far back the end-of-day job looks for days it
	// missed while the service was down.
	CatchUpDays int `toml:"catch_up_days"`
	// SnapshotRetentionDays keeps every intraday collection this long; after
	// that only each day's last collection is kept.
	SnapshotRetentionDays int `toml:"snapshot_retention_days"`
	// A sector moves when its change reaches +/-MovementPct, or moves by
	// MovementSpeedPct within MovementSpeedWindow.
	MovementPct         float64  `toml:"movement_pct"`
	MovementSpeedPct    float64  `toml:"movement_speed_pct"`
	MovementSpeedWindow Duration `toml:"movement_speed_window"`
	// HolidaysFile adds exchange holidays (YYYY-MM-DD,name lines) to the
	// built-in list, e.g. a newly published year.
	HolidaysFile string `toml:"holidays_file"`
}

// Sources configures where market data comes from.
type Sources struct {
	// Default is what a query without ?source= gets: auto (industry from
	// akshare, concept from push2, as the spec says), push2, akshare, or
	// demo (the built-in synthetic market, offline).
	Default  string   `toml:"default"`
	Push2    Mirrored `toml:"push2"`
	Push2His Mirrored `toml:"push2his"`
	AKShare  Upstream `toml:"akshare"`
}

type Server struct {
	Addr              string   `toml:"addr"`
	DB                string   `toml:"db"`
	DBReaders         int      `toml:"db_readers"`
	MaxBodyBytes      int64    `toml:"max_body_bytes"`
	ReadHeaderTimeout Duration `toml:"read_header_timeout"`
	ReadTimeout       Duration `toml:"read_timeout"`
	WriteTimeout      Duration `toml:"write_timeout"`
	IdleTimeout       Duration `toml:"idle_timeout"`
	ShutdownTimeout   Duration `toml:"shutdown_timeout"`
	// UpstreamWait bounds how long a request waits on upstream fetches
	// (sector collections, K-line, intraday and quote fetches) and on the
	// demo terminal's folder and import (package bridge): then it
	// answers 503 naming the source, while the fetch goes on in the
	// background to fill the store. At most 3/4 of write_timeout, so the
	// answer is written before the write deadline.
	UpstreamWait Duration `toml:"upstream_wait"`
	// Instance names this process in health answers, metrics and logs
	// when several serve one store; empty: HOST:PORT of addr on this host.
	Instance string `toml:"instance"`
	// LeaderPoll is how often an instance on PostgreSQL checks or tries
	// for the leadership that runs the background jobs: a dead leader is
	// replaced within it.
	LeaderPoll Duration `toml:"leader_poll"`
	// AllowedHosts are the names (or addresses), besides localhost and
	// the loopback addresses (any IP address off loopback), a request's
	// Host header may give (api.HostCheck): no port, any case;
	// ".example.lan" adds a name and its subdomains; "*" alone turns the
	// check off. On a loopback address any other Host is refused (DNS
	// rebinding); elsewhere only once the list names something.
	AllowedHosts []string `toml:"allowed_hosts"`
}

// Signature modes of auth.signature.
const (
	SignatureRequired = "required"
	SignatureOptional = "optional"
	SignatureOff      = "off"
)

type Auth struct {
	TokenTTLHours      int      `toml:"token_ttl_hours"`
	TokenMaxPerClient  int      `toml:"token_max_per_client"`
	Signature          string   `toml:"signature"`
	SignatureV1        bool     `toml:"signature_v1"` // accept the spec's MD5 signature beside version 2 (HMAC-SHA256)
	MaxClockSkew       Duration `toml:"max_clock_skew"`
	NonceCapacity      int      `toml:"nonce_capacity"`
	TokenCacheSize     int      `toml:"token_cache_size"`
	TokenPurgeInterval Duration `toml:"token_purge_interval"`
	// RevocationCheck bounds how long a client disabled or replaced from
	// another process (mdqs client ...) keeps working through cached tokens.
	RevocationCheck Duration `toml:"revocation_check"`
}

// Kline configures bars and the intraday series.
type Kline struct {
	// Watch lists codes whose intraday 1-minute series is always kept and
	// refreshed; codes asked for are added on the fly up to MaxWatched.
	Watch      []string `toml:"watch"`
	MaxWatched int      `toml:"max_watched"`
	// Refresh is how old an intraday series may get inside the window.
	Refresh Duration `toml:"refresh"`
	// MaxRows bounds the rows of one K-line request.
	MaxRows int `toml:"max_rows"`
	// EODAt is when the end-of-day job stores today's bars and derives the
	// daily signals and chip metrics.
	EODAt string `toml:"eod_at"`
}

// TDX points the bridge at the desktop terminal's install folder.
type TDX struct {
	// Dir is the terminal's install folder, e.g. C:\new_tdx; "" turns the
	// bridge off (its endpoints answer 503 saying so). DemoTerminal, in
	// demo mode only, is the demo market's own terminal folder, written
	// beside the database (TerminalDir).
	Dir string `toml:"dir"`
	// RefreshAt is when, after the close, the bridge imports what the
	// terminal downloaded; it retries every RefreshEvery until midnight.
	RefreshAt    string   `toml:"refresh_at"`
	RefreshEvery Duration `toml:"refresh_every"`
}

// Screener bounds the screen queue.
type Screener struct {
	Workers            int      `toml:"workers"`
	Timeout            Duration `toml:"timeout"`
	MaxActivePerClient int      `toml:"max_active_per_client"`
	DefaultLimit       int      `toml:"default_limit"`
	MaxLimit           int      `toml:"max_limit"`
	// QuoteAge is how old the quote snapshot a screen reads may be.
	QuoteAge Duration `toml:"quote_age"`
}

// ETF sets the ETF list: push2's boards and how long a list is held.
type ETF struct {
	// Boards are the push2 clist fs values of the ETF boards, each walked
	// on its own so that a row keeps its board's category.
	Boards []string `toml:"boards"`
	// Refresh is the soft age: a list older than this is fetched again
	// on the next request. MaxAge is the hard one: while the source
	// fails, the last list is served, marked stale, until it is this old.
	Refresh Duration `toml:"refresh"`
	MaxAge  Duration `toml:"max_age"`
}

// Stream bounds the live streams of GET /v1/api/stream. The hub's other
// sizes stay constants (internal/stream's Config says why).
type Stream struct {
	// MaxPerClient caps a client's open streams; one more is 429.
	MaxPerClient int `toml:"max_per_client"`
}

// MaxStreamsPerClient bounds stream.max_per_client: each stream holds a
// connection, a goroutine and a queue (about 70 KiB in all).
const MaxStreamsPerClient = 1000

type Cache struct {
	MaxBytes int64 `toml:"max_bytes"`
	// Redis (redis://HOST:PORT[/DB]) is the state several instances share:
	// the ranking and rate limits. Empty: this process keeps them in
	// memory, the single-instance default. (Replay protection is the
	// store's on PostgreSQL, whatever Redis does.)
	Redis string `toml:"redis"`
	// RedisPrefix goes before every key this deployment writes, so that
	// several deployments (a team's and a test's) can share one Redis
	// without serving each other's rankings.
	RedisPrefix string `toml:"redis_prefix"`
}

// Demo configures demo mode's market and the public demo client.
type Demo struct {
	// Enabled seeds the client demo / demo-secret in demo mode (loopback
	// only); LiveClient seeds it in live mode too. Without LiveClient a
	// live server disables a demo client it finds.
	Enabled    bool  `toml:"enabled"`
	LiveClient bool  `toml:"live_client"`
	Seed       int64 `toml:"seed"`
	Stocks     int   `toml:"stocks"`
	Industries int   `toml:"industries"`
	Concepts   int   `toml:"concepts"`
	// HistoryDays is how many trade days of daily bars the end-of-day job
	// makes sure every demo stock has, so signals, chips and screens work.
	HistoryDays int `toml:"history_days"`
}

type Log struct {
	Level  string `toml:"level"`
	Format string `toml:"format"`
}

// Parse decodes TOML over the defaults. Unknown keys are errors naming the
// key and its line.
func Parse(r io.Reader) (Config, error) {
	raw, err := io.ReadAll(r)
	if err != nil {
		return Config{}, err
	}
	// A byte-order mark says how a Windows tool saved the file: Windows
	// PowerShell 5 writes `mdqs config defaults > config.toml` as UTF-16LE,
	// Notepad may start UTF-8 with a mark. Without one the text is UTF-8.
	cfg, _, err := parse(raw)
	return cfg, err
}

// parse is Parse, also giving the file's text as decoded (for the keys it
// sets).
func parse(raw []byte) (Config, []byte, error) {
	text, _, err := transform.Bytes(unicode.BOMOverride(unicode.UTF8.NewDecoder()), raw)
	if err != nil {
		return Config{}, nil, fmt.Errorf("the file is not text in UTF-8 or UTF-16: %w", err)
	}
	cfg := Default()
	dec := toml.NewDecoder(bytes.NewReader(text)).DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		return Config{}, nil, describe(err)
	}
	return cfg, text, nil
}

func describe(err error) error {
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) {
		var keys []string
		for _, e := range strict.Errors {
			row, _ := e.Position()
			keys = append(keys, fmt.Sprintf("%q (line %d)", strings.Join(e.Key(), "."), row))
		}
		return fmt.Errorf("unknown key %s", strings.Join(keys, ", "))
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, col := de.Position()
		key := strings.Join(de.Key(), ".")
		if key != "" {
			return fmt.Errorf("key %q (line %d, column %d): %s", key, row, col, de.Error())
		}
		return fmt.Errorf("line %d, column %d: %s", row, col, de.Error())
	}
	return err
}

// Validate checks ranges and relations and names the first bad field.
func (c Config) Validate() error {
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", key, fmt.Sprintf(format, args...)))
	}
	if _, _, err := net.SplitHostPort(c.Server.Addr); err != nil {
		bad("server.addr", "want HOST:PORT, got %q", c.Server.Addr)
	}
	if c.Server.DB != "" && strings.TrimSpace(c.Server.DB) == "" {
		bad("server.db", "must name a database file, or be empty for the mode's default")
	}
	if IsServerURL(c.Server.DB) {
		if u, err := url.Parse(c.Server.DB); err != nil || u.Host == "" {
			bad("server.db", "want a file or a URL postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=disable]")
		}
	}
	if c.Server.DBReaders < 1 || c.Server.DBReaders > 64 {
		bad("server.db_readers", "want 1..64, got %d", c.Server.DBReaders)
	}
	if c.Server.MaxBodyBytes < 1024 || c.Server.MaxBodyBytes > 64<<20 {
		bad("server.max_body_bytes", "want 1024..67108864, got %d", c.Server.MaxBodyBytes)
	}
	for _, d := range []struct {
		key string
		d   Duration
	}{
		{"server.read_header_timeout", c.Server.ReadHeaderTimeout},
		{"server.read_timeout", c.Server.ReadTimeout},
		{"server.write_timeout", c.Server.WriteTimeout},
		{"server.idle_timeout", c.Server.IdleTimeout},
		{"server.shutdown_timeout", c.Server.ShutdownTimeout},
		{"server.upstream_wait", c.Server.UpstreamWait},
		{"auth.max_clock_skew", c.Auth.MaxClockSkew},
		{"auth.token_purge_interval", c.Auth.TokenPurgeInterval},
		{"auth.revocation_check", c.Auth.RevocationCheck},
	} {
		if d.d.Duration <= 0 {
			bad(d.key, "must be a positive duration such as \"10s\"")
		}
	}
	if w := c.Server.WriteTimeout.Duration; c.Server.UpstreamWait.Duration > w-w/4 {
		bad("server.upstream_wait", "%s is too close to server.write_timeout (%s): want at most %s, so a request that gives up on an upstream still gets its answer written",
			c.Server.UpstreamWait.Duration, w, w-w/4)
	}
	if c.Auth.TokenTTLHours < 1 || c.Auth.TokenTTLHours > 24*366 {
		bad("auth.token_ttl_hours", "want 1..8784, got %d", c.Auth.TokenTTLHours)
	}
	if c.Auth.TokenMaxPerClient < 1 || c.Auth.TokenMaxPerClient > 10_000 {
		bad("auth.token_max_per_client", "want 1..10000, got %d", c.Auth.TokenMaxPerClient)
	}
	switch c.Auth.Signature {
	case SignatureRequired, SignatureOptional, SignatureOff:
	default:
		bad("auth.signature", "want required, optional or off, got %q", c.Auth.Signature)
	}
	if c.Auth.NonceCapacity < 1000 {
		bad("auth.nonce_capacity", "want at least 1000, got %d", c.Auth.NonceCapacity)
	}
	if c.Auth.TokenCacheSize < 100 {
		bad("auth.token_cache_size", "want at least 100, got %d", c.Auth.TokenCacheSize)
	}
	if c.Market.BoardsTop50RefreshMS < 1000 {
		bad("market.boards_top50_refresh_ms", "want at least 1000, got %d", c.Market.BoardsTop50RefreshMS)
	}
	if c.Market.BoardsTop50RedisTTLSec < 1 {
		bad("market.boards_top50_redis_ttl_sec", "want at least 1, got %d", c.Market.BoardsTop50RedisTTLSec)
	}
	if c.Market.BoardsTop50RefreshMS/1000 >= c.Market.BoardsTop50RedisTTLSec {
		bad("market.boards_top50_refresh_ms", "the soft freshness (%d ms) must be shorter than the hard expiry (%d s)",
			c.Market.BoardsTop50RefreshMS, c.Market.BoardsTop50RedisTTLSec)
	}
	ws, errS := market.ParseTimeOfDay(c.Market.BoardsTop50WindowStart)
	we, errE := market.ParseTimeOfDay(c.Market.BoardsTop50WindowEnd)
	if errS != nil {
		bad("market.boards_top50_window_start", "%v", errS)
	}
	if errE != nil {
		bad("market.boards_top50_window_end", "%v", errE)
	}
	if errS == nil && errE == nil && ws >= we {
		bad("market.boards_top50_window_start", "must be before the window end")
	}
	if _, err := market.ParseTimeOfDay(c.Market.EODAt); err != nil {
		bad("market.eod_at", "%v", err)
	}
	if c.Market.CatchUpDays < 0 || c.Market.CatchUpDays > 366 {
		bad("market.catch_up_days", "want 0..366, got %d", c.Market.CatchUpDays)
	}
	if c.Market.MovementPct <= 0 || c.Market.MovementSpeedPct <= 0 {
		bad("market.movement_pct", "movement_pct and movement_speed_pct must be positive")
	}
	if c.Market.MovementSpeedWindow.Duration < time.Minute {
		bad("market.movement_speed_window", "want at least 1m")
	}
	if c.Market.SnapshotRetentionDays < 1 {
		bad("market.snapshot_retention_days", "want at least 1, got %d", c.Market.SnapshotRetentionDays)
	}
	switch c.Sources.Default {
	case "auto", "push2", "akshare", "demo":
	default:
		bad("sources.default", "want auto, push2, akshare or demo, got %q", c.Sources.Default)
	}
	switch {
	case c.DemoMode() && c.TDX.Dir != "" && c.TDX.Dir != DemoTerminal:
		bad("tdx.dir", "the terminal's files are real market data, and demo mode keeps the demo market only: "+
			"set sources.default to auto (or push2, akshare) to serve the terminal, or set tdx.dir to \"demo\" (the demo market's own terminal) or leave it empty")
	case !c.DemoMode() && c.TDX.Dir == DemoTerminal:
		bad("tdx.dir", "\"demo\" is the demo market's terminal, whose files are demo data, and a live mode serves real data only: "+
			"set tdx.dir to the terminal's install folder (e.g. 'C:\\new_tdx') or leave it empty")
	}
	c.Sources.Push2.validate("sources.push2", c, bad)
	c.Sources.Push2His.validate("sources.push2his", c, bad)
	c.Sources.AKShare.validate("sources.akshare", c, bad)
	if c.Demo.Stocks < 50 || c.Demo.Stocks > 10_000 || c.Demo.Industries < 5 || c.Demo.Industries > 200 ||
		c.Demo.Concepts < 5 || c.Demo.Concepts > 1000 {
		bad("demo", "want 50..10000 stocks, 5..200 industries and 5..1000 concepts")
	}
	for _, code := range c.Kline.Watch {
		if _, err := market.ParseCode(code); err != nil {
			bad("kline.watch", "%v", err)
		}
	}
	if c.Kline.MaxWatched < 1 || c.Kline.MaxWatched > 5000 {
		bad("kline.max_watched", "want 1..5000, got %d", c.Kline.MaxWatched)
	}
	if c.Kline.Refresh.Duration < 5*time.Second {
		bad("kline.refresh", "want at least 5s")
	}
	if c.Kline.MaxRows < 100 || c.Kline.MaxRows > 1_000_000 {
		bad("kline.max_rows", "want 100..1000000, got %d", c.Kline.MaxRows)
	}
	if _, err := market.ParseTimeOfDay(c.Kline.EODAt); err != nil {
		bad("kline.eod_at", "%v", err)
	}
	if _, err := market.ParseTimeOfDay(c.TDX.RefreshAt); err != nil {
		bad("tdx.refresh_at", "%v", err)
	}
	if c.TDX.RefreshEvery.Duration < time.Minute {
		bad("tdx.refresh_every", "want at least 1m")
	}
	if c.Screener.Workers < 1 || c.Screener.Workers > 64 {
		bad("screener.workers", "want 1..64, got %d", c.Screener.Workers)
	}
	if c.Screener.Timeout.Duration < time.Second || c.Screener.QuoteAge.Duration < time.Second {
		bad("screener.timeout", "timeout and quote_age must be at least 1s")
	}
	if c.Screener.MaxActivePerClient < 1 || c.Screener.MaxLimit < 1 || c.Screener.DefaultLimit < 1 || c.Screener.DefaultLimit > c.Screener.MaxLimit {
		bad("screener.max_active_per_client", "max_active_per_client, default_limit and max_limit must be positive, default_limit <= max_limit")
	}
	if c.ETF.Refresh.Duration < time.Second || c.ETF.MaxAge.Duration < c.ETF.Refresh.Duration {
		bad("etf.refresh", "want refresh of at least 1s and max_age of at least refresh, got %v and %v", c.ETF.Refresh.Duration, c.ETF.MaxAge.Duration)
	}
	for _, b := range c.ETF.Boards {
		if !strings.HasPrefix(b, "b:") || strings.Contains(b, ",") {
			bad("etf.boards", "want push2 board filters such as \"b:MK0021\", one per element, got %q", b)
		}
	}
	if c.Stream.MaxPerClient < 1 || c.Stream.MaxPerClient > MaxStreamsPerClient {
		bad("stream.max_per_client", "want 1..%d, got %d", MaxStreamsPerClient, c.Stream.MaxPerClient)
	}
	if c.Demo.HistoryDays < 0 || c.Demo.HistoryDays > 2500 {
		bad("demo.history_days", "want 0..2500, got %d", c.Demo.HistoryDays)
	}
	c.validateInfo(bad)
	c.validateLHB(bad)
	c.validateAlerts(bad)
	c.validateLimitPools(bad)
	c.validateSecurities(bad)
	c.validateArchive(bad)
	c.validateMCP(bad)
	c.Limits.validate(bad)
	if c.Cache.MaxBytes < 1<<20 {
		bad("cache.max_bytes", "want at least 1048576, got %d", c.Cache.MaxBytes)
	}
	if c.Cache.Redis != "" {
		if u, err := url.Parse(c.Cache.Redis); err != nil || (u.Scheme != "redis" && u.Scheme != "rediss") || u.Host == "" {
			bad("cache.redis", "want redis://HOST:PORT[/DB] (or rediss:// for TLS), or empty for in-process state")
		} else if !IsServerURL(c.Server.DB) {
			bad("cache.redis", "instances share Redis only on a shared store: set server.db to a postgres:// URL, or leave cache.redis empty")
		}
	}
	if p := c.Cache.RedisPrefix; p == "" || len(p) > 64 || strings.ContainsFunc(p, func(r rune) bool { return r <= ' ' || r > '~' }) {
		bad("cache.redis_prefix", "want 1-64 visible ASCII characters without spaces (the default is \"mdqs:\"), got %q", p)
	}
	for _, h := range c.Server.AllowedHosts {
		if err := checkAllowedHost(h, len(c.Server.AllowedHosts)); err != "" {
			bad("server.allowed_hosts", "%s, got %q", err, h)
		}
	}
	if c.Server.LeaderPoll.Duration < 100*time.Millisecond || c.Server.LeaderPoll.Duration > time.Minute {
		bad("server.leader_poll", "want 100ms..1m, got %s", c.Server.LeaderPoll.Duration)
	}
	switch c.Log.Level {
	case "debug", "info", "warn", "error":
	default:
		bad("log.level", "want debug, info, warn or error, got %q", c.Log.Level)
	}
	switch c.Log.Format {
	case "text", "json":
	default:
		bad("log.format", "want text or json, got %q", c.Log.Format)
	}
	return errors.Join(errs...)
}

// Database files a store of each mode defaults to when server.db is empty.
const (
	DemoDB = "mdqs-demo.db"
	LiveDB = "mdqs.db"
)

// DemoMode reports demo mode: the built-in demo market is the only source,
// in a store of its own.
func (c Config) DemoMode() bool { return c.Sources.Default == "demo" }

// DemoTerminal as tdx.dir is the demo market's own terminal folder.
const DemoTerminal = "demo"

// UsesDemoTerminal reports that the bridge reads the demo market's own
// terminal: in demo mode, with tdx.dir empty (the shipped default: the
// mode's terminal, so the same file goes live by changing sources.default
// alone) or "demo".
func (c Config) UsesDemoTerminal() bool {
	return c.DemoMode() && (c.TDX.Dir == "" || c.TDX.Dir == DemoTerminal)
}

// TerminalDir is the terminal folder the bridge reads: tdx.dir, or for the
// demo terminal a folder beside the database named after it
// (mdqs-demo.db: mdqs-demo-tdx), so that each demo store has its own; ""
// for none. On a server's store (a team) it is mdqs-demo-tdx-INSTANCE
// beside the configuration file (the working folder with the built-in
// defaults): every instance writes its own copy, so two instances started
// with one folder's configuration never swap a folder the other is writing
// or reading (docs/team.md).
func (c Config) TerminalDir() string {
	if !c.UsesDemoTerminal() {
		return c.TDX.Dir
	}
	db := c.DBPath()
	if IsServerURL(db) {
		name := "mdqs-demo-tdx-" + fileSafe(c.InstanceName())
		if c.home == "" || c.home == "." {
			return name
		}
		return filepath.Join(c.home, name)
	}
	return strings.TrimSuffix(db, filepath.Ext(db)) + "-tdx"
}

// InstanceName is server.instance, else this host and the port it
// listens on: unique among instances that reach one store, and what an
// administrator recognises in a health answer.
func (c Config) InstanceName() string {
	if c.Server.Instance != "" {
		return c.Server.Instance
	}
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "localhost"
	}
	_, port, err := net.SplitHostPort(c.Server.Addr)
	if err != nil || port == "0" || port == "" {
		port = "pid" + strconv.Itoa(os.Getpid())
	}
	return host + ":" + port
}

// fileSafe makes a name a file name on every system: letters, digits,
// '.', '-' and '_' stay, anything else (':' of HOST:PORT, a path
// separator) becomes '_'.
func fileSafe(name string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			return r
		}
		return '_'
	}, name)
}

// IsServerURL reports a server.db that names a PostgreSQL server rather
// than a file (the store's own test is db.IsPostgres; config cannot
// import the store).
func IsServerURL(db string) bool {
	return strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://")
}

// DBPath is the database file: server.db, or the mode's own file when it is
// empty, so that a demo run and a live run in one folder never share one.
// server.db may also be a PostgreSQL URL (postgres://...).
func (c Config) DBPath() string {
	switch {
	case c.Server.DB != "":
		return c.Server.DB
	case c.DemoMode():
		return DemoDB
	}
	return LiveDB
}

// Duration reads TOML strings such as "90s" or "10m", which go-toml leaves
// to the application.
type Duration struct{ time.Duration }

func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("duration %q: want a form such as \"500ms\", \"10s\" or \"2m\"", b)
	}
	d.Duration = v
	return nil
}

func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// Window is the ranking's scheduling window; call after Validate.
func (m Market) Window() market.Window {
	s, _ := market.ParseTimeOfDay(m.BoardsTop50WindowStart)
	e, _ := market.ParseTimeOfDay(m.BoardsTop50WindowEnd)
	return market.Window{Start: s, End: e}
}

func sameHostPort(u *url.URL, addr string) bool {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	uport := u.Port()
	if uport == "" {
		uport = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	same := func(a, b string) bool {
		return a == b || (IsLoopback(net.JoinHostPort(a, "1")) && IsLoopback(net.JoinHostPort(b, "1")))
	}
	return uport == port && same(u.Hostname(), host)
}

// checkAllowedHost says what is wrong with an entry of
// server.allowed_hosts, "" if nothing: a host name (letters, digits, '-',
// '_', dots; a leading dot for the name and its subdomains, a trailing one
// ignored), an IP address (a loopback server answers only loopback ones
// unless listed), or "*" alone.
func checkAllowedHost(h string, entries int) string {
	const want = `want host names without a port or scheme, such as "mdqs.lan" or ".desk.lan" (the name and every name under it), or "*" alone to answer any Host`
	switch {
	case h == "*" && entries == 1:
		return ""
	case h == "*":
		return `"*" answers any Host, so it must be the only entry`
	case net.ParseIP(h) != nil:
		return ""
	case strings.Contains(h, ":") || strings.Contains(h, "/"):
		return want
	}
	name := strings.TrimSuffix(strings.TrimPrefix(h, "."), ".")
	if name == "" || len(name) > 253 {
		return want
	}
	for _, label := range strings.Split(name, ".") {
		if label == "" || len(label) > 63 || strings.ContainsFunc(label, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_')
		}) {
			return want
		}
	}
	return ""
}

// IsLoopback reports whether a listen address is reachable only from this
// machine. An empty host or an unspecified address (0.0.0.0, ::) listens on
// every interface; an unknown host name is not trusted to be local.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
