package config

import (
	"strings"
	"testing"
	"time"
)

func TestLHBDefaultsAndValidation(t *testing.T) {
	c := Default()
	if l := c.LHB; l.PublishTime() != 18*60 || l.Interval.Duration != 10*time.Minute || l.EmptyFinalAfter.Duration != 6*time.Hour ||
		l.CatchUpDays != 5 || l.DataCenter.BaseURL != "https://datacenter-web.eastmoney.com" || l.DataCenter.Rate != c.Finance.DataCenter.Rate {
		t.Errorf("defaults %+v", l)
	}
	for _, tt := range []struct{ toml, key string }{
		{"[lhb]\npublish_at = \"6pm\"", "lhb.publish_at"},
		{"[lhb]\npublish_at = \"14:00\"", "lhb.publish_at"},
		{"[lhb]\ninterval = \"10s\"", "lhb.interval"},
		{"[lhb]\ncatch_up_days = 0", "lhb.catch_up_days"},
		{"[lhb]\nempty_final_after = \"72h\"", "lhb.empty_final_after"},
		{"[lhb]\nmax_range_days = 0", "lhb.max_range_days"},
		{"[lhb.datacenter]\nrate = 0.0", "lhb.datacenter"},
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
