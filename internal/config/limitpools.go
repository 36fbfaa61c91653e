package config

import (
	"time"

	"mdqs/internal/market"
)

// LimitPools configures the import of EastMoney's published limit pools
// (push2ex: getTopicZTPool, getTopicZBPool, getTopicDTPool,
// getYesterdayZTPool), kept per trading day and compared with the pools
// mdqs derives in GET /v1/api/quality. Live mode only: the demo market
// publishes no pools.
type LimitPools struct {
	// Import turns the job on (live mode; in demo mode it never runs).
	Import bool `toml:"import"`
	// ImportAt is when the job starts asking for a trading day's pools;
	// Interval how often it asks until they appear.
	ImportAt string   `toml:"import_at"`
	Interval Duration `toml:"interval"`
	// WindowDays is how many latest trading days the job keeps imported:
	// the source keeps about two weeks of pools.
	WindowDays int      `toml:"window_days"`
	Push2Ex    Upstream `toml:"push2ex"` // push2ex.eastmoney.com
}

func defaultLimitPools() LimitPools {
	return LimitPools{
		Import:     true,
		ImportAt:   "15:30",
		Interval:   dur(10 * time.Minute),
		WindowDays: 10,
		Push2Ex:    upstreamAt("https://push2ex.eastmoney.com", 10*time.Second, 3, 2),
	}
}

func (c Config) validateLimitPools(bad func(key, format string, args ...any)) {
	l := c.LimitPools
	l.Push2Ex.validate("limit_pools.push2ex", c, bad)
	if t, err := market.ParseTimeOfDay(l.ImportAt); err != nil {
		bad("limit_pools.import_at", "%v", err)
	} else if t < 15*60 {
		bad("limit_pools.import_at", "want a time after the close (15:00), got %s", l.ImportAt)
	}
	if l.Interval.Duration < time.Minute {
		bad("limit_pools.interval", "want at least 1m")
	}
	if l.WindowDays < 1 || l.WindowDays > 30 {
		bad("limit_pools.window_days", "want 1..30 (the source keeps about two weeks), got %d", l.WindowDays)
	}
}

// ImportTime is limit_pools.import_at; call after Validate.
func (l LimitPools) ImportTime() market.TimeOfDay {
	t, _ := market.ParseTimeOfDay(l.ImportAt)
	return t
}
