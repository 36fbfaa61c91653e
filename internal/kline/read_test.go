package kline_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/demo"
	"mdqs/internal/kline"
	"mdqs/internal/market"
)

// switchable is a bar source that can be taken offline, as a trader's PC
// is on a train.
type switchable struct {
	src     kline.BarSource
	offline atomic.Bool
	calls   atomic.Int64
}

func (s *switchable) Klines(ctx context.Context, code market.Code, freq market.Freq, from, to market.Day) ([]market.Bar, error) {
	s.calls.Add(1)
	if s.offline.Load() {
		return nil, errors.New("dial tcp: lookup push2his.eastmoney.com: no such host")
	}
	return s.src.Klines(ctx, code, freq, from, to)
}

type readFixture struct {
	svc   *kline.Service
	store *db.Store
	src   *switchable
	dm    *demo.Market
	cal   *market.Calendar
	clock *market.FixedClock
}

// after is Monday 2026-11-23 after the close: its bars are final.
var after = time.Date(2026, 11, 23, 16, 0, 0, 0, market.Shanghai())

func newReadFixture(t *testing.T) readFixture {
	t.Helper()
	cal := market.DefaultCalendar()
	clock := market.NewFixedClock(after)
	dm, err := demo.New(demo.Config{Seed: 7, Stocks: 60, Industries: 5, Concepts: 5, Calendar: cal}, clock)
	if err != nil {
		t.Fatal(err)
	}
	store := dbtest.Open(t)
	src := &switchable{src: dm}
	window := market.Window{Start: 9*60 + 25, End: 15 * 60}
	in := kline.NewIntraday(dm, cal, window, clock, kline.IntradayConfig{MaxWatched: 10, RefreshAge: time.Minute})
	svc := kline.NewService(store, src, "demo", in, cal, clock, kline.Config{Window: window}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	return readFixture{svc: svc, store: store, src: src, dm: dm, cal: cal, clock: clock}
}

func back(cal *market.Calendar, d market.Day, n int) market.Day {
	for range n {
		d = cal.Prev(d)
	}
	return d
}

// A store that holds the asked days answers them offline, even when the
// range starts in the first days of the code's stored history: reading
// back for the previous close or an indicator's warm-up is not a coverage
// gap. Before, such a request fetched the days before and answered 503.
func TestStoredHistoryIsReadOffline(t *testing.T) {
	f := newReadFixture(t)
	ctx := context.Background()
	code := f.dm.Stocks()[0].Code
	last := market.Day(20261123)
	// A new listing with two bars, as a terminal import leaves it: the
	// coverage is exactly its two days.
	first := back(f.cal, last, 1)
	bars, err := f.dm.Klines(ctx, code, market.Daily, first, last)
	if err != nil || len(bars) != 2 {
		t.Fatalf("demo bars: %d, %v", len(bars), err)
	}
	if _, err := f.store.IngestBars(ctx, []db.BarBatch{{Code: code, Freq: market.Daily, Source: "tdx", Bars: bars,
		Cover: &db.Span{First: first, Last: last}}}); err != nil {
		t.Fatal(err)
	}
	f.src.offline.Store(true)
	for _, tt := range []struct {
		name     string
		from     market.Day
		warmDays int
		want     int
	}{
		{"from the listing day, ma20 warm-up", first, 21, 2},
		{"the second day, previous close", last, 2, 2},
	} {
		r := kline.Range{From: tt.from.Start(), To: last.At(23, 59, 59), WarmFrom: back(f.cal, tt.from, tt.warmDays).Start()}
		ser, err := f.svc.Series(ctx, code, market.Daily, r)
		if err != nil || len(ser.Bars) != tt.want {
			t.Errorf("%s, offline: %d bars, %v; want %d", tt.name, len(ser.Bars), err, tt.want)
		}
	}
	// Days the store does not hold are still an outage, said as such.
	r := kline.Range{From: back(f.cal, first, 10).Start(), To: last.At(23, 59, 59)}
	if _, err := f.svc.Series(ctx, code, market.Daily, r); market.KindOf(err) != market.KindUnavailable {
		t.Errorf("days outside the store, offline: %v; want unavailable", err)
	}
	// Online, the warm-up days are fetched and kept: the coverage grows to
	// them, so the next request asks nothing.
	f.src.offline.Store(false)
	r = kline.Range{From: first.Start(), To: last.At(23, 59, 59), WarmFrom: back(f.cal, first, 30).Start()}
	ser, err := f.svc.Series(ctx, code, market.Daily, r)
	if err != nil || len(ser.Bars) < 2 {
		t.Fatalf("online: %d bars, %v", len(ser.Bars), err)
	}
	cov, _, _, _ := f.store.Coverage(ctx, code, market.Daily)
	if cov.First > back(f.cal, first, 30) {
		t.Errorf("coverage %v after an online warm-up from %v", cov, back(f.cal, first, 30))
	}
	calls := f.src.calls.Load()
	f.svc.Series(ctx, code, market.Daily, r)
	if f.src.calls.Load() != calls {
		t.Errorf("a covered warm-up was fetched again")
	}
}

// with_realtime pages back as far as a K-line range reads: before, paging
// stopped (has_more false) at the first screen's default depth of one
// year while /v1/api/kline read years further back.
func TestPagesReachAsFarBackAsARange(t *testing.T) {
	f := newReadFixture(t)
	ctx := context.Background()
	code := f.dm.Stocks()[0].Code
	pager, err := kline.NewPager(f.svc, time.Minute, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pager.Close)
	const size = 100
	var paged []market.Bar
	for n := 1; ; n++ {
		p, err := pager.Get(ctx, code, market.Daily, n, size, 19)
		if err != nil {
			t.Fatalf("page %d: %v", n, err)
		}
		paged = append(paged, p.Bars...)
		if !p.More {
			break
		}
		if n > 100 {
			t.Fatal("paging does not end")
		}
	}
	oldest := paged[len(paged)-1]
	ser, err := f.svc.Series(ctx, code, market.Daily, kline.Range{From: market.Day(20150105).Start(), To: after})
	if err != nil {
		t.Fatal(err)
	}
	if len(paged) != len(ser.Bars) || oldest.TS != ser.Bars[0].TS {
		t.Fatalf("paging reached %d bars back to %v; the range read %d back to %v", len(paged), oldest.Day, len(ser.Bars), ser.Bars[0].Day)
	}
	if len(paged) <= 250 {
		t.Fatalf("only %d bars paged: the demo stock has years of history", len(paged))
	}
	for i := range paged {
		if paged[i] != ser.Bars[len(ser.Bars)-1-i] {
			t.Fatalf("paged bar %d %+v differs from the range's %+v", i, paged[i], ser.Bars[len(ser.Bars)-1-i])
		}
	}
}

// WarmBars reads only that many bars before the range's day: a 1-minute
// request that needs the previous close gets the one bar before, the last
// of the day before, not the whole days the warm-up window spans; without
// it the window's bars all come.
func TestWarmBarsReadsOnlyWhatIsNeeded(t *testing.T) {
	f := newReadFixture(t)
	ctx := context.Background()
	code := f.dm.Stocks()[0].Code
	day := market.Day(20261123)
	prev, prev2 := f.cal.Prev(day), back(f.cal, day, 2)
	rng := kline.Range{From: day.Start(), To: day.At(15, 0, 0), WarmFrom: prev2.Start()}
	whole, err := f.svc.Series(ctx, code, market.Min1, rng)
	if err != nil {
		t.Fatal(err)
	}
	rng.WarmBars = 1
	one, err := f.svc.Series(ctx, code, market.Min1, rng)
	if err != nil {
		t.Fatal(err)
	}
	var inDay int
	for _, b := range whole.Bars {
		if b.Day == day {
			inDay++
		}
	}
	if inDay != 240 || len(whole.Bars) != 3*240 {
		t.Fatalf("without WarmBars: %d bars, %d of %v; want the 720 of three days", len(whole.Bars), inDay, day)
	}
	if len(one.Bars) != 241 {
		t.Fatalf("WarmBars 1: %d bars, want 241 (one before, the day's 240)", len(one.Bars))
	}
	if got, want := one.Bars[0], whole.Bars[2*240-1]; got != want || got.Day != prev {
		t.Errorf("the bar before: %+v, want the last of %v %+v", got, prev, want)
	}
	if got, want := one.Bars[1:], whole.Bars[2*240:]; !slicesEqual(got, want) {
		t.Error("the day's bars differ with WarmBars")
	}
	// A warm-up larger than what is stored gives what there is.
	rng.WarmBars = 10_000
	all, err := f.svc.Series(ctx, code, market.Min1, rng)
	if err != nil {
		t.Fatal(err)
	}
	if !slicesEqual(all.Bars, whole.Bars) {
		t.Errorf("WarmBars beyond the window: %d bars, want the window's %d", len(all.Bars), len(whole.Bars))
	}
}

func slicesEqual(a, b []market.Bar) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && !(a[i].TS == b[i].TS && a[i].Close == b[i].Close) {
			return false
		}
	}
	return true
}
