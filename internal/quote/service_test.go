package quote

import (
	"context"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"mdqs/internal/demo"
	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

// t0 is a Monday morning in Shanghai, inside a trading session.
var t0 = time.Date(2026, 11, 23, 10, 0, 0, 0, market.Shanghai())

// fakeSnapshot counts its calls and answers rows or an error.
type fakeSnapshot struct {
	calls atomic.Int32
	mu    sync.Mutex
	rows  []market.Quote
	err   error
	gate  chan struct{} // when set, each call waits for it
}

func (f *fakeSnapshot) Quotes(ctx context.Context) ([]market.Quote, error) {
	f.calls.Add(1)
	if f.gate != nil {
		<-f.gate
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.rows, f.err
}

func stockQuote(code, name string, prev, price float64, vol int64) market.Quote {
	return market.Quote{Code: market.MustCode(code), Name: name, PrevClose: prev, Price: price, Volume: vol, At: t0,
		Pct: (price/prev - 1) * 100, Open: prev, High: price, Low: prev}
}

func newService(t *testing.T, snap Snapshot, single Single, clock market.Clock) *Service {
	t.Helper()
	return New(snap, single, market.DefaultCalendar(), clock, Config{Age: time.Minute, Source: "push2"})
}

func TestSnapshotSharedAndRefreshedByAge(t *testing.T) {
	clock := market.NewFixedClock(t0)
	snap := &fakeSnapshot{rows: []market.Quote{stockQuote("600519.SH", "贵州茅台", 1500, 1510, 1000)}, gate: make(chan struct{})}
	s := newService(t, snap, nil, clock)
	// Ten quote requests and a screen at once: one upstream walk.
	var wg sync.WaitGroup
	errs := make(chan error, 11)
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.Lookup(context.Background(), []market.Code{market.MustCode("600519.SH")})
			errs <- err
		}()
	}
	wg.Add(1)
	go func() { defer wg.Done(); _, err := s.Quotes(context.Background()); errs <- err }()
	time.Sleep(20 * time.Millisecond) // let them all queue behind the first
	close(snap.gate)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := snap.calls.Load(); n != 1 {
		t.Fatalf("%d snapshot calls for 11 concurrent readers, want 1", n)
	}
	clock.Advance(59 * time.Second)
	s.Quotes(context.Background())
	if n := snap.calls.Load(); n != 1 {
		t.Fatalf("%d calls within the age", n)
	}
	clock.Advance(time.Second)
	s.Quotes(context.Background())
	if n := snap.calls.Load(); n != 2 {
		t.Fatalf("%d calls once the age passed, want 2", n)
	}
}

func TestLookupDerives(t *testing.T) {
	clock := market.NewFixedClock(t0)
	st := stockQuote("600107.SH", "ST美尔雅", 3.35, 3.40, 5000)
	susp := market.Quote{Code: market.MustCode("000040.SZ"), Name: "东旭蓝天", PrevClose: 2.18, Price: math.NaN(), Volume: -1, At: t0}
	src := stockQuote("000725.SZ", "京东方Ａ", 8.15, 7.59, 100)
	src.LimitUp, src.LimitDown = 8.97, 7.34
	snap := &fakeSnapshot{rows: []market.Quote{st, susp, src}}
	s := newService(t, snap, nil, clock)
	got, err := s.Lookup(context.Background(), []market.Code{market.MustCode("000725.SZ"), market.MustCode("600107.SH"), market.MustCode("000040.SZ")})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Code.String() != "000725.SZ" || got[1].Code.String() != "600107.SH" {
		t.Fatalf("order: %v", got)
	}
	for _, tt := range []struct {
		q        Quote
		status   Status
		up, down float64
		from     string
	}{
		{got[0], Trading, 8.97, 7.34, "source"},
		{got[1], Trading, math.NaN(), math.NaN(), ""}, // main-board ST: no rule-based limit since the 2025 proposal
		{got[2], Suspended, 2.4, 1.96, "rule"},
	} {
		same := func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }
		if tt.q.Status != tt.status || !same(tt.q.LimitUp, tt.up) || !same(tt.q.LimitDown, tt.down) || tt.q.LimitFrom != tt.from ||
			tt.q.Source != "push2" || tt.q.Type != market.TypeStock || tt.q.Auction != nil {
			t.Errorf("%s: status %s limits %v/%v from %q source %q type %s auction %v", tt.q.Code, tt.q.Status, tt.q.LimitUp, tt.q.LimitDown,
				tt.q.LimitFrom, tt.q.Source, tt.q.Type, tt.q.Auction)
		}
	}
}

func TestLookupUnknownAndCaps(t *testing.T) {
	clock := market.NewFixedClock(t0)
	snap := &fakeSnapshot{rows: []market.Quote{stockQuote("600519.SH", "贵州茅台", 1500, 1510, 1000)}}
	var singleCalls atomic.Int32
	single := singleFunc(func(ctx context.Context, c market.Code) (market.Quote, error) {
		singleCalls.Add(1)
		if c.String() == "000001.SH" {
			return market.Quote{Code: c, Name: "上证指数", PrevClose: 3800, Price: 3810, Volume: 1, At: t0}, nil
		}
		return market.Quote{}, &upstream.Error{Kind: upstream.KindEmpty, Detail: "data is null (no such security)"}
	})
	s := newService(t, snap, single, clock)
	ctx := context.Background()
	// A stock the complete snapshot lacks is unknown without a call; a
	// non-stock code is asked, and push2's data:null is unknown too.
	_, err := s.Lookup(ctx, []market.Code{market.MustCode("600519.SH"), market.MustCode("600000.SH"), market.MustCode("399999.SZ")})
	var me *market.Error
	if !errors.As(err, &me) || me.Kind != market.KindNotFound || !strings.Contains(me.Detail, "399999.SZ, 600000.SH") {
		t.Fatalf("err = %v, want not found naming both codes", err)
	}
	if n := singleCalls.Load(); n != 1 {
		t.Errorf("%d single calls, want 1 (the index-range code only)", n)
	}
	// The unknown answer is kept for the age: asking again costs nothing.
	s.Lookup(ctx, []market.Code{market.MustCode("399999.SZ")})
	if n := singleCalls.Load(); n != 1 {
		t.Errorf("%d single calls after asking again, want 1", n)
	}
	got, err := s.Lookup(ctx, []market.Code{market.MustCode("000001.SH")})
	if err != nil || got[0].Name != "上证指数" || got[0].Type != market.TypeIndex || !math.IsNaN(got[0].LimitUp) || got[0].LimitFrom != "" {
		t.Fatalf("index: %+v, %v", got, err)
	}
	many := make([]market.Code, 101)
	for i := range many {
		many[i] = market.Code{Symbol: "600" + string(rune('0'+i/100)) + string(rune('0'+i/10%10)) + string(rune('0'+i%10)), Exchange: market.SH}
	}
	if _, err := s.Lookup(ctx, many); market.KindOf(err) != market.KindInvalid || !strings.Contains(err.Error(), "at most 100") {
		t.Errorf("101 codes: %v", err)
	}
	indices := make([]market.Code, 21)
	for i := range indices {
		indices[i] = market.Code{Symbol: "3990" + string(rune('0'+i/10)) + string(rune('0'+i%10)), Exchange: market.SZ}
	}
	if _, err := s.Lookup(ctx, indices); market.KindOf(err) != market.KindInvalid || !strings.Contains(err.Error(), "at most 20") {
		t.Errorf("21 single calls: %v", err)
	}
}

type singleFunc func(ctx context.Context, c market.Code) (market.Quote, error)

func (f singleFunc) Quote(ctx context.Context, c market.Code) (market.Quote, error) { return f(ctx, c) }

func TestLookupOutage(t *testing.T) {
	clock := market.NewFixedClock(t0)
	down := &upstream.Error{Kind: upstream.KindTimeout, Source: "push2", Path: "/api/qt/clist/get", Attempts: 4}
	snap := &fakeSnapshot{err: down}
	s := newService(t, snap, nil, clock)
	_, err := s.Lookup(context.Background(), []market.Code{market.MustCode("600519.SH")})
	var me *market.Error
	if !errors.As(err, &me) || me.Kind != market.KindUnavailable || !strings.Contains(me.Detail, "the quote snapshot from push2 failed") {
		t.Fatalf("err = %v, want unavailable naming push2", err)
	}
	// A burst during the outage costs one call per errorHold.
	s.Lookup(context.Background(), []market.Code{market.MustCode("600519.SH")})
	if n := snap.calls.Load(); n != 1 {
		t.Errorf("%d calls within the hold, want 1", n)
	}
	clock.Advance(errorHold)
	snap.mu.Lock()
	snap.rows, snap.err = []market.Quote{stockQuote("600519.SH", "贵州茅台", 1500, 1510, 1000)}, nil
	snap.mu.Unlock()
	if _, err := s.Lookup(context.Background(), []market.Code{market.MustCode("600519.SH")}); err != nil || snap.calls.Load() != 2 {
		t.Errorf("after the hold: %v, %d calls", err, snap.calls.Load())
	}
}

// replayStockGet serves push2 stock/get from the fixtures by secid, as
// push2 would: an unknown secid is data:null.
func replayStockGet(t *testing.T) (*upstream.Push2, *atomic.Int32) {
	t.Helper()
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if r.URL.Path != "/api/qt/stock/get" {
			http.NotFound(w, r)
			return
		}
		body := read("made_push2_stock_get_data_null.json")
		switch r.URL.Query().Get("secid") {
		case "0.000725":
			body = read("made_push2_stock_get_000725_fltt2.json")
		case "1.000001":
			body = read("made_push2_stock_get_000001_index_fltt2.json")
		case "1.510300":
			body = read("made_push2_stock_get_510300_fund_fltt2.json")
		}
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	cfg := upstream.DefaultConfig().Push2
	cfg.BaseURL, cfg.Retries, cfg.Rate, cfg.Burst = srv.URL, -1, 1000, 1000
	p2, err := upstream.NewPush2(cfg, upstream.NewLimiters(), market.NewFixedClock(t0))
	if err != nil {
		t.Fatal(err)
	}
	return p2, &n
}

func TestLookupPerCodeUpstream(t *testing.T) {
	p2, requests := replayStockGet(t)
	clock := market.NewFixedClock(time.Date(2026, 7, 10, 15, 20, 0, 0, market.Shanghai()))
	// A partial walk: the stocks it missed are asked one by one.
	partial := &upstream.Error{Kind: upstream.KindPartial, Source: "push2", Detail: "got 1 of 5549 rows"}
	snap := &fakeSnapshot{rows: []market.Quote{stockQuote("600519.SH", "贵州茅台", 1500, 1510, 1000)}, err: partial}
	s := newService(t, snap, p2, clock)
	got, err := s.Lookup(context.Background(), []market.Code{market.MustCode("000725.SZ"), market.MustCode("000001.SH")})
	if err != nil {
		t.Fatal(err)
	}
	b := got[0]
	if b.Name != "京东方Ａ" || b.Price != 7.59 || b.LimitUp != 8.97 || b.LimitDown != 7.34 || b.LimitFrom != "source" ||
		len(b.Bids) != 5 || b.Bids[0] != (market.Level{Price: 7.58, Volume: 3512000}) || b.Asks[0] != (market.Level{Price: 7.59, Volume: 6123300}) ||
		b.Status != Closed || !b.At.Equal(time.Date(2026, 7, 10, 15, 10, 0, 0, market.Shanghai())) {
		t.Errorf("000725: %+v", b)
	}
	x := got[1]
	if x.Name != "上证指数" || x.Price != 3832.26 || x.Type != market.TypeIndex || !math.IsNaN(x.LimitUp) || x.Bids != nil {
		t.Errorf("000001.SH: %+v", x)
	}
	if n := requests.Load(); n != 2 {
		t.Errorf("%d stock/get requests, want 2", n)
	}
	if _, err := s.Lookup(context.Background(), []market.Code{market.MustCode("000725.SZ")}); err != nil || requests.Load() != 2 {
		t.Errorf("a second lookup within the age asked again: %v, %d", err, requests.Load())
	}
	if _, err := s.Lookup(context.Background(), []market.Code{market.MustCode("399998.SZ")}); market.KindOf(err) != market.KindNotFound {
		t.Errorf("an unknown index: %v", err)
	}
}

// An ETF is not in the A-share snapshot: its quote is push2's single
// quote, a fund with the source's limit prices in its 0.001 tick. A fund
// whose source gives no limits gets none: the stocks' rule (a cent, and
// 20 % for a ChiNext-index fund that a code cannot tell) is not applied.
func TestLookupFund(t *testing.T) {
	p2, _ := replayStockGet(t)
	clock := market.NewFixedClock(time.Date(2026, 11, 23, 15, 20, 0, 0, market.Shanghai()))
	snap := &fakeSnapshot{rows: []market.Quote{stockQuote("600519.SH", "贵州茅台", 1500, 1510, 1000)}}
	got, err := newService(t, snap, p2, clock).Lookup(context.Background(), []market.Code{market.MustCode("510300.SH")})
	if err != nil {
		t.Fatal(err)
	}
	if f := got[0]; f.Type != market.TypeFund || f.Price != 3.725 || f.LimitUp != 4.083 || f.LimitDown != 3.341 || f.LimitFrom != "source" {
		t.Errorf("510300.SH: %+v", f)
	}
	bare := singleFunc(func(ctx context.Context, c market.Code) (market.Quote, error) {
		return stockQuote(c.String(), "创业板ETF", 2.5, 2.6, 1000), nil
	})
	got, err = newService(t, snap, bare, clock).Lookup(context.Background(), []market.Code{market.MustCode("159915.SZ")})
	if err != nil {
		t.Fatal(err)
	}
	if f := got[0]; f.Type != market.TypeFund || !math.IsNaN(f.LimitUp) || !math.IsNaN(f.LimitDown) || f.LimitFrom != "" {
		t.Errorf("159915.SZ without the source's limits: %+v", f)
	}
}

func newDemo(t *testing.T, clock market.Clock) *demo.Market {
	t.Helper()
	dm, err := demo.New(demo.Config{Seed: 7, Stocks: 300, Industries: 20, Concepts: 40, Calendar: market.DefaultCalendar()}, clock)
	if err != nil {
		t.Fatal(err)
	}
	return dm
}

func TestDemoIndicesAndAuction(t *testing.T) {
	clock := market.NewFixedClock(t0)
	dm := newDemo(t, clock)
	s := New(dm, dm, market.DefaultCalendar(), clock, Config{Age: time.Minute, Source: "demo"})
	ctx := context.Background()
	codes := []market.Code{market.MustCode("000001.SH"), market.MustCode("399001.SZ"), market.MustCode("399006.SZ"), market.MustCode("600519.SH")}
	day := market.DayOf(t0)
	for _, tt := range []struct {
		at     time.Time
		status Status
	}{
		{day.At(9, 20, 0), Auction}, {day.At(9, 27, 0), Auction}, {day.At(10, 0, 0), Trading},
		{day.At(12, 0, 0), Break}, {day.At(15, 30, 0), Closed},
	} {
		clock.Set(tt.at)
		got, err := s.Lookup(ctx, codes)
		if err != nil {
			t.Fatalf("%s: %v", market.FormatTime(tt.at), err)
		}
		for _, q := range got {
			if q.Status != tt.status || q.Source != "demo" {
				t.Errorf("%s %s: status %s source %s, want %s", market.FormatTime(tt.at), q.Code, q.Status, q.Source, tt.status)
			}
		}
		stock := got[3]
		if stock.LimitFrom != "source" || !(stock.LimitUp > stock.PrevClose) {
			t.Errorf("%s: the demo's own limits: %v/%v from %q", stock.Code, stock.LimitUp, stock.LimitDown, stock.LimitFrom)
		}
		switch clock.Now().Hour()*100 + clock.Now().Minute() {
		case 920: // the demo has no indicative price before 09:25
			if a := stock.Auction; a == nil || !math.IsNaN(a.Price) || a.Volume != 0 || a.Matched {
				t.Errorf("09:20 auction %+v", a)
			}
		case 927:
			if a := stock.Auction; a == nil || a.Price != stock.Open || !(a.Volume > 0) || !a.Matched {
				t.Errorf("09:27 auction %+v (open %v)", a, stock.Open)
			}
		case 1530:
			// After the close each index's quote is its daily bar.
			for _, q := range got[:3] {
				bars, err := dm.Klines(ctx, q.Code, market.Daily, day.AddDays(-10), day)
				if err != nil {
					t.Fatal(err)
				}
				last, prev := bars[len(bars)-1], bars[len(bars)-2]
				if last.Day != day || q.Price != last.Close || q.Open != last.Open || q.High != last.High || q.Low != last.Low ||
					q.PrevClose != prev.Close || q.Volume != last.Volume {
					t.Errorf("%s at 15:30: %+v, daily bar %+v, previous close %v", q.Code, q.Quote, last, prev.Close)
				}
			}
		case 1000:
			for _, q := range got[:3] {
				bars, err := dm.Trends(ctx, q.Code, 1)
				if err != nil {
					t.Fatal(err)
				}
				if last := bars[len(bars)-1]; q.Price != last.Close || q.Type != market.TypeIndex || !math.IsNaN(q.LimitUp) {
					t.Errorf("%s at 10:00: %v, last minute closes %v", q.Code, q.Price, last.Close)
				}
			}
		}
	}
	if _, err := s.Lookup(ctx, []market.Code{market.MustCode("000300.SH"), market.MustCode("399005.SZ")}); market.KindOf(err) != market.KindNotFound ||
		!strings.Contains(err.Error(), "399005.SZ") {
		t.Errorf("an index the demo lacks: %v", err)
	}
}
