package demo

import (
	"context"
	"math"
	"testing"

	"mdqs/internal/market"
)

func TestNoBarsOnNonTradingDays(t *testing.T) {
	m, _ := newMarket(t, smallConfig(21), at(20261120, 16, 0, 0))
	cal := market.DefaultCalendar()
	c := market.MustCode("600519.SH")
	bars := klines(t, m, c, market.Daily, 20260920, 20261016)
	seen := map[market.Day]bool{}
	for _, b := range bars {
		seen[b.Day] = true
		if !cal.IsTradingDay(b.Day) {
			t.Errorf("a bar on %v (%v), not a trading day", b.Day, b.Day.Weekday())
		}
	}
	for _, d := range cal.Between(20260920, 20261016) {
		if !seen[d] {
			t.Errorf("no bar on trading day %v", d)
		}
	}
	for d := market.Day(20261001); d <= 20261007; d++ {
		if seen[d] {
			t.Errorf("a bar on National Day %v", d)
		}
		if got := klines(t, m, c, market.Min1, d, d); len(got) != 0 {
			t.Errorf("%d minute bars on National Day %v", len(got), d)
		}
	}
	if len(bars) != len(cal.Between(20260920, 20261016)) {
		t.Errorf("%d bars, %d trading days", len(bars), len(cal.Between(20260920, 20261016)))
	}
}

// A Saturday shows Friday's close; so does Friday evening, and a holiday
// shows the last close before it.
func TestClosedDaysShowTheLastClose(t *testing.T) {
	m, _ := newMarket(t, smallConfig(22), at(20261121, 12, 0, 0))
	cases := []struct{ closed, close market.Day }{{20261121, 20261120}, {20261122, 20261120}, {20261003, 20260930}}
	for _, tc := range cases {
		for _, kind := range []market.SectorKind{market.Industry, market.Concept} {
			want := fingerprint(t, sectorsAt(t, m, kind, at(tc.close, 15, 0, 0)))
			for _, x := range []struct {
				d market.Day
				h int
			}{{tc.closed, 10}, {tc.close, 17}, {tc.closed, 23}} {
				if got := fingerprint(t, sectorsAt(t, m, kind, at(x.d, x.h, 0, 0))); got != want {
					t.Fatalf("%s snapshot at %v %02d:00 differs from the close of %v", kind, x.d, x.h, tc.close)
				}
			}
		}
		if fingerprint(t, quotesAt(t, m, at(tc.closed, 10, 0, 0))) != fingerprint(t, quotesAt(t, m, at(tc.close, 15, 0, 0))) {
			t.Fatalf("quotes on %v differ from the close of %v", tc.closed, tc.close)
		}
	}
	// The clock on Saturday: Sectors is Friday's close, as of 15:00.
	s, err := m.Sectors(context.Background(), market.Industry)
	if err != nil || !s.At.Equal(at(20261120, 15, 0, 0)) {
		t.Fatalf("Sectors on Saturday: At %v, %v; want Friday 15:00", s.At, err)
	}
}

func TestSessionPhases(t *testing.T) {
	d := market.Day(20261120)
	m, _ := newMarket(t, smallConfig(23), at(d, 16, 0, 0))
	code := market.MustCode("300750.SZ")
	quote := func(hh, mm, ss int) market.Quote {
		for _, q := range quotesAt(t, m, at(d, hh, mm, ss)) {
			if q.Code == code {
				return q
			}
		}
		t.Fatalf("%v not quoted", code)
		return market.Quote{}
	}
	daily := klines(t, m, code, market.Daily, d, d)[0]
	minutes := klines(t, m, code, market.Min1, d, d)

	pre := quote(9, 10, 0)
	if pre.Price != pre.PrevClose || pre.Volume != 0 || pre.Amount != 0 || pre.Pct != 0 || !math.IsNaN(pre.Open) || !pre.At.Equal(at(d, 9, 10, 0)) {
		t.Fatalf("pre-open quote %+v: want the previous close, nothing traded, open unknown, as of 09:10", pre)
	}
	auction := quote(9, 27, 0)
	if auction.Price != daily.Open || auction.Open != daily.Open || auction.Volume <= 0 ||
		auction.Volume >= minutes[0].Volume || !auction.At.Equal(at(d, 9, 25, 0)) {
		t.Fatalf("auction quote %+v: want the open %v with the auction's volume, as of 09:25", auction, daily.Open)
	}
	if q := quote(9, 30, 59); q.Volume != auction.Volume || !q.At.Equal(at(d, 9, 25, 0)) {
		t.Fatalf("09:30:59 quote %+v: want the auction state as of 09:25; the 09:31 bar is still forming", q)
	}
	noon := quote(11, 30, 0)
	for _, x := range []market.Quote{quote(12, 15, 0), quote(13, 0, 59)} {
		if x.Price != noon.Price || x.Volume != noon.Volume || !x.At.Equal(at(d, 11, 30, 0)) {
			t.Fatalf("lunch quote %+v differs from the 11:30 state %+v", x, noon)
		}
	}
	if noon.Price != minutes[119].Close {
		t.Fatalf("11:30 price %v, 11:30 bar closes %v", noon.Price, minutes[119].Close)
	}
	if q := quote(13, 1, 0); q.Price != minutes[120].Close || !q.At.Equal(at(d, 13, 1, 0)) {
		t.Fatalf("13:01 quote %+v, 13:01 bar %+v", q, minutes[120])
	}
	closing := quote(15, 30, 0)
	if closing.Price != daily.Close || closing.Volume != daily.Volume || closing.High != daily.High || closing.Low != daily.Low {
		t.Fatalf("after-close quote %+v, daily bar %+v", closing, daily)
	}
}

func TestKlinesReturnCompletedBarsOnly(t *testing.T) {
	d := market.Day(20261120)
	m, clk := newMarket(t, smallConfig(24), at(d, 14, 59, 59))
	c := market.MustCode("600519.SH")
	if got := klines(t, m, c, market.Daily, 20261116, 0); len(got) != 4 || got[3].Day != 20261119 {
		t.Fatalf("daily bars at 14:59:59: %d, want Mon-Thu only", len(got))
	}
	if got := klines(t, m, c, market.Min1, d, d); len(got) != 239 {
		t.Fatalf("%d minute bars at 14:59:59, want 239", len(got))
	}
	if got := klines(t, m, c, market.Min5, d, d); len(got) != 47 {
		t.Fatalf("%d five-minute bars at 14:59:59, want 47", len(got))
	}
	clk.Set(at(d, 15, 0, 0))
	if got := klines(t, m, c, market.Daily, 20261116, 0); len(got) != 5 || got[4].Day != d {
		t.Fatalf("daily bars at 15:00: %d, want Mon-Fri", len(got))
	}
	// Days after today have nothing, even when asked for.
	if got := klines(t, m, c, market.Daily, 20261123, 20261130); len(got) != 0 {
		t.Fatalf("%d bars after today", len(got))
	}
	// A zero from gives five days of minute bars.
	if got := klines(t, m, c, market.Min1, 0, 0); len(got) != 5*240 || got[0].Day != 20261116 {
		t.Fatalf("minute bars with from=0: %d starting %v", len(got), got[0].Day)
	}
}

func TestTrends(t *testing.T) {
	d := market.Day(20261120)
	m, clk := newMarket(t, smallConfig(25), at(d, 10, 0, 30))
	c := market.MustCode("000001.SZ")
	trends := func(n int) []market.Bar {
		b, err := m.Trends(context.Background(), c, n)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if got := trends(1); len(got) != 30 || got[0].Day != d || got[29].TS != at(d, 10, 0, 0).Unix() {
		t.Fatalf("Trends(1) at 10:00:30: %d bars, want today's 30", len(got))
	}
	if got := trends(3); len(got) != 2*240+30 || got[0].Day != 20261118 {
		t.Fatalf("Trends(3): %d bars from %v", len(got), got[0].Day)
	}
	full := klines(t, m, c, market.Min1, 20261118, d)
	got := trends(3)
	for i := range got {
		if !sameOHLCV(got[i], full[i]) || got[i].TS != full[i].TS {
			t.Fatalf("Trends bar %d %+v differs from the K-line %+v", i, got[i], full[i])
		}
	}
	clk.Set(at(d, 9, 20, 0)) // before the open trends2 still shows yesterday
	if got := trends(1); len(got) != 240 || got[0].Day != 20261119 {
		t.Fatalf("Trends(1) at 09:20: %d bars of %v, want Thursday's 240", len(got), got[0].Day)
	}
	clk.Set(at(20261122, 9, 0, 0)) // Sunday
	if got := trends(5); len(got) != 5*240 || got[len(got)-1].Day != 20261120 {
		t.Fatalf("Trends(5) on Sunday: %d bars ending %v", len(got), got[len(got)-1].Day)
	}
}
