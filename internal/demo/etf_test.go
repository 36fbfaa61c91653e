package demo

import (
	"context"
	"math"
	"testing"

	"mdqs/internal/market"
)

// The funds' IOPV follows the tracked index's level at the same instant,
// in one fixed proportion (a morning minute and the close of another
// day), and the price stays within the fund's premium of it.
func TestETFsTrackTheirIndices(t *testing.T) {
	d1, d2 := market.Day(20261118), market.Day(20261120)
	m, clk := newMarket(t, smallConfig(7), at(d1, 10, 15, 0))
	ctx := context.Background()
	ratios := map[string]float64{}
	for _, ts := range []struct {
		d      market.Day
		hh, mm int
	}{{d1, 10, 15}, {d2, 15, 5}} {
		now := at(ts.d, ts.hh, ts.mm, 0)
		clk.Set(now)
		etfs, err := m.ETFsAt(ctx, now)
		if err != nil {
			t.Fatal(err)
		}
		if len(etfs) != len(etfDefs()) {
			t.Fatalf("%d funds", len(etfs))
		}
		for i, e := range etfs {
			def := etfDefs()[i]
			if e.Code.String() != def.code || e.Category != def.category || e.DataDate != ts.d || e.Board != "" {
				t.Errorf("fund %+v", e)
			}
			if p := (e.Price - e.IOPV) / e.IOPV * 100; math.Abs(p) > def.premium+0.05 {
				t.Errorf("%s at %v: price %v is %.3f%% off its IOPV %v", e.Code, now, e.Price, p, e.IOPV)
			}
			if d := round2((e.IOPV - e.Price) / e.IOPV * 100); e.DiscountRate != d {
				t.Errorf("%s discount %v, want %v", e.Code, e.DiscountRate, d)
			}
			if def.tracks == "" {
				if e.IOPV < 100 || e.IOPV > 101.5 || !e.Tracks.IsZero() {
					t.Errorf("money fund %+v", e)
				}
				continue
			}
			q, err := m.Quote(ctx, market.MustCode(def.tracks))
			if err != nil {
				t.Fatal(err)
			}
			if e.Tracks != q.Code {
				t.Errorf("%s tracks %v, want %v", e.Code, e.Tracks, q.Code)
			}
			r := e.IOPV / q.Price
			// IOPV is rounded to 0.0001: the ratio is exact to that much.
			if math.Abs(e.IOPV-q.Price*def.ratio) > 0.00005+1e-12 {
				t.Errorf("%s IOPV %v at %s level %v: want %v x %v", e.Code, e.IOPV, def.tracks, q.Price, q.Price, def.ratio)
			}
			if prev, ok := ratios[def.code]; ok && math.Abs(prev-r) > 0.0001/q.Price*2 {
				t.Errorf("%s IOPV/level %v then %v: not one proportion", e.Code, prev, r)
			}
			ratios[def.code] = r
			if e.Volume <= 0 || e.Amount <= 0 || !(e.High >= e.Low) || e.MarketValue != roundYuan(e.Shares*e.Price) {
				t.Errorf("%s figures %+v", e.Code, e)
			}
		}
	}
	if len(ratios) != 4 {
		t.Errorf("%d tracked funds checked", len(ratios))
	}
}

// The same instant gives the same list (the demo's determinism), and
// before the auction the day's range is unknown, not 0.
func TestETFsDeterministicAndPreOpen(t *testing.T) {
	d := market.Day(20261119)
	m1, _ := newMarket(t, smallConfig(7), at(d, 14, 0, 0))
	m2, _ := newMarket(t, smallConfig(7), at(d, 14, 0, 0))
	a, err1 := m1.ETFs(context.Background())
	b, err2 := m2.ETFs(context.Background())
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	for i := range a {
		if a[i].Price != b[i].Price || a[i].IOPV != b[i].IOPV || a[i].Volume != b[i].Volume {
			t.Errorf("%s differs between two markets of one seed", a[i].Code)
		}
	}
	pre, err := m1.ETFsAt(context.Background(), at(d, 9, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if e := pre[0]; !math.IsNaN(e.Open) || !math.IsNaN(e.High) || math.IsNaN(e.IOPV) || e.Volume != 0 {
		t.Errorf("pre-open %+v", e)
	}
}

// A fund's previous close is computed from yesterday's closing level
// (etfbars.go), and yesterday's close was held inside yesterday's limits:
// the two agree only if no close was ever at its clamp. Over the whole
// history of a market and two years past the anchor, they do.
func TestFundClosesChainOverTheHistory(t *testing.T) {
	cfg := smallConfig(3)
	cfg.HistoryStart = 20230101
	m, _ := newMarket(t, cfg, at(20281231, 16, 0, 0))
	ctx := context.Background()
	for f, def := range etfDefs() {
		bars := klines(t, m, market.MustCode(def.code), market.Daily, 0, 0)
		if want := m.onOrBefore(20281231) + 1; len(bars) != want {
			t.Fatalf("%s: %d daily bars over %d days", def.code, len(bars), want)
		}
		for j := 1; j < len(bars); j++ {
			i, _ := m.index(bars[j].Day)
			fd, err := m.fundDayAt(ctx, f, i)
			if err != nil {
				t.Fatal(err)
			}
			if yuan3(fd.prev) != bars[j-1].Close {
				t.Fatalf("%s %v: previous close %v, the day before closed at %v", def.code, bars[j].Day, yuan3(fd.prev), bars[j-1].Close)
			}
		}
	}
}

// The ETF list at a minute of real-market scale (the index days known):
// index_quotes is what the list cost when it was built from its four
// indices' quotes, the baseline; etf_list is the list now, each fund's
// session made from its index's minutes. fund_day and index_minutes are
// one session of 510300.SH and of the 沪深300 minutes it is made from;
// the fund's year of daily bars the first time and from the cache.
// Run: go test ./internal/demo -run '^$' -bench 'ETF|FundBars' -count 5
func BenchmarkETFList(b *testing.B) {
	now := at(20261120, 10, 30, 0)
	m, _ := newMarket(b, DefaultConfig(), now)
	ctx := context.Background()
	if _, err := m.ETFs(ctx); err != nil {
		b.Fatal(err)
	}
	inst, err := m.resolve(now)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("index_quotes", func(b *testing.B) {
		for b.Loop() {
			for k := range 4 {
				if _, err := m.indexQuote(ctx, k, inst); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("etf_list", func(b *testing.B) {
		for b.Loop() {
			if _, err := m.ETFs(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkFundBars(b *testing.B) {
	m, _ := newMarket(b, DefaultConfig(), at(20261120, 16, 0, 0))
	ctx := context.Background()
	code := market.MustCode("510300.SH")
	k, _ := m.indexOf(market.MustCode("000300.SH"))
	from, to := market.Day(20251121), market.Day(20261120)
	if _, err := m.Klines(ctx, market.MustCode("000300.SH"), market.Daily, from, to); err != nil { // the index days, known
		b.Fatal(err)
	}
	i, _ := m.index(to)
	b.Run("index_minutes", func(b *testing.B) {
		for b.Loop() {
			m.indexMinutes(k, i)
		}
	})
	b.Run("fund_day", func(b *testing.B) {
		for b.Loop() {
			if _, err := m.fundDayAt(ctx, 0, i); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("daily_1y_first", func(b *testing.B) {
		for b.Loop() {
			m.funds = fundDays{}
			if bars, err := m.Klines(ctx, code, market.Daily, from, to); err != nil || len(bars) < 240 {
				b.Fatal(len(bars), err)
			}
		}
	})
	b.Run("daily_1y_cached", func(b *testing.B) {
		for b.Loop() {
			if _, err := m.Klines(ctx, code, market.Daily, from, to); err != nil {
				b.Fatal(err)
			}
		}
	})
}
