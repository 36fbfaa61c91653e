package config

import (
	"strings"
	"testing"
	"time"
)

func TestAlertsDefaultsAndValidation(t *testing.T) {
	if a := Default().Alerts; a.WebhookAllowPrivate || a.WebhookTimeout.Duration != 10*time.Second ||
		a.WebhookRetryFor.Duration != time.Hour || a.PublicURL != "" {
		t.Errorf("defaults %+v", a)
	}
	for _, tt := range []struct{ toml, key string }{
		{"[alerts]\nwebhook_timeout = \"100ms\"", "alerts.webhook_timeout"},
		{"[alerts]\nwebhook_timeout = \"5m\"", "alerts.webhook_timeout"},
		{"[alerts]\nwebhook_retry_for = \"-1s\"", "alerts.webhook_retry_for"},
		{"[alerts]\nwebhook_retry_for = \"48h\"", "alerts.webhook_retry_for"},
		{"[alerts]\npublic_url = \"mdqs.example.com\"", "alerts.public_url"},
		{"[alerts]\npublic_url = \"javascript:alert(1)\"", "alerts.public_url"},
	} {
		cfg, err := Parse(strings.NewReader(tt.toml))
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.toml, err)
		}
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), tt.key) {
			t.Errorf("Validate(%q) = %v, want an error naming %s", tt.toml, err, tt.key)
		}
	}
	cfg, _ := Parse(strings.NewReader("[alerts]\npublic_url = \"https://mdqs.example.com/\"\nwebhook_allow_private = true\nwebhook_retry_for = \"0s\""))
	if err := cfg.Validate(); err != nil || !cfg.Alerts.WebhookAllowPrivate {
		t.Errorf("a valid [alerts]: %v %+v", err, cfg.Alerts)
	}
}
