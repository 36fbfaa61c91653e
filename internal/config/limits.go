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
	// FailedSecretRate and FailedSecretBurst bound the wrong secrets per
	// address (once spent, nothing from it is checked) and per client id
	// from any address (once spent, the client id's secret is checked
	// only from addresses with no recent failures, so guessers cannot
	// lock its owner out).
	FailedSecretRate  float64 `toml:"failed_secret_rate"`
	FailedSecretBurst int     `toml:"failed_secret_burst"`
	// BadTokenRate and BadTokenBurst bound the unknown, expired or
	// malformed tokens per remote address (loopback is one address, IPv6 a
	// /64): once spent, a token the server does not already hold is
	// refused without a lookup, so guessing tokens costs nothing; callers
	// with a known token are not slowed.
	BadTokenRate  float64 `toml:"bad_token_rate"`
	BadTokenBurst int     `toml:"bad_token_burst"`
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
	check("limits.failed_secret_rate", l.FailedSecretRate, l.FailedSecretBurst)
	check("limits.bad_token_rate", l.BadTokenRate, l.BadTokenBurst)
	for id, c := range l.Clients {
		check("limits.clients."+id, c.Rate, c.Burst)
	}
}
