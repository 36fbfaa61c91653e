package config

import (
	"net/url"
	"slices"
	"strings"
	"time"

	"mdqs/internal/upstream"
)

// Upstream is one upstream's connection settings.
type Upstream struct {
	BaseURL string   `toml:"base_url"`
	Timeout Duration `toml:"timeout"`
	Retries int      `toml:"retries"`
	// Rate and Burst cap requests per second to the upstream's host; clients
	// on one host share the cap.
	Rate  float64 `toml:"rate"`
	Burst int     `toml:"burst"`
	// Proxy is "" (direct), "env" (HTTPS_PROXY and friends) or a URL.
	Proxy string `toml:"proxy"`
	// BreakerFailures failed calls in a row (each after its retries) open
	// the source's circuit: calls then fail at once, without a request,
	// until BreakerCooldown has passed and one probe call succeeds. 0 turns
	// the breaker off.
	BreakerFailures int      `toml:"breaker_failures"`
	BreakerCooldown Duration `toml:"breaker_cooldown"`
}

func (u Upstream) validate(key string, c Config, bad func(key, format string, args ...any)) {
	if pu, err := url.Parse(u.BaseURL); err != nil || pu.Host == "" || (pu.Scheme != "http" && pu.Scheme != "https") {
		bad(key+".base_url", "want an http(s) URL, got %q", u.BaseURL)
	} else if c.Sources.Default != "demo" && sameHostPort(pu, c.Server.Addr) {
		bad(key+".base_url", "%s is mdqs's own address; move the upstream (AKTools) or mdqs to another port", u.BaseURL)
	}
	if u.Timeout.Duration <= 0 || u.Retries < 0 || u.Rate <= 0 || u.Burst < 1 {
		bad(key, "timeout must be positive, retries >= 0, rate > 0 and burst >= 1")
	}
	if u.Proxy != "" && u.Proxy != "env" {
		if pu, err := url.Parse(u.Proxy); err != nil || pu.Host == "" {
			bad(key+".proxy", "want \"\", \"env\" or a proxy URL")
		}
	}
	if u.BreakerFailures < 0 || (u.BreakerFailures > 0 && u.BreakerCooldown.Duration < time.Second) {
		bad(key+".breaker_failures", "want breaker_failures >= 0 (0 = off) and, when on, breaker_cooldown of at least 1s")
	}
}

// Source lays these settings over a client's defaults. Zero means "none"
// here (no retries, no breaker) where the client reads zero as "its
// default", so those two are translated.
func (u Upstream) Source(base upstream.SourceConfig) upstream.SourceConfig {
	base.Fallbacks = nil // one host: the alternates of Mirrored belong to push2 and push2his
	base.BaseURL, base.Timeout, base.Rate, base.Burst, base.Proxy = u.BaseURL, u.Timeout.Duration, u.Rate, u.Burst, u.Proxy
	base.Retries, base.BreakerFailures, base.BreakerCooldown = noneAsNegative(u.Retries), noneAsNegative(u.BreakerFailures), u.BreakerCooldown.Duration
	return base
}

func noneAsNegative(n int) int {
	if n == 0 {
		return -1
	}
	return n
}

// Mirrored is an upstream that several hosts serve alike (push2,
// push2his): requests go to base_url, and to FallbackURLs in turn while the
// hosts before them fail, each failed host being passed over for
// FailoverCooldown (longer while it keeps failing).
type Mirrored struct {
	Upstream
	FallbackURLs     []string `toml:"fallback_urls"`
	FailoverCooldown Duration `toml:"failover_cooldown"`
}

func (m Mirrored) validate(key string, c Config, bad func(key, format string, args ...any)) {
	m.Upstream.validate(key, c, bad)
	seen := map[string]bool{strings.TrimRight(m.BaseURL, "/"): true}
	for _, s := range m.FallbackURLs {
		if pu, err := url.Parse(s); err != nil || pu.Host == "" || (pu.Scheme != "http" && pu.Scheme != "https") {
			bad(key+".fallback_urls", "want http(s) URLs, got %q", s)
		} else if seen[strings.TrimRight(s, "/")] {
			bad(key+".fallback_urls", "%s is listed twice (with base_url)", s)
		}
		seen[strings.TrimRight(s, "/")] = true
	}
	if len(m.FallbackURLs) > 0 && m.FailoverCooldown.Duration < time.Second {
		bad(key+".failover_cooldown", "want at least 1s, got %s", m.FailoverCooldown.Duration)
	}
}

// Source lays these settings over a client's defaults, alternates
// included. The default alternates stay the default host's: a base_url
// moved elsewhere while fallback_urls still says what the defaults say
// asks base_url alone (upstream.SourceConfig.Hosts).
func (m Mirrored) Source(base upstream.SourceConfig) upstream.SourceConfig {
	s := m.Upstream.Source(base)
	s.Fallbacks, s.FailoverCooldown = slices.Clone(m.FallbackURLs), m.FailoverCooldown.Duration
	return s
}
