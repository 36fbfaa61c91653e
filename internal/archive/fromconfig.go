package archive

import (
	"log/slog"

	"mdqs/db"
	"mdqs/internal/board"
	"mdqs/internal/config"
	"mdqs/internal/market"
	"mdqs/internal/sources"
	"mdqs/internal/upstream"
)

// FromConfig is the archive of a configuration, so that the server's job
// and `mdqs archive run` fetch the same way: the demo market's minutes
// without a rate cap in demo mode (nothing goes to the network),
// push2his's trends2 at archive.rate otherwise. The terminal folder the
// bridge reads (the demo's own in demo mode) is the one Quality compares.
func FromConfig(cfg config.Config, store *db.Store, src *sources.Set, sec Universe, cal *market.Calendar, clock market.Clock, log *slog.Logger) *Service {
	at, _ := market.ParseTimeOfDay(cfg.Archive.At) // validated with the configuration
	c := Config{At: at, Window: cfg.Archive.Window, Rate: cfg.Archive.Rate, SourceName: upstream.SourcePush2His,
		FiveMinuteDays: cfg.Archive.FiveMinuteDays, Five: src.Push2His, TerminalDir: cfg.TerminalDir()}
	if src.IsDemo() {
		c.Rate, c.SourceName, c.Five = 0, board.SourceDemo, src.Demo
	}
	return New(store, src.Trends(), sec, cal, clock, log, c)
}
