package config

// Limits are the per-caller rate limits, token buckets: Rate requests per
// second refill a bucket of Burst. A Rate of 0 turns a limit off.
type Limits struct {
	// ClientRate and ClientBurst apply to every authenticated client, one
	// bucket each; Clients overrides them by client id.
	ClientRate  float64          `toml:"client_rate"`
	ClientBurst int              `toml:"client_burst"`
	Clients     map[string]Limit `toml:"clients"`
	// TokenRate and TokenBurst apply to the token endpoints per remote
	// address: each request there costs an argon2id hash, so this is what
	// keeps a password-guessing loop from eating the CPU.
	TokenRate  float64 `toml:"token_rate"`
	TokenBurst int     `toml:"token_burst"`
}

// Limit is one client's own bucket.
type Limit struct {
	Rate  float64 `toml:"rate"`
	Burst int     `toml:"burst"`
}

func (l Limits) validate(bad func(key, format string, args ...any)) {
	check := func(key string, rate float64, burst int) {
		if rate < 0 || (rate > 0 && burst < 1) {
			bad(key, "want rate >= 0 (0 = off) and, when on, burst >= 1")
		}
	}
	check("limits.client_rate", l.ClientRate, l.ClientBurst)
	check("limits.token_rate", l.TokenRate, l.TokenBurst)
	for id, c := range l.Clients {
		check("limits.clients."+id, c.Rate, c.Burst)
	}
}
