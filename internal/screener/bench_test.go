package screener_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/demo"
	"mdqs/internal/kline"
	"mdqs/internal/market"
	"mdqs/internal/screener"
)

// BenchmarkFullMarketScreen evaluates one screen over the whole market at
// real size (the demo market's 5,300 stocks with 80 days of daily bars in
// SQLite), through the queue's own code path (frame rows, compiled
// expression, sort, limit):
//
//	go test -run '^$' -bench FullMarketScreen -benchmem -benchtime 20x ./screener
//
// "warm" is a screen with the frame's daily part built; "cold" builds it
// in the screen (a new frame every time): what the first screen of a day
// paid before the frame was built ahead. "after-start" is the first screen
// of a new frame after Refresh, the job serve runs at start; "after-new-day"
// is the first screen after the previous day's bars were stored and the
// clock moved to the next trading day, Refresh having run (the job's
// minute tick). Both report their untimed Refresh (build-ms, the work moved
// off the screen) and their time over a warm screen's of the same run
// (x-warm). The setup ingests ~420,000 bars first.
func BenchmarkFullMarketScreen(b *testing.B) {
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "bench.db")
	store, err := db.Open(ctx, path, db.Options{SQLiteSchema: dbtest.SQLiteSchema(b)})
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
	if _, err := svc.Backfill(ctx, codes, market.Daily, 20260715, 20261120, nil); err != nil {
		b.Fatal(err)
	}
	expression := "price > ma20 && ma5 > ma10 && turnover > 3 && main_net > 5e7 && pct_20d > 0 && macd_hist > 0"
	prog, err := screener.Compile(expression)
	if err != nil {
		b.Fatal(err)
	}
	screen := func(frame *screener.Frame) {
		rows, err := frame.Rows(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if len(rows) != 5300 {
			b.Fatalf("%d rows", len(rows))
		}
		if _, err := screener.Evaluate(ctx, prog, rows, "-main_net", 100); err != nil {
			b.Fatal(err)
		}
	}
	timed := func(fn func()) time.Duration {
		start := time.Now()
		fn()
		return time.Since(start)
	}
	// warmScreen is a warm screen's time, measured in the same run as the
	// first screens it is compared with.
	warmScreen := func(frame *screener.Frame) time.Duration {
		var total time.Duration
		for range 5 {
			total += timed(func() { screen(frame) })
		}
		return total / 5
	}
	newFrame := func() *screener.Frame { return screener.NewFrame(store, dm, nil, nil, cal, clock, time.Hour) }
	refresh := func(frame *screener.Frame) {
		if err := frame.Refresh(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("warm", func(b *testing.B) {
		frame := newFrame()
		refresh(frame)
		screen(frame)
		var ms runtime.MemStats
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			screen(frame)
		}
		b.StopTimer()
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MiB")
	})
	b.Run("cold", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			screen(newFrame())
		}
	})
	// first reports a first screen's figures against a warm one's.
	first := func(b *testing.B, frame *screener.Frame, build time.Duration) {
		b.StopTimer()
		warm := warmScreen(frame)
		b.ReportMetric(float64(build)/float64(b.N)/1e6, "build-ms")
		b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(warm), "x-warm")
	}
	b.Run("after-start", func(b *testing.B) {
		b.ReportAllocs()
		var frame *screener.Frame
		var build time.Duration
		for range b.N {
			b.StopTimer()
			frame = newFrame()
			build += timed(func() { refresh(frame) })
			b.StartTimer()
			screen(frame)
		}
		first(b, frame, build)
	})
	b.Run("after-new-day", func(b *testing.B) {
		b.ReportAllocs()
		b.StopTimer()
		frame := newFrame()
		refresh(frame)
		var build time.Duration
		for range b.N {
			b.StopTimer()
			// The day's close: its bars are stored (as the end-of-day job
			// stores them from the quotes); then the next trading day.
			day := market.DayOf(clock.Now())
			clock.Set(day.At(16, 0, 0))
			storeDay(b, store, dm, day)
			clock.Set(cal.Next(day).At(10, 0, 0))
			// The demo market walks the new day at its first quotes:
			// the quote service's work, whoever asks first, not the
			// frame's (a warm screen's snapshot is at hand too).
			if _, err := dm.Quotes(ctx); err != nil {
				b.Fatal(err)
			}
			build += timed(func() { refresh(frame) })
			b.StartTimer()
			screen(frame)
		}
		first(b, frame, build)
	})
	clock.Set(monday10)
	os.Remove(path)
}

// storeDay stores every stock's daily bar of day from the demo market.
func storeDay(b *testing.B, store *db.Store, dm *demo.Market, day market.Day) {
	var batches []db.BarBatch
	err := dm.EachDailyHistory(context.Background(), day, 1, func(code market.Code, bars []market.Bar) error {
		batches = append(batches, db.BarBatch{Code: code, Freq: market.Daily, Source: "demo", Bars: bars})
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := store.IngestBars(context.Background(), batches); err != nil {
		b.Fatal(err)
	}
}
