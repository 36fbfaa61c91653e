package alert_test

import (
	"testing"
	"time"

	"mdqs/internal/alert"
	"mdqs/internal/config"
)

// The file's webhook_retry_for = 0 is one try, not the default hour.
func TestWebhooksFromConfig(t *testing.T) {
	for _, tc := range []struct {
		retryFor time.Duration
		want     time.Duration
	}{{0, -1}, {time.Hour, time.Hour}, {5 * time.Minute, 5 * time.Minute}} {
		c := config.Default().Alerts
		c.WebhookRetryFor = config.Duration{Duration: tc.retryFor}
		c.PublicURL = "https://mdqs.example.com/"
		w := alert.WebhooksFrom(c)
		if w.RetryFor != tc.want || w.Timeout != c.WebhookTimeout.Duration || w.PublicURL != c.PublicURL || w.AllowPrivate {
			t.Errorf("webhook_retry_for = %v: %+v, want RetryFor %v and the section's other values", tc.retryFor, w, tc.want)
		}
	}
}
