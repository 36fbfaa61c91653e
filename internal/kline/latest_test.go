package kline_test

import (
	"context"
	"testing"

	"mdqs/db"
	"mdqs/internal/market"
)

// A code's latest bar, 前复权's default anchor (issue 32): the newest bar
// the store holds once the days after it were asked of the source, so a
// store filled only for an old range still anchors at the market's latest
// bar, and an offline or stale store at the newest bar it holds, never at
// a day it has no bar for.
func TestLatestDay(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name    string
		stored  [2]market.Day // the days stored, as an import of old bars leaves them
		offline bool
		hour    int // on Monday 2026-11-23: 10 in the session, 16 after the close
		want    market.Day
	}{
		{"an old range stored, online: the source's latest", [2]market.Day{20170103, 20171229}, false, 16, 20261123},
		{"an old range stored, offline: the newest stored", [2]market.Day{20170103, 20171229}, true, 16, 20171229},
		{"nothing stored, online", [2]market.Day{}, false, 16, 20261123},
		{"nothing stored, offline", [2]market.Day{}, true, 16, 0},
		{"current, in the session: today's forming bar", [2]market.Day{20261102, 20261120}, true, 10, 20261123},
		{"stale, in the session: the newest stored", [2]market.Day{20261102, 20261113}, true, 10, 20261113},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newReadFixture(t)
			f.clock.Set(market.Day(20261123).At(tt.hour, 0, 0))
			code := f.dm.Stocks()[0].Code
			if tt.stored[0] != 0 {
				bars, err := f.dm.Klines(ctx, code, market.Daily, tt.stored[0], tt.stored[1])
				if err != nil || len(bars) == 0 {
					t.Fatalf("demo bars: %d, %v", len(bars), err)
				}
				if _, err := f.store.IngestBars(ctx, []db.BarBatch{{Code: code, Freq: market.Daily, Source: "tdx", Bars: bars,
					Cover: &db.Span{First: tt.stored[0], Last: tt.stored[1]}}}); err != nil {
					t.Fatal(err)
				}
			}
			f.src.offline.Store(tt.offline)
			if got, err := f.svc.LatestDay(ctx, code); err != nil || got != tt.want {
				t.Errorf("LatestDay = %s, %v; want %s", got, err, tt.want)
			}
		})
	}
}
