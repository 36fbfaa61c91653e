package config

import (
	"strings"
	"testing"
	"time"
)

func TestLimitPoolsDefaultsAndValidation(t *testing.T) {
	l := Default().LimitPools
	if !l.Import || l.ImportTime() != 15*60+30 || l.Interval.Duration != 10*time.Minute || l.WindowDays != 10 ||
		l.Push2Ex.BaseURL != "https://push2ex.eastmoney.com" || l.Push2Ex.Rate != 2 {
		t.Errorf("defaults %+v", l)
	}
	for _, tt := range []struct{ toml, key string }{
		{"[limit_pools]\nimport_at = \"3pm\"", "limit_pools.import_at"},
		{"[limit_pools]\nimport_at = \"14:59\"", "limit_pools.import_at"},
		{"[limit_pools]\ninterval = \"10s\"", "limit_pools.interval"},
		{"[limit_pools]\nwindow_days = 0", "limit_pools.window_days"},
		{"[limit_pools]\nwindow_days = 31", "limit_pools.window_days"},
		{"[limit_pools.push2ex]\nbase_url = \"ftp://x\"", "limit_pools.push2ex.base_url"},
	} {
		cfg, err := Parse(strings.NewReader(tt.toml))
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.toml, err)
		}
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), tt.key) {
			t.Errorf("Validate(%q) = %v, want an error naming %s", tt.toml, err, tt.key)
		}
	}
}
