package demo

import (
	"context"
	"reflect"
	"testing"

	"mdqs/internal/market"
)

// The whole market's history is each stock's Klines.
func TestEachDailyHistoryIsKlines(t *testing.T) {
	m, _ := newMarket(t, smallConfig(5), at(20261123, 16, 0, 0))
	ctx := context.Background()
	seen := 0
	err := m.EachDailyHistory(ctx, 20261123, 30, func(code market.Code, bars []market.Bar) error {
		seen++
		want := klines(t, m, code, market.Daily, bars[0].Day, 20261123)
		if !reflect.DeepEqual(bars, want) {
			t.Fatalf("%v: history %d bars, Klines %d; first %+v vs %+v", code, len(bars), len(want), bars[0], want[0])
		}
		if len(bars) > 30 {
			t.Fatalf("%v: %d bars for 30 days", code, len(bars))
		}
		return nil
	})
	// Every stock that traded on one of those days, no other: a stock
	// delisted before them or suspended all along has none.
	want := 0
	from := m.days[m.onOrBefore(20261123)-29]
	for _, s := range m.Stocks() {
		if len(klines(t, m, s.Code, market.Daily, from, 20261123)) > 0 {
			want++
		}
	}
	if err != nil || seen != want || want < len(m.Stocks())*9/10 {
		t.Fatalf("%d of %d stocks (%d in the universe), %v", seen, want, len(m.Stocks()), err)
	}
}

// 130 days of the whole market at real scale, against the same through
// Klines stock by stock.
func BenchmarkDailyHistory(b *testing.B) {
	for _, bulk := range []bool{true, false} {
		name := "klines_each_stock"
		if bulk {
			name = "each_daily_history"
		}
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			for b.Loop() {
				b.StopTimer()
				m, _ := newMarket(b, DefaultConfig(), at(20261123, 16, 0, 0))
				b.StartTimer()
				bars := 0
				if bulk {
					m.EachDailyHistory(ctx, 20261123, 130, func(code market.Code, bs []market.Bar) error {
						bars += len(bs)
						return nil
					})
				} else {
					for _, s := range m.Stocks() {
						bs, _ := m.Klines(ctx, s.Code, market.Daily, 20260525, 20261123)
						bars += len(bs)
					}
				}
				b.ReportMetric(float64(bars), "bars")
			}
		})
	}
}
