package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"mdqs/db"
	"mdqs/internal/bridge"
	"mdqs/internal/config"
	"mdqs/internal/demotdx"
	"mdqs/internal/market"
	"mdqs/internal/sources"
	"mdqs/jobs"
)

// terminalBridge builds the terminal bridge of a configuration. For
// tdx.dir = "demo" (demo mode) it is the demo market's own terminal, with
// the job that writes its folder beside the database, rewrites it when the
// demo market's day moves on, and imports it; the bridge's requests wait
// for the job's first run. The job is nil for a live folder, which the
// tdx-refresh job imports after the close.
func terminalBridge(cfg config.Config, store *db.Store, src *sources.Set, cal *market.Calendar, clock market.Clock,
	log *slog.Logger) (*bridge.Service, *jobs.Job, error) {
	dir := cfg.TerminalDir()
	if cfg.TDX.Dir != config.DemoTerminal || src.Demo == nil {
		terminal, err := bridge.New(dir, store, cal, clock, log)
		return terminal, nil, err
	}
	terminal := bridge.NewDemo(dir, store, cal, clock, log)
	w := &demotdx.Writer{Market: src.Demo, Calendar: cal, Clock: clock, Dir: dir, Days: cfg.Demo.HistoryDays, Log: log,
		Identity: fmt.Sprintf("seed %d, %d stocks, %d industries, %d concepts", cfg.Demo.Seed, cfg.Demo.Stocks, cfg.Demo.Industries, cfg.Demo.Concepts)}
	// Every minute: the check is one small file read, and the day moves
	// on at 15:00, when the demo's daily bars become final.
	job := jobs.Job{Name: "demo-terminal", Interval: time.Minute, RunAtStart: true, Run: func(ctx context.Context) error {
		_, err := w.Ensure(ctx)
		if err == nil {
			_, err = terminal.Refresh(ctx, nil)
		}
		terminal.Prepared(err)
		return err
	}}
	return terminal, &job, nil
}
