package config

import (
	"slices"
	"strings"
	"time"

	"mdqs/internal/upstream"
)

// Default is the configuration when no file sets anything. The shipped,
// commented config.toml at the repository's root says the same in TOML
// (package main embeds it for `mdqs config defaults`, and `go run .`
// reads it); a test there keeps the two equal, so the file a user copies
// and the values a key left out keeps never disagree.
func Default() Config {
	return Config{
		Server: Server{
			Addr:              "127.0.0.1:8080",
			DBReaders:         4,
			MaxBodyBytes:      1 << 20,
			ReadHeaderTimeout: dur(5 * time.Second),
			ReadTimeout:       dur(30 * time.Second),
			WriteTimeout:      dur(60 * time.Second),
			IdleTimeout:       dur(120 * time.Second),
			ShutdownTimeout:   dur(10 * time.Second),
			UpstreamWait:      dur(20 * time.Second),
			LeaderPoll:        dur(2 * time.Second),
			AllowedHosts:      []string{},
		},
		Auth: Auth{
			TokenTTLHours:      2,
			TokenMaxPerClient:  20,
			Signature:          SignatureRequired,
			SignatureV1:        true,
			MaxClockSkew:       dur(60 * time.Second),
			NonceCapacity:      1_000_000,
			TokenCacheSize:     100_000,
			TokenPurgeInterval: dur(10 * time.Minute),
			RevocationCheck:    dur(time.Second),
		},
		Limits: Limits{
			ClientRate: 200, ClientBurst: 400,
			Clients:   map[string]Limit{},
			TokenRate: 1, TokenBurst: 20,
			FailedSecretRate: 0.1, FailedSecretBurst: 10,
			BadTokenRate: 2, BadTokenBurst: 20,
		},
		Market: Market{
			BoardsTop50RefreshMS:   60_000,
			BoardsTop50RedisTTLSec: 86_400,
			BoardsTop50WindowStart: "09:25",
			BoardsTop50WindowEnd:   "15:00",
			EODAt:                  "15:05",
			CatchUpDays:            10,
			SnapshotRetentionDays:  20,
			MovementPct:            2,
			MovementSpeedPct:       1,
			MovementSpeedWindow:    dur(5 * time.Minute),
		},
		Sources: Sources{
			Default:  "demo",
			Push2:    mirroredAt(upstream.DefaultConfig().Push2.SourceConfig),
			Push2His: mirroredAt(upstream.DefaultConfig().Push2His),
			AKShare:  upstreamAt("http://127.0.0.1:8081", 60*time.Second, 2, 1),
		},
		HotRank: HotRank{
			EastMoney:    upstreamAt("https://emappdata.eastmoney.com", 10*time.Second, 3, 2),
			Interval:     dur(5 * time.Minute),
			CloseAt:      "15:05",
			PageSize:     100,
			MaxPages:     20,
			MaxQuerySize: 100,
			MaxRangeDays: 366,
			DetailDays:   90,
		},
		News: News{
			Source:        "eastmoney",
			Announcements: true,
			EastMoney:     upstreamAt("https://np-weblist.eastmoney.com", 10*time.Second, 3, 2),
			Notices:       upstreamAt("https://np-anotice-stock.eastmoney.com", 10*time.Second, 3, 2),
			CLS:           upstreamAt("https://www.cls.cn", 10*time.Second, 3, 1),
			Interval:      dur(2 * time.Minute),
			PageSize:      50,
			Pages:         3,
			MaxPageSize:   100,
			RetentionDays: 180,
		},
		LHB:        defaultLHB(),
		Alerts:     defaultAlerts(),
		LimitPools: defaultLimitPools(),
		Finance: Finance{
			DataCenter:  upstreamAt("https://datacenter-web.eastmoney.com", 20*time.Second, 3, 2),
			Interval:    dur(6 * time.Hour),
			Periods:     2,
			PageSize:    500,
			MaxPageSize: 100,
		},
		Securities: Securities{
			Delisted:         true,
			DelistedInterval: dur(7 * 24 * time.Hour),
			SZSE:             upstreamAt("https://www.szse.cn", 20*time.Second, 3, 1),
			SSE:              upstreamAt("https://query.sse.com.cn", 20*time.Second, 3, 1),
		},
		Archive: Archive{Enabled: true, At: "15:35", Rate: 3, Window: 5, FiveMinuteDays: 35},
		Kline: Kline{
			Watch:      []string{},
			MaxWatched: 200,
			Refresh:    dur(time.Minute),
			MaxRows:    20_000,
			EODAt:      "15:10",
		},
		TDX: TDX{
			RefreshAt:    "15:30",
			RefreshEvery: dur(30 * time.Minute),
		},
		Screener: Screener{
			Workers:            2,
			Timeout:            dur(time.Minute),
			MaxActivePerClient: 5,
			DefaultLimit:       100,
			MaxLimit:           5000,
			QuoteAge:           dur(time.Minute),
		},
		Stream: Stream{MaxPerClient: 5},
		ETF: ETF{
			Boards:  strings.Split(upstream.DefaultETFBoards, ","),
			Refresh: dur(time.Minute),
			MaxAge:  dur(time.Hour),
		},
		Cache: Cache{
			MaxBytes:    256 << 20,
			RedisPrefix: "mdqs:",
		},
		Demo: Demo{
			Enabled:     true,
			Seed:        20240101,
			Stocks:      5300,
			Industries:  90,
			Concepts:    450,
			HistoryDays: 130,
		},
		Log: Log{Level: "info", Format: "text"},
		MCP: defaultMCP(),
	}
}

func dur(d time.Duration) Duration { return Duration{d} }

// mirroredAt is push2's or push2his's defaults: those of every EastMoney
// host, with the client's own base URL, alternates and cool-down, so that
// the file's defaults and the ones Mirrored.Source compares with are one.
func mirroredAt(d upstream.SourceConfig) Mirrored {
	return Mirrored{
		Upstream:     upstreamAt(d.BaseURL, 10*time.Second, 3, 2),
		FallbackURLs: slices.Clone(d.Fallbacks), FailoverCooldown: dur(d.FailoverCooldown),
	}
}

// upstreamAt is an upstream's defaults: every upstream allows a burst of 2
// and opens its breaker after 5 failures in a row, for 30 s.
func upstreamAt(baseURL string, timeout time.Duration, retries int, rate float64) Upstream {
	return Upstream{
		BaseURL: baseURL, Timeout: dur(timeout), Retries: retries,
		Rate: rate, Burst: 2,
		BreakerFailures: 5, BreakerCooldown: dur(30 * time.Second),
	}
}
