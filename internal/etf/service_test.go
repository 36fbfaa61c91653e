package etf

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

var t0 = time.Date(2026, 11, 23, 10, 0, 0, 0, market.Shanghai())

type fakeSource struct {
	calls atomic.Int32
	mu    sync.Mutex
	rows  []market.ETF
	err   error
	gate  chan struct{}
}

func (f *fakeSource) ETFs(ctx context.Context) ([]market.ETF, error) {
	f.calls.Add(1)
	if f.gate != nil {
		<-f.gate
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.rows, f.err
}

func (f *fakeSource) set(rows []market.ETF, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rows, f.err = rows, err
}

func fund(code, cat string, price, iopv, discount float64, day market.Day, at time.Time) market.ETF {
	return market.ETF{Code: market.MustCode(code), Name: code, Category: cat, Price: price, IOPV: iopv, DiscountRate: discount,
		Pct: math.NaN(), Amount: price * 1e6, Volume: int64(price * 1e4), Turnover: math.NaN(), DataDate: day, At: at}
}

func rows() []market.ETF {
	return []market.ETF{
		fund("510300.SH", market.ETFAShare, 3.912, 3.9105, -0.04, 20261123, t0.Add(-time.Minute)),
		fund("513100.SH", market.ETFCrossBorder, 1.634, 1.5962, -2.37, 20261123, t0.Add(-2*time.Minute)),
		fund("511880.SH", market.ETFMoney, 100.652, math.NaN(), math.NaN(), 20261120, t0.Add(-3*time.Minute)),
		fund("159915.SZ", market.ETFAShare, 2.187, 2.1892, 0.1, 20261123, t0.Add(-time.Minute)),
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestPremium(t *testing.T) {
	for _, tc := range []struct{ price, iopv, want float64 }{
		{1.634, 1.5962, (1.634 - 1.5962) / 1.5962 * 100}, {2.187, 2.1892, (2.187 - 2.1892) / 2.1892 * 100}, {1, 1, 0},
		{math.NaN(), 1, math.NaN()}, {1, math.NaN(), math.NaN()}, {1, 0, math.NaN()}, {1, -1, math.NaN()}, {0, 1, math.NaN()},
	} {
		got := Premium(tc.price, tc.iopv)
		if math.IsNaN(tc.want) != math.IsNaN(got) || !math.IsNaN(got) && !near(got, tc.want) {
			t.Errorf("Premium(%v, %v) = %v, want %v", tc.price, tc.iopv, got, tc.want)
		}
	}
}

func TestListDerivesAndFreshness(t *testing.T) {
	clock := market.NewFixedClock(t0)
	src := &fakeSource{rows: rows()}
	s := New(src, clock, Config{Soft: time.Minute, Hard: time.Hour, Source: "push2"})
	l, err := s.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if l.Source != "push2" || l.DataDate != 20261123 || !l.AsOf.Equal(t0.Add(-time.Minute)) || !l.Fetched.Equal(t0) || l.Stale || l.Partial != "" {
		t.Errorf("list %+v", l)
	}
	// The source's discount is kept raw; the premium is mdqs's, and its
	// sign is the opposite of the discount's on the same figures.
	nq := l.Rows[1]
	if !near(nq.PremiumPct, 2.3681242952) || nq.DiscountRate != -2.37 {
		t.Errorf("513100 premium %v discount %v", nq.PremiumPct, nq.DiscountRate)
	}
	if !math.IsNaN(l.Rows[2].PremiumPct) {
		t.Errorf("511880 without IOPV has premium %v", l.Rows[2].PremiumPct)
	}
	for _, r := range l.Rows[:2] {
		if math.Signbit(r.PremiumPct) == math.Signbit(r.DiscountRate) {
			t.Errorf("%s premium %v and discount %v have one sign", r.Code, r.PremiumPct, r.DiscountRate)
		}
	}
	// Within the soft age: no new call.
	clock.Advance(59 * time.Second)
	if _, err := s.List(context.Background()); err != nil || src.calls.Load() != 1 {
		t.Errorf("calls %d, %v", src.calls.Load(), err)
	}
	clock.Advance(time.Second)
	if _, err := s.List(context.Background()); err != nil || src.calls.Load() != 2 {
		t.Errorf("calls %d after the soft age, %v", src.calls.Load(), err)
	}
}

func TestListSharesOneCall(t *testing.T) {
	src := &fakeSource{rows: rows(), gate: make(chan struct{})}
	s := New(src, market.NewFixedClock(t0), Config{Source: "push2"})
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if l, err := s.List(context.Background()); err != nil || len(l.Rows) != 4 {
				t.Errorf("%v", err)
			}
		}()
	}
	time.Sleep(20 * time.Millisecond)
	close(src.gate)
	wg.Wait()
	if n := src.calls.Load(); n != 1 {
		t.Errorf("%d source calls for 8 requests at once", n)
	}
}

func TestListOutage(t *testing.T) {
	clock := market.NewFixedClock(t0)
	down := &upstream.Error{Kind: upstream.KindTransport, Source: "push2", Path: "/api/qt/clist/get", Detail: "connection refused"}
	src := &fakeSource{err: down}
	s := New(src, clock, Config{Soft: time.Minute, Hard: time.Hour, Source: "push2"})
	// Nothing held: a 503 naming the source, held for errorHold.
	_, err := s.List(context.Background())
	var me *market.Error
	if !errors.As(err, &me) || me.Kind != market.KindUnavailable || !strings.Contains(me.Detail, "the ETF list from push2 failed") ||
		!strings.Contains(me.Detail, "connection refused") {
		t.Fatalf("err %v", err)
	}
	if _, err2 := s.List(context.Background()); err2 != err || src.calls.Load() != 1 {
		t.Errorf("second request within the hold: %v, %d calls", err2, src.calls.Load())
	}
	// The source comes back.
	clock.Advance(errorHold)
	src.set(rows(), nil)
	if l, err := s.List(context.Background()); err != nil || l.Stale {
		t.Fatalf("%v", err)
	}
	// It fails again past the soft age: the held list, marked stale.
	src.set(nil, down)
	clock.Advance(2 * time.Minute)
	l, err := s.List(context.Background())
	if err != nil || !l.Stale || !strings.Contains(l.Problem, "connection refused") || len(l.Rows) != 4 {
		t.Fatalf("%+v, %v", l, err)
	}
	calls := src.calls.Load()
	if l2, _ := s.List(context.Background()); l2 != l || src.calls.Load() != calls {
		t.Errorf("within the hold the stale list is served without a call")
	}
	// Past the hard age: nothing to serve, a 503.
	clock.Advance(time.Hour)
	if _, err := s.List(context.Background()); market.KindOf(err) != market.KindUnavailable {
		t.Errorf("past the hard age: %v", err)
	}
}

func TestListPartialKept(t *testing.T) {
	partial := &upstream.Error{Kind: upstream.KindPartial, Source: "push2", Detail: "ETF boards cut short: MK0021: got 2 of 3 rows"}
	s := New(&fakeSource{rows: rows()[:2], err: partial}, market.NewFixedClock(t0), Config{Source: "push2"})
	l, err := s.List(context.Background())
	if err != nil || len(l.Rows) != 2 || !strings.Contains(l.Partial, "MK0021: got 2 of 3") {
		t.Errorf("%+v %v", l, err)
	}
	s = New(&fakeSource{}, market.NewFixedClock(t0), Config{Source: "demo"})
	if _, err := s.List(context.Background()); market.KindOf(err) != market.KindUnavailable {
		t.Errorf("empty list: %v", err)
	}
}

func codes(rs []Row) string {
	var b []string
	for _, r := range rs {
		b = append(b, r.Code.Symbol)
	}
	return strings.Join(b, " ")
}

func TestSelect(t *testing.T) {
	s := New(&fakeSource{rows: rows()}, market.NewFixedClock(t0), Config{Source: "push2"})
	l, _ := s.List(context.Background())
	for _, tc := range []struct {
		q     Query
		want  string
		total int
	}{
		{Query{}, "159915 510300 511880 513100", 4},
		{Query{Order: "desc"}, "513100 511880 510300 159915", 4},
		{Query{Category: market.ETFAShare}, "159915 510300", 2},
		{Query{Sort: "premium"}, "513100 510300 159915 511880", 4}, // unknown last
		{Query{Sort: "premium", Order: "asc"}, "159915 510300 513100 511880", 4},
		{Query{Sort: "discount", Limit: 2}, "159915 510300", 4},
		{Query{Sort: "pct"}, "159915 510300 511880 513100", 4}, // all unknown: by code
		{Query{Category: market.ETFGold}, "", 0},
	} {
		got, total := Select(l.Rows, tc.q)
		if codes(got) != tc.want || total != tc.total {
			t.Errorf("Select(%+v) = %q (%d), want %q (%d)", tc.q, codes(got), total, tc.want, tc.total)
		}
	}
	if codes(l.Rows) != "510300 513100 511880 159915" {
		t.Errorf("Select changed the held rows: %s", codes(l.Rows))
	}
	if len(SortFields()) != len(sortKeys)+1 {
		t.Errorf("SortFields and sortKeys differ")
	}
}

// Quotes is the list as the security master records it: each fund with
// its code, name, price and volume at the row's time; a stale list is an
// error, not funds of another moment.
func TestQuotesForTheDaysRecord(t *testing.T) {
	clock := market.NewFixedClock(t0)
	src := &fakeSource{rows: rows()}
	s := New(src, clock, Config{Soft: time.Minute, Hard: time.Hour, Source: "push2"})
	qs, err := s.Quotes(context.Background())
	if err != nil || len(qs) != 4 {
		t.Fatalf("%d quotes, %v", len(qs), err)
	}
	if q := qs[0]; q.Code.String() != "510300.SH" || q.Name != "510300.SH" || q.Price != 3.912 || q.Volume != 39120 ||
		!q.At.Equal(t0.Add(-time.Minute)) {
		t.Errorf("first quote %+v", q)
	}
	src.set(nil, &upstream.Error{Kind: upstream.KindTransport, Source: "push2", Detail: "connection refused"})
	clock.Advance(2 * time.Minute)
	if qs, err := s.Quotes(context.Background()); err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("a stale list gave %d quotes, %v", len(qs), err)
	}
}
