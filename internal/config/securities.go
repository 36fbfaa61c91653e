package config

import "time"

// Securities configures what the security master reads besides the daily
// quote list: the exchanges' lists of delisted companies (终止上市), which
// give the delisting days no quote list keeps, and SZSE's list of
// short-name changes (简称变更), which gives the names before the first
// record. Live mode only: the demo market states its own.
type Securities struct {
	// Delisted turns the import of both kinds of list on (one job, one
	// client per exchange); DelistedInterval is how often the lists are
	// read again (at start too, when they were never read or the last read
	// is older than that).
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
