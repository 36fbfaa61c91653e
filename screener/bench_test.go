package screener_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/demo"
	"mdqs/kline"
	"mdqs/market"
	"mdqs/screener"
)

// BenchmarkFullMarketScreen evaluates one screen over the whole market at
// real size (the demo market's 5,300 stocks with 80 days of daily bars in
// SQLite), through the queue's own code path (frame rows, compiled
// expression, sort, limit):
//
//	go test -run '^$' -bench FullMarketScreen -benchmem ./screener
//
// "warm" is a screen with the frame already in memory (the daily part is
// loaded once per trading day, the snapshot once a minute); "cold" reloads
// the whole frame every time. The setup ingests ~420,000 bars first.
func BenchmarkFullMarketScreen(b *testing.B) {
	path := filepath.Join(b.TempDir(), "bench.db")
	store, err := db.Open(context.Background(), path, db.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	clock := market.NewFixedClock(monday10)
	cal := market.DefaultCalendar()
	dm, err := demo.New(demo.Config{Seed: 20240101, Calendar: cal}, clock) // real-market scale
	if err != nil {
		b.Fatal(err)
	}
	window := market.Window{Start: 9*60 + 25, End: 15 * 60}
	svc := kline.NewService(store, dm, "demo", kline.NewIntraday(dm, cal, window, clock, kline.IntradayConfig{MaxWatched: 10, RefreshAge: time.Minute}),
		cal, clock, kline.Config{Window: window}, quiet())
	var codes []market.Code
	for _, s := range dm.Stocks() {
		codes = append(codes, s.Code)
	}
	if _, err := svc.Backfill(context.Background(), codes, market.Daily, 20260715, 20261120, nil); err != nil {
		b.Fatal(err)
	}
	expression := "price > ma20 && ma5 > ma10 && turnover > 3 && main_net > 5e7 && pct_20d > 0 && macd_hist > 0"
	prog, err := screener.Compile(expression)
	if err != nil {
		b.Fatal(err)
	}
	frame := screener.NewFrame(store, dm, nil, nil, cal, clock, time.Hour)
	screen := func() int {
		rows, err := frame.Rows(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		n, err := screener.Evaluate(context.Background(), prog, rows, "-main_net", 100)
		if err != nil {
			b.Fatal(err)
		}
		return len(rows) + 0*len(n)
	}
	b.Run("warm", func(b *testing.B) {
		screen() // load the frame once
		var ms runtime.MemStats
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			if n := screen(); n != 5300 {
				b.Fatalf("%d rows", n)
			}
		}
		b.StopTimer()
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MiB")
	})
	b.Run("cold", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			frame = screener.NewFrame(store, dm, nil, nil, cal, clock, time.Hour)
			screen()
		}
	})
	os.Remove(path)
}
