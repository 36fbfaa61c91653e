package config

import (
	"net/url"
	"time"
)

// Alerts configures where alerts' webhooks may go and how long a message
// is tried (docs/screens-and-alerts.md#webhooks).
type Alerts struct {
	// WebhookAllowPrivate lets webhooks reach loopback, private (RFC 1918,
	// ULA), CGNAT and link-local addresses: a receiver on this PC or its
	// LAN. Off, an alert cannot be pointed into the trader's network.
	WebhookAllowPrivate bool `toml:"webhook_allow_private"`
	// WebhookTimeout bounds one try (connection, answer and all).
	WebhookTimeout Duration `toml:"webhook_timeout"`
	// WebhookRetryFor is how long a message that fails is tried again,
	// with back-off, from its firing; then it is marked failed.
	WebhookRetryFor Duration `toml:"webhook_retry_for"`
	// PublicURL is the address the dashboard is reached at from the
	// traders' phones and PCs; messages link to it. "": no link.
	PublicURL string `toml:"public_url"`
}

func defaultAlerts() Alerts {
	return Alerts{WebhookTimeout: dur(10 * time.Second), WebhookRetryFor: dur(time.Hour)}
}

func (c Config) validateAlerts(bad func(key, format string, args ...any)) {
	a := c.Alerts
	if a.WebhookTimeout.Duration < time.Second || a.WebhookTimeout.Duration > time.Minute {
		bad("alerts.webhook_timeout", "want 1s..1m, got %s", a.WebhookTimeout.Duration)
	}
	if a.WebhookRetryFor.Duration < 0 || a.WebhookRetryFor.Duration > 24*time.Hour {
		bad("alerts.webhook_retry_for", "want 0..24h (0: one try), got %s", a.WebhookRetryFor.Duration)
	}
	if a.PublicURL != "" {
		u, err := url.Parse(a.PublicURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			bad("alerts.public_url", "want an http(s) address such as https://mdqs.example.com/, or \"\" for no link; got %q", a.PublicURL)
		}
	}
}
