package upstream

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Source names, as they appear in errors, Status and snapshots.
const (
	SourcePush2    = "push2"
	SourcePush2His = "push2his"
	SourceAKShare  = "akshare"
)

// DefaultUserAgent is a current desktop Chrome on Windows, the browser the
// EastMoney pages expect; a Go-http-client agent is the first thing a ban
// filter looks at.
const DefaultUserAgent = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/141.0.0.0 Safari/537.36"

// SourceConfig is what every upstream source is configured with. A zero
// field takes the source's default (see DefaultConfig), except Proxy, where
// "" means a direct connection, and Fallbacks, where nil means none: a
// client pointed at a test server or a relay must never fail over to the
// internet on its own; the configuration supplies the alternates.
type SourceConfig struct {
	BaseURL     string        // scheme://host[:port][/prefix]
	Timeout     time.Duration // per attempt, body included
	Retries     int           // extra attempts after the first; 0 = default, < 0 = none
	BackoffBase time.Duration // first retry waits up to this (full jitter), doubling per retry
	BackoffMax  time.Duration // cap of one backoff wait
	Rate        float64       // requests per second to the base URL's host, shared by every client on that host
	Burst       int           // requests allowed at once before Rate applies
	RateGroup   string        // limiter key; "" = the base URL's host. Sources naming one group share one cap (e.g. all EastMoney hosts, if bans turn out to be per IP)
	Proxy       string        // "" direct, "env" from HTTP(S)_PROXY/NO_PROXY, else a proxy URL (http, https, socks5)
	UserAgent   string
	MaxBody     int64 // bytes accepted in one reply, after decompression
	// BreakerFailures is how many calls in a row may fail (each after its
	// retries) before the circuit opens; 0 = default, < 0 = no breaker.
	// BreakerCooldown is how long it stays open before one probe call.
	BreakerFailures int
	BreakerCooldown time.Duration
	// Fallbacks are base URLs serving the same paths, tried in order when
	// BaseURL fails (hosts.go). They share BaseURL's rate limiter and
	// the source's breaker. FailoverCooldown is how long a host that failed
	// is passed over before it is probed again (doubling while it keeps
	// failing, up to 8 times).
	Fallbacks        []string
	FailoverCooldown time.Duration
}

// alternatesOf is the alternates DefaultConfig gives a default host.
func alternatesOf(base string) []string {
	switch base {
	case "https://push2.eastmoney.com":
		return []string{"https://82.push2.eastmoney.com", "https://push2delay.eastmoney.com"}
	case "https://push2his.eastmoney.com":
		return []string{"https://33.push2his.eastmoney.com", "https://63.push2his.eastmoney.com"}
	}
	return nil
}

// Hosts is the base URLs a client asks, in order: BaseURL, then
// Fallbacks. The default alternates belong to the default host: while
// Fallbacks are still some default host's alternates and BaseURL has moved
// (a relay, a test server), it is BaseURL alone, so that defaults nobody
// chose never send a request around a relay, or from a test to the
// internet. To keep those alternates behind another BaseURL, list them in
// another order.
func (s SourceConfig) Hosts() []string {
	for _, def := range []string{"https://push2.eastmoney.com", "https://push2his.eastmoney.com"} {
		if slices.Equal(s.Fallbacks, alternatesOf(def)) && strings.TrimRight(s.BaseURL, "/") != def {
			return []string{s.BaseURL}
		}
	}
	return append([]string{s.BaseURL}, s.Fallbacks...)
}

// DefaultETFBoards are the boards of the ETF list: A-share, money,
// cross-border, gold and commodity ETFs (meanings inferred).
const DefaultETFBoards = "b:MK0021,b:MK0022,b:MK0023,b:MK0024,b:MK0827"

// Push2Config adds the clist paging and universe filters to SourceConfig. The
// fs values are configurable because EastMoney reshuffles its board
// taxonomies (see eastmoney.md section 8).
type Push2Config struct {
	SourceConfig
	PageSize   int    // pz; the server caps it at 100
	MaxPages   int    // safety stop for a walk whose total never arrives
	IndustryFS string // industry boards
	ConceptFS  string // concept boards
	StockFS    string // all A shares (SH, SZ, BJ)
	// ETFBoards is the ETF list's boards, comma-separated fs values
	// walked one at a time so each row keeps its board's category.
	ETFBoards string
}

// Config holds the three sources.
type Config struct {
	Push2    Push2Config
	Push2His SourceConfig
	AKShare  SourceConfig
}

// DefaultConfig: EastMoney hosts get 2 requests/s with a burst of 2 (their
// bans are the first complaint of every client's users); AKTools, which
// itself calls EastMoney several times per function, 1/s.
func DefaultConfig() Config {
	em := eastMoneyDefaults()
	p2 := em
	p2.BaseURL = "https://push2.eastmoney.com"
	// The alternates peers use for the same paths (eastmoney.md 1.1,
	// eastmoney-part2.md section f): akshare asks 82.push2 for the A-share
	// clist (stock_hist_em.py, HEAD 0e7db00 of 2026-08-21), and push2delay
	// answered while push2 dropped connections (akshare issue #7230,
	// 2026-04-25). push2delay is said to lag some 15 minutes, so it comes
	// last; the rows' own f124 times say how old they are.
	p2.Fallbacks = alternatesOf(p2.BaseURL)
	his := em
	his.BaseURL = "https://push2his.eastmoney.com"
	// akshare asks 33.push2his and 63.push2his for stock K-lines
	// (stock_hist_em.py, same HEAD), the numbered hosts being the same
	// service under another name.
	his.Fallbacks = alternatesOf(his.BaseURL)
	ak := em
	ak.BaseURL = "http://127.0.0.1:8080"
	// An AKTools call runs a whole akshare function (several EastMoney
	// pages), so it is slow and retrying it costs more.
	ak.Timeout = 60 * time.Second
	ak.Retries = 2
	ak.BackoffBase = time.Second
	ak.BackoffMax = 10 * time.Second
	ak.Rate = 1
	return Config{
		Push2: Push2Config{
			SourceConfig: p2,
			PageSize:     100,
			MaxPages:     200,
			IndustryFS:   "m:90 t:2 f:!50",
			ConceptFS:    "m:90 t:3 f:!50",
			StockFS:      "m:0 t:6,m:0 t:80,m:1 t:2,m:1 t:23,m:0 t:81 s:2048",
			// akshare's fund_etf_spot_em boards (eastmoney-part2.md c).
			ETFBoards: DefaultETFBoards,
		},
		Push2His: his,
		AKShare:  ak,
	}
}

// Push2ExConfig configures the limit-pool client (push2ex.eastmoney.com,
// getTopicZTPool and its siblings).
type Push2ExConfig struct {
	SourceConfig
	// PageSize is the pagesize asked: akshare asks 10000, more than a
	// pool ever holds, so one page is the whole pool; the client still
	// pages (Pageindex from 0) while the rows are fewer than tc.
	PageSize int
	MaxPages int // safety stop of one pool's paging
}

// DefaultPush2ExConfig: EastMoney's politeness defaults, one page of
// 10000 rows, at most 20 pages.
func DefaultPush2ExConfig() Push2ExConfig {
	c := Push2ExConfig{SourceConfig: eastMoneyDefaults(), PageSize: 10000, MaxPages: 20}
	c.BaseURL = "https://push2ex.eastmoney.com"
	return c
}

func (c Push2ExConfig) withDefaults() Push2ExConfig {
	d := DefaultPush2ExConfig()
	c.SourceConfig = c.SourceConfig.withDefaults(d.SourceConfig)
	if c.PageSize <= 0 || c.PageSize > 20000 {
		c.PageSize = d.PageSize
	}
	if c.MaxPages <= 0 {
		c.MaxPages = d.MaxPages
	}
	return c
}

// eastMoneyDefaults are the politeness defaults of every EastMoney host,
// without a base URL or alternates: the other EastMoney clients (hot rank,
// news, reports) start from these, and must not inherit push2's hosts.
func eastMoneyDefaults() SourceConfig {
	return SourceConfig{
		Timeout:     10 * time.Second,
		Retries:     3,
		BackoffBase: 500 * time.Millisecond,
		BackoffMax:  8 * time.Second,
		Rate:        2,
		Burst:       2,
		UserAgent:   DefaultUserAgent,
		MaxBody:     32 << 20,

		BreakerFailures: 5,
		BreakerCooldown: 30 * time.Second,

		FailoverCooldown: 10 * time.Minute,
	}
}

func (c SourceConfig) withDefaults(d SourceConfig) SourceConfig {
	if c.BaseURL == "" {
		c.BaseURL = d.BaseURL
	}
	if c.Timeout <= 0 {
		c.Timeout = d.Timeout
	}
	switch {
	case c.Retries == 0:
		c.Retries = d.Retries
	case c.Retries < 0:
		c.Retries = 0
	}
	if c.BackoffBase <= 0 {
		c.BackoffBase = d.BackoffBase
	}
	if c.BackoffMax <= 0 {
		c.BackoffMax = d.BackoffMax
	}
	if c.BackoffMax < c.BackoffBase {
		c.BackoffMax = c.BackoffBase
	}
	if c.Rate <= 0 {
		c.Rate = d.Rate
	}
	if c.Burst <= 0 {
		c.Burst = d.Burst
	}
	if c.UserAgent == "" {
		c.UserAgent = d.UserAgent
	}
	if c.MaxBody <= 0 {
		c.MaxBody = d.MaxBody
	}
	switch {
	case c.BreakerFailures == 0:
		c.BreakerFailures = d.BreakerFailures
	case c.BreakerFailures < 0:
		c.BreakerFailures = 0
	}
	if c.BreakerCooldown <= 0 {
		c.BreakerCooldown = d.BreakerCooldown
	}
	if c.FailoverCooldown <= 0 {
		c.FailoverCooldown = d.FailoverCooldown
	}
	return c
}

func (c Push2Config) withDefaults() Push2Config {
	d := DefaultConfig().Push2
	c.SourceConfig = c.SourceConfig.withDefaults(d.SourceConfig)
	if c.PageSize <= 0 || c.PageSize > 100 {
		c.PageSize = d.PageSize
	}
	if c.MaxPages <= 0 {
		c.MaxPages = d.MaxPages
	}
	if c.IndustryFS == "" {
		c.IndustryFS = d.IndustryFS
	}
	if c.ConceptFS == "" {
		c.ConceptFS = d.ConceptFS
	}
	if c.StockFS == "" {
		c.StockFS = d.StockFS
	}
	if strings.TrimSpace(c.ETFBoards) == "" {
		c.ETFBoards = d.ETFBoards
	}
	return c
}

// ProxyFunc is proxyFunc for another client that must go the way the
// sources go (mdqs doctor's probes of the same hosts).
func ProxyFunc(setting string) (func(*http.Request) (*url.URL, error), error) {
	return proxyFunc(setting)
}

// proxyFunc turns the Proxy setting into a Transport.Proxy. The error text
// never repeats the URL: it may carry credentials.
func proxyFunc(s string) (func(*http.Request) (*url.URL, error), error) {
	switch s {
	case "":
		return nil, nil
	case "env":
		return http.ProxyFromEnvironment, nil
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("upstream: proxy setting is not a URL with a host")
	}
	switch u.Scheme {
	case "http", "https", "socks5", "socks5h":
	default:
		return nil, fmt.Errorf("upstream: proxy scheme %q: want http, https or socks5", u.Scheme)
	}
	return http.ProxyURL(u), nil
}
