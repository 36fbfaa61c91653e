package alert

import "mdqs/internal/config"

// WebhooksFrom is the [alerts] section as the webhooks' settings. The
// file's webhook_retry_for = 0 means one try, where a zero RetryFor is the
// default (the config fills the default in, so 0 there is the operator's).
func WebhooksFrom(c config.Alerts) Webhooks {
	w := Webhooks{AllowPrivate: c.WebhookAllowPrivate, Timeout: c.WebhookTimeout.Duration,
		RetryFor: c.WebhookRetryFor.Duration, PublicURL: c.PublicURL}
	if w.RetryFor == 0 {
		w.RetryFor = -1
	}
	return w
}
