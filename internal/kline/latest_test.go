package kline_test

import (
	"context"
	"testing"

	"mdqs/db"
	"mdqs/internal/market"
)

// A code's latest bar, 前复权's default anchor (issue 32): the newest bar
// the store holds, once the days after it were asked of the source where
// the stored bars are the source's own, so a store filled only for an old
// range still anchors at the market's latest bar; an offline or stale
// store, and a terminal's bars, at the newest bar held, never at a day
// without a bar.
func TestLatestDay(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name    string
		stored  [2]market.Day // the days stored
		by      string        // their importer: "demo" is the fixture's source, filling on demand
		offline bool
		hour    int // on Monday 2026-11-23: 10 in the session, 16 after the close
		want    market.Day
		asks    bool // whether the source is asked
	}{
		{"an old range read through, online: the source's latest", [2]market.Day{20170103, 20171229}, "demo", false, 16, 20261123, true},
		{"an old range read through, offline: the newest stored", [2]market.Day{20170103, 20171229}, "demo", true, 16, 20171229, true},
		{"a stale terminal's bars: its last, unasked", [2]market.Day{20170103, 20171229}, "tdx", false, 16, 20171229, false},
		{"nothing stored, online", [2]market.Day{}, "", false, 16, 20261123, true},
		{"nothing stored, offline", [2]market.Day{}, "", true, 16, 0, true},
		{"current, in the session: today's forming bar", [2]market.Day{20261102, 20261120}, "tdx", true, 10, 20261123, false},
		{"stale, in the session: the newest stored", [2]market.Day{20261102, 20261113}, "demo", true, 10, 20261113, true},
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
				if _, err := f.store.IngestBars(ctx, []db.BarBatch{{Code: code, Freq: market.Daily, Source: tt.by, Bars: bars,
					Cover: &db.Span{First: tt.stored[0], Last: tt.stored[1]}}}); err != nil {
					t.Fatal(err)
				}
			}
			f.src.offline.Store(tt.offline)
			if got, err := f.svc.LatestDay(ctx, code); err != nil || got != tt.want {
				t.Errorf("LatestDay = %s, %v; want %s", got, err, tt.want)
			}
			if asked := f.src.calls.Load() > 0; asked != tt.asks {
				t.Errorf("the source asked: %v, want %v", asked, tt.asks)
			}
		})
	}
}
