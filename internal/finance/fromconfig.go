package finance

import (
	"log/slog"

	"mdqs/db"
	"mdqs/internal/config"
	"mdqs/internal/demo"
	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

// FromConfig builds the financial-report service of a configuration, for
// the server and `mdqs reports` alike: the demo market (dm) when
// sources.default is demo, else EastMoney's data centre. lims is the
// process's limiter registry (nil: a new one).
func FromConfig(cfg config.Config, store *db.Store, dm *demo.Market, lims *upstream.Limiters, clock market.Clock, log *slog.Logger) (*Service, error) {
	f := cfg.Finance
	svc := Config{MaxPageSize: f.MaxPageSize, Periods: f.Periods, Interval: f.Interval.Duration}
	if cfg.Sources.Default == "demo" && dm != nil {
		svc.Source = demo.Source
		return New(svc, store, dm, clock, log), nil
	}
	if lims == nil {
		lims = upstream.NewLimiters()
	}
	d := upstream.DefaultFinanceConfig()
	c, err := upstream.NewFinance(upstream.FinanceConfig{SourceConfig: f.DataCenter.Source(d.SourceConfig), PageSize: f.PageSize}, lims, clock)
	if err != nil {
		return nil, err
	}
	s := New(svc, store, c, clock, log)
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
