package kline

import (
	"fmt"
	"log/slog"

	"mdqs/cache"
	"mdqs/db"
	"mdqs/internal/config"
	"mdqs/internal/market"
)

// Sources is what FromConfig needs of the configured sources; sources.Set
// has both methods. An interface, because package sources imports kline.
type Sources interface {
	Bars() (BarSource, string)
	Trends() TrendSource
}

// FromConfig builds the K-line service of a configuration, so that the
// server and the backfill command read and fetch bars the same way. shared
// (nil: none) is the cache level the instances of a deployment share.
func FromConfig(cfg config.Config, store *db.Store, src Sources, cal *market.Calendar, clock market.Clock, log *slog.Logger, shared cache.Shared) (*Service, error) {
	window := cfg.Market.Window()
	watch := make([]market.Code, 0, len(cfg.Kline.Watch))
	for _, c := range cfg.Kline.Watch {
		code, err := market.ParseCode(c)
		if err != nil {
			return nil, fmt.Errorf("kline.watch: %w", err)
		}
		watch = append(watch, code)
	}
	bars, name := src.Bars()
	intraday := NewIntraday(src.Trends(), cal, window, clock,
		IntradayConfig{Watch: watch, MaxWatched: cfg.Kline.MaxWatched, RefreshAge: cfg.Kline.Refresh.Duration,
			Shared: shared, Log: log, Source: name})
	return NewService(store, bars, name, intraday, cal, clock, Config{Window: window, MaxRows: cfg.Kline.MaxRows}, log), nil
}
