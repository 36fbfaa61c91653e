package hotrank

import (
	"log/slog"

	"mdqs/db"
	"mdqs/internal/config"
	"mdqs/internal/demo"
	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

// FromConfig builds the hot-rank service of a configuration, for the
// server and the commands alike: the demo market (dm) when
// sources.default is demo, else EastMoney's list through emappdata with
// the names from sources.push2's host. lims is the process's limiter
// registry (nil: a new one).
func FromConfig(cfg config.Config, store *db.Store, dm *demo.Market, lims *upstream.Limiters, cal *market.Calendar, clock market.Clock, log *slog.Logger) (*Service, error) {
	h := cfg.HotRank
	svc := Config{PageSize: h.PageSize, MaxPages: h.MaxPages, MaxSize: h.MaxQuerySize, MaxRangeDays: h.MaxRangeDays,
		DetailDays: h.DetailDays, Window: cfg.Market.Window(), Interval: h.Interval.Duration, CloseAt: h.CloseTime()}
	if cfg.Sources.Default == "demo" && dm != nil {
		svc.Source = demo.Source
		return New(svc, store, dm, cal, clock, log), nil
	}
	if lims == nil {
		lims = upstream.NewLimiters()
	}
	d := upstream.DefaultHotRankConfig()
	uc := upstream.HotRankConfig{SourceConfig: h.EastMoney.Source(d.SourceConfig), Names: cfg.Sources.Push2.Source(d.Names)}
	c, err := upstream.NewHotRank(uc, lims, clock)
	if err != nil {
		return nil, err
	}
	s := New(svc, store, Live(c, clock), cal, clock, log)
	s.status = c.Status
	return s, nil
}

// Statuses is the upstream's health for /health/sources (none for the
// demo, which reports itself).
func (s *Service) Statuses() []upstream.Status {
	if s.status == nil {
		return nil
	}
	return []upstream.Status{s.status()}
}
