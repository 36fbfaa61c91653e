package faulttest

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mdqs/api"
	"mdqs/cache"
	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/auth"
	"mdqs/internal/board"
	"mdqs/internal/bridge"
	"mdqs/internal/client"
	"mdqs/internal/config"
	"mdqs/internal/kline"
	"mdqs/internal/loadgen"
	"mdqs/internal/market"
	"mdqs/internal/movement"
	"mdqs/internal/ranking"
	"mdqs/internal/sources"
	"mdqs/internal/upstream"
)

// t0 is a Monday morning in Shanghai, inside a trading session.
var t0 = time.Date(2026, 11, 23, 10, 0, 0, 0, market.Shanghai())

// inProcess is the server built as `mdqs serve` builds it (store, auth,
// sources from the configuration, collector, movement detector, ranking,
// K-lines, router), minus the background jobs and the information
// services, behind httptest, on a pinned clock.
type inProcess struct {
	url    string
	clock  *market.FixedClock
	store  *db.Store
	src    *sources.Set
	client *client.Client
	logs   *loadgen.SyncBuffer
}

// newInProcess builds the server from configuration text (TOML; keys left
// out take their built-in defaults).
func newInProcess(t *testing.T, configText string) *inProcess {
	t.Helper()
	cfg, err := config.Parse(strings.NewReader(configText))
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	clock := market.NewFixedClock(t0)
	logs := &loadgen.SyncBuffer{}
	log := slog.New(slog.NewTextHandler(logs, nil))

	store, err := db.Open(ctx, filepath.Join(t.TempDir(), "mdqs.db"), db.Options{Readers: cfg.Server.DBReaders, SQLiteSchema: dbtest.SQLiteSchema(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	authSvc, err := auth.New(store, clock, auth.FromConfig(cfg.Auth))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(authSvc.Close)
	// The demo client, as demo mode seeds it on loopback (cheap hash
	// parameters would do, but this is what serve does).
	if _, err := auth.EnsureDemoClient(ctx, store, clock.Now(), auth.DefaultKDF); err != nil {
		t.Fatal(err)
	}
	cal := market.DefaultCalendar()
	src, err := sources.New(cfg, cal, clock)
	if err != nil {
		t.Fatal(err)
	}
	window := cfg.Market.Window()
	soft := time.Duration(cfg.Market.BoardsTop50RefreshMS) * time.Millisecond
	collector := board.NewCollector(store, src.Sectors(), clock, log, board.Policy{Calendar: cal, Window: window, Soft: soft})
	t.Cleanup(collector.Close)
	detector := movement.NewDetector(movement.Thresholds{Pct: cfg.Market.MovementPct, Speed: cfg.Market.MovementSpeedPct,
		SpeedWindow: cfg.Market.MovementSpeedWindow.Duration}, store, clock, collector)
	collector.Observe(detector.Observe)
	if err := collector.Warm(ctx); err != nil {
		t.Fatal(err)
	}
	movements := movement.NewService(collector, store, cal, clock, window, detector)
	eodAt, _ := market.ParseTimeOfDay(cfg.Market.EODAt)
	rankings, err := ranking.New(ranking.Config{
		Soft: soft, Hard: time.Duration(cfg.Market.BoardsTop50RedisTTLSec) * time.Second, Window: window,
		EODAt: eodAt, CatchUpDays: cfg.Market.CatchUpDays, Mode: cfg.Sources.Default,
	}, collector, store, cal, clock, log, cfg.Cache.MaxBytes)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rankings.Close)
	klines, err := kline.FromConfig(cfg, store, src, cal, clock, log, nil)
	if err != nil {
		t.Fatal(err)
	}
	pager, err := kline.NewPager(klines, cfg.Kline.Refresh.Duration, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pager.Close)
	terminal, err := bridge.New("", store, cal, clock, log)
	if err != nil {
		t.Fatal(err)
	}
	srv := api.New(api.Deps{
		Auth: authSvc, Store: store, Rankings: rankings, Movements: movements, Klines: klines, Pager: pager, Bridge: terminal,
		Calendar: cal, Log: log, Clock: clock, MaxBodyBytes: cfg.Server.MaxBodyBytes, Version: "faulttest",
		UpstreamWait: cfg.Server.UpstreamWait.Duration,
		CacheStats:   []func() cache.Stats{rankings.CacheStats, pager.CacheStats},
		Sources:      func() []upstream.Status { return src.Statuses() },
		SourceMode:   cfg.Sources.Default,
	})
	// The HTTP server's timeouts as serve sets them: a handler that runs
	// past write_timeout loses its answer.
	hs := httptest.NewUnstartedServer(srv.Handler())
	hs.Config.ReadHeaderTimeout = cfg.Server.ReadHeaderTimeout.Duration
	hs.Config.ReadTimeout = cfg.Server.ReadTimeout.Duration
	hs.Config.WriteTimeout = cfg.Server.WriteTimeout.Duration
	hs.Config.IdleTimeout = cfg.Server.IdleTimeout.Duration
	hs.Start()
	t.Cleanup(hs.Close)
	c := client.New(hs.URL, "demo", "demo-secret")
	c.Now = clock.Now
	c.HTTP = &http.Client{Timeout: 2 * time.Minute, Transport: &http.Transport{}}
	t.Cleanup(func() { c.HTTP.CloseIdleConnections() })
	return &inProcess{url: hs.URL, clock: clock, store: store, src: src, client: c, logs: logs}
}

// get sends a signed GET and fails the test on a transport error.
func (s *inProcess) get(t *testing.T, path string) *client.Response {
	t.Helper()
	resp, err := s.client.Do(context.Background(), http.MethodGet, path, nil)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return resp
}

// push2Config points push2 at base and every other upstream at a closed
// port on 127.0.0.1, so nothing can leave the machine.
func push2Config(base string) string {
	return fmt.Sprintf(`[sources]
default = "push2"
[sources.push2]
base_url = %q
timeout = "500ms"
retries = 1
rate = 1000.0
burst = 1000
[sources.push2his]
base_url = "http://127.0.0.1:1"
retries = 0
[sources.akshare]
base_url = "http://127.0.0.1:1"
retries = 0
[demo]
enabled = false
`, base)
}
