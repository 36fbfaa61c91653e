package config

import "time"

// Securities configures what the security master reads besides the daily
// quote list: the exchanges' lists of delisted companies (终止上市), which
// give the delisting days no quote list keeps. Live mode only: the demo
// market delists nothing.
type Securities struct {
	// Delisted turns the import on; DelistedInterval is how often the
	// lists are read again (at start too, when they were never read or
	// the last read is older than that).
	Delisted         bool     `toml:"delisted"`
	DelistedInterval Duration `toml:"delisted_interval"`
	SZSE             Upstream `toml:"szse"` // www.szse.cn
	SSE              Upstream `toml:"sse"`  // query.sse.com.cn
}

func (c Config) validateSecurities(bad func(key, format string, args ...any)) {
	s := c.Securities
	s.SZSE.validate("securities.szse", c, bad)
	s.SSE.validate("securities.sse", c, bad)
	// The lists change a few times a month; reading them hourly or more
	// would only count against us at the exchanges.
	if s.DelistedInterval.Duration < time.Hour {
		bad("securities.delisted_interval", "want at least 1h, got %s", s.DelistedInterval.Duration)
	}
}
