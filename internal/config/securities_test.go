package config

import (
	"strings"
	"testing"
	"time"
)

func TestSecuritiesDefaults(t *testing.T) {
	s := Default().Securities
	if !s.Delisted || s.DelistedInterval.Duration != 7*24*time.Hour || s.SZSE.BaseURL != "https://www.szse.cn" ||
		s.SSE.BaseURL != "https://query.sse.com.cn" || s.SSE.Rate != 1 || s.SZSE.Timeout.Duration != 20*time.Second {
		t.Errorf("defaults %+v", s)
	}
}

func TestSecuritiesValidationNamesTheKey(t *testing.T) {
	for _, tt := range []struct{ toml, key string }{
		{"[securities]\ndelisted_interval = \"10m\"", "securities.delisted_interval"},
		{"[securities.szse]\nbase_url = \"ftp://x\"", "securities.szse.base_url"},
		{"[securities.sse]\nrate = 0.0", "securities.sse"},
	} {
		cfg, err := Parse(strings.NewReader(tt.toml))
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.toml, err)
		}
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), tt.key) {
			t.Errorf("Validate(%q) = %v, want an error naming %s", tt.toml, err, tt.key)
		}
	}
	cfg, err := Parse(strings.NewReader("[securities]\ndelisted = false\ndelisted_interval = \"24h\"\n[securities.sse]\nbase_url = \"http://127.0.0.1:9\""))
	if err != nil || cfg.Validate() != nil || cfg.Securities.Delisted || cfg.Securities.SSE.BaseURL != "http://127.0.0.1:9" {
		t.Errorf("a valid section: %+v, %v", cfg.Securities, err)
	}
}
