package lhb

import (
	"log/slog"

	"mdqs/db"
	"mdqs/internal/config"
	"mdqs/internal/demo"
	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

// FromConfig builds the dragon-tiger list service of a configuration, for
// the server and `mdqs lhb` alike: the demo market (dm) when
// sources.default is demo, else EastMoney's data centre. lims is the
// process's limiter registry (nil: a new one).
func FromConfig(cfg config.Config, store *db.Store, dm *demo.Market, cal *market.Calendar, lims *upstream.Limiters, clock market.Clock, log *slog.Logger) (*Service, error) {
	l := cfg.LHB
	svc := Config{PublishAt: l.PublishTime(), EmptyFinalAfter: l.EmptyFinalAfter.Duration, Interval: l.Interval.Duration,
		CatchUpDays: l.CatchUpDays, MaxRangeDays: l.MaxRangeDays}
	if cfg.Sources.Default == "demo" && dm != nil {
		svc.Source = demo.Source
		// The demo has a history: the job fills its last four weeks at
		// start (about 0.1 s a day on the default demo market), so the
		// range and seat queries have something to show offline.
		svc.CatchUpDays = max(svc.CatchUpDays, min(cfg.Demo.HistoryDays, 20))
		return New(svc, store, dm, cal, clock, log), nil
	}
	if lims == nil {
		lims = upstream.NewLimiters()
	}
	d := upstream.DefaultLHBConfig()
	c, err := upstream.NewLHB(upstream.LHBConfig{SourceConfig: l.DataCenter.Source(d.SourceConfig)}, lims, clock)
	if err != nil {
		return nil, err
	}
	s := New(svc, store, c, cal, clock, log)
	s.status = c.Status
	return s, nil
}
