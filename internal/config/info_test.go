package config

import (
	"strings"
	"testing"
	"time"
)

func TestInfoDefaults(t *testing.T) {
	c := Default()
	if c.HotRank.EastMoney.BaseURL != "https://emappdata.eastmoney.com" || c.HotRank.Interval.Duration != 5*time.Minute ||
		c.HotRank.CloseTime() != 15*60+5 || c.News.Source != "eastmoney" || !c.News.Announcements || c.News.CLS.Rate != 1 ||
		c.Finance.DataCenter.Timeout.Duration != 20*time.Second || c.Finance.Periods != 2 {
		t.Errorf("defaults %+v %+v %+v", c.HotRank, c.News, c.Finance)
	}
}

func TestInfoValidationNamesTheKey(t *testing.T) {
	for _, tt := range []struct{ toml, key string }{
		{"[hot_rank]\npage_size = 101", "hot_rank.page_size"},
		{"[hot_rank]\nclose_at = \"3pm\"", "hot_rank.close_at"},
		{"[hot_rank]\ninterval = \"1s\"", "hot_rank.interval"},
		{"[hot_rank]\ndetail_days = 400", "hot_rank.detail_days"},
		{"[hot_rank.eastmoney]\nbase_url = \"ftp://x\"", "hot_rank.eastmoney.base_url"},
		{"[news]\nsource = \"sina\"", "news.source"},
		{"[news]\npages = 0", "news.pages"},
		{"[news]\nretention_days = -1", "news.retention_days"},
		{"[news.cls]\nrate = 0.0", "news.cls"},
		{"[news.notices]\nproxy = \"::\"", "news.notices.proxy"},
		{"[finance]\nperiods = 9", "finance.periods"},
		{"[finance]\npage_size = 501", "finance.page_size"},
		{"[sources]\ndefault = \"auto\"\n[finance.datacenter]\nbase_url = \"http://127.0.0.1:8080\"", "finance.datacenter.base_url"},
	} {
		cfg, err := Parse(strings.NewReader(tt.toml))
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.toml, err)
		}
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), tt.key) {
			t.Errorf("Validate(%q) = %v, want an error naming %s", tt.toml, err, tt.key)
		}
	}
	if _, err := Parse(strings.NewReader("[news]\nsorce = \"cls\"\n")); err == nil || !strings.Contains(err.Error(), "news.sorce") {
		t.Errorf("unknown key: %v", err)
	}
}
