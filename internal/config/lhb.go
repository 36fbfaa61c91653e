package config

import (
	"time"

	"mdqs/internal/market"
)

// LHB configures the dragon-tiger list (龙虎榜) from EastMoney's data
// centre (RPT_DAILYBILLBOARD_DETAILSNEW and the seat reports). Demo mode
// uses the demo market.
type LHB struct {
	DataCenter Upstream `toml:"datacenter"` // datacenter-web.eastmoney.com
	// PublishAt is when the job starts asking for a trading day's list;
	// Interval how often it asks until the list appears. An empty answer
	// is taken as "not out yet" until EmptyFinalAfter past PublishAt, then
	// recorded as a day without a list.
	PublishAt       string   `toml:"publish_at"`
	Interval        Duration `toml:"interval"`
	EmptyFinalAfter Duration `toml:"empty_final_after"`
	// CatchUpDays is how many latest trading days the job keeps imported
	// (days missed while the server was down); older days come from
	// `mdqs lhb backfill`.
	CatchUpDays int `toml:"catch_up_days"`
	// MaxRangeDays bounds a query's start..end.
	MaxRangeDays int `toml:"max_range_days"`
}

func defaultLHB() LHB {
	return LHB{
		DataCenter:      upstreamAt("https://datacenter-web.eastmoney.com", 20*time.Second, 3, 2),
		PublishAt:       "18:00",
		Interval:        dur(10 * time.Minute),
		EmptyFinalAfter: dur(6 * time.Hour),
		CatchUpDays:     5,
		MaxRangeDays:    366,
	}
}

func (c Config) validateLHB(bad func(key, format string, args ...any)) {
	l := c.LHB
	l.DataCenter.validate("lhb.datacenter", c, bad)
	if t, err := market.ParseTimeOfDay(l.PublishAt); err != nil {
		bad("lhb.publish_at", "%v", err)
	} else if t < 15*60 {
		bad("lhb.publish_at", "want a time after the close (15:00), got %s", l.PublishAt)
	}
	if l.Interval.Duration < time.Minute {
		bad("lhb.interval", "want at least 1m")
	}
	if l.EmptyFinalAfter.Duration < 0 || l.EmptyFinalAfter.Duration > 48*time.Hour {
		bad("lhb.empty_final_after", "want 0..48h")
	}
	if l.CatchUpDays < 1 || l.CatchUpDays > 250 {
		bad("lhb.catch_up_days", "want 1..250, got %d", l.CatchUpDays)
	}
	if l.MaxRangeDays < 1 || l.MaxRangeDays > 3660 {
		bad("lhb.max_range_days", "want 1..3660, got %d", l.MaxRangeDays)
	}
}

// PublishTime is lhb.publish_at; call after Validate.
func (l LHB) PublishTime() market.TimeOfDay {
	t, _ := market.ParseTimeOfDay(l.PublishAt)
	return t
}
