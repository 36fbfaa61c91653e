package config

import (
	"time"

	"mdqs/internal/market"
)

// HotRank configures the hot rank (EastMoney's popularity list). In demo
// mode (sources.default = "demo") the demo market is the source and the
// upstream keys are not used; the list's names come from sources.push2.
type HotRank struct {
	EastMoney Upstream `toml:"eastmoney"` // emappdata.eastmoney.com
	// Interval is how often the list is imported inside the trading window;
	// CloseAt is when the day's final list is taken (once).
	Interval Duration `toml:"interval"`
	CloseAt  string   `toml:"close_at"`
	// PageSize is an import's default page size (the upstream's maximum is
	// 100); MaxPages stops an import asked for all pages.
	PageSize int `toml:"page_size"`
	MaxPages int `toml:"max_pages"`
	// MaxQuerySize caps the size and top parameters of the queries,
	// MaxRangeDays a start_date..end_date range; DetailDays is the history
	// the detail endpoint shows by default.
	MaxQuerySize int `toml:"max_query_size"`
	MaxRangeDays int `toml:"max_range_days"`
	DetailDays   int `toml:"detail_days"`
}

// News configures the news feeds. Source picks the flash news: eastmoney
// (7x24 快讯) or cls (the CLS telegraph); Announcements adds EastMoney's
// A-share announcement list. Demo mode uses the demo market's feed.
type News struct {
	Source        string   `toml:"source"`
	Announcements bool     `toml:"announcements"`
	EastMoney     Upstream `toml:"eastmoney"` // np-weblist.eastmoney.com
	Notices       Upstream `toml:"notices"`   // np-anotice-stock.eastmoney.com
	CLS           Upstream `toml:"cls"`       // www.cls.cn
	Interval      Duration `toml:"interval"`
	// PageSize and Pages bound one update per feed (it stops at the first
	// page with nothing new); MaxPageSize caps the list's page_size.
	PageSize    int `toml:"page_size"`
	Pages       int `toml:"pages"`
	MaxPageSize int `toml:"max_page_size"`
	// RetentionDays deletes older items; 0 keeps everything.
	RetentionDays int `toml:"retention_days"`
}

// Finance configures the financial reports, from EastMoney's data centre
// (RPT_LICO_FN_CPD, the 业绩报表 table). Demo mode uses the demo market.
type Finance struct {
	DataCenter Upstream `toml:"datacenter"` // datacenter-web.eastmoney.com
	// Interval is how often the job imports the Periods latest report
	// periods (the ones still being published).
	Interval Duration `toml:"interval"`
	Periods  int      `toml:"periods"`
	// PageSize is rows per upstream request; MaxPageSize caps the query's
	// page_size.
	PageSize    int `toml:"page_size"`
	MaxPageSize int `toml:"max_page_size"`
}

func (c Config) validateInfo(bad func(key, format string, args ...any)) {
	c.HotRank.EastMoney.validate("hot_rank.eastmoney", c, bad)
	c.News.EastMoney.validate("news.eastmoney", c, bad)
	c.News.Notices.validate("news.notices", c, bad)
	c.News.CLS.validate("news.cls", c, bad)
	c.Finance.DataCenter.validate("finance.datacenter", c, bad)
	h := c.HotRank
	if h.Interval.Duration < 10*time.Second {
		bad("hot_rank.interval", "want at least 10s")
	}
	if _, err := market.ParseTimeOfDay(h.CloseAt); err != nil {
		bad("hot_rank.close_at", "%v", err)
	}
	if h.PageSize < 1 || h.PageSize > 100 {
		bad("hot_rank.page_size", "want 1..100 (the upstream answers nothing above 100), got %d", h.PageSize)
	}
	if h.MaxPages < 1 || h.MaxPages > 1000 {
		bad("hot_rank.max_pages", "want 1..1000, got %d", h.MaxPages)
	}
	if h.MaxQuerySize < 1 || h.MaxQuerySize > 1000 {
		bad("hot_rank.max_query_size", "want 1..1000, got %d", h.MaxQuerySize)
	}
	if h.MaxRangeDays < 1 || h.MaxRangeDays > 3660 {
		bad("hot_rank.max_range_days", "want 1..3660, got %d", h.MaxRangeDays)
	}
	if h.DetailDays < 1 || h.DetailDays > h.MaxRangeDays {
		bad("hot_rank.detail_days", "want 1..max_range_days, got %d", h.DetailDays)
	}
	n := c.News
	switch n.Source {
	case "eastmoney", "cls":
	default:
		bad("news.source", "want eastmoney or cls, got %q", n.Source)
	}
	if n.Interval.Duration < 10*time.Second {
		bad("news.interval", "want at least 10s")
	}
	if n.PageSize < 1 || n.PageSize > 200 {
		bad("news.page_size", "want 1..200, got %d", n.PageSize)
	}
	if n.Pages < 1 || n.Pages > 10 {
		bad("news.pages", "want 1..10, got %d", n.Pages)
	}
	if n.MaxPageSize < 1 || n.MaxPageSize > 1000 {
		bad("news.max_page_size", "want 1..1000, got %d", n.MaxPageSize)
	}
	if n.RetentionDays < 0 {
		bad("news.retention_days", "want 0 (keep everything) or more, got %d", n.RetentionDays)
	}
	f := c.Finance
	if f.Interval.Duration < time.Minute {
		bad("finance.interval", "want at least 1m")
	}
	if f.Periods < 1 || f.Periods > 8 {
		bad("finance.periods", "want 1..8, got %d", f.Periods)
	}
	if f.PageSize < 1 || f.PageSize > 500 {
		bad("finance.page_size", "want 1..500, got %d", f.PageSize)
	}
	if f.MaxPageSize < 1 || f.MaxPageSize > 1000 {
		bad("finance.max_page_size", "want 1..1000, got %d", f.MaxPageSize)
	}
}

// CloseTime is hot_rank.close_at; call after Validate.
func (h HotRank) CloseTime() market.TimeOfDay {
	t, _ := market.ParseTimeOfDay(h.CloseAt)
	return t
}
