package db_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/demo"
	"mdqs/internal/market"
)

// EachBars reads a series in time order a chunk at a time (never more
// than 4,096 bars, a minute series a day at a time), each bar with its
// source, only the days asked; an error from the callback stops it;
// Covered lists the series of a frequency in code order.
func TestEachBarsStreamsASeries(t *testing.T) {
	s := dbtest.Open(t)
	ctx := context.Background()
	a, b := market.MustCode("600519.SH"), market.MustCode("000001.SZ")
	bars := dayBars(5000) // more than a chunk
	if _, err := s.IngestBars(ctx, []db.BarBatch{
		{Code: a, Freq: market.Daily, Source: "tdx", Bars: bars[:3000], Cover: &db.Span{First: bars[0].Day, Last: bars[4999].Day}},
		{Code: a, Freq: market.Daily, Source: "push2his", Bars: bars[3000:]},
		{Code: b, Freq: market.Daily, Source: "demo", Bars: bars[:10], Cover: &db.Span{First: bars[0].Day, Last: bars[9].Day}},
	}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		from, to market.Day
		first    int // index of the first bar, in bars
		n        int
	}{
		{"all", 0, 29991231, 0, 5000},
		{"a range", bars[100].Day, bars[4200].Day, 100, 4101},
		{"one day", bars[3000].Day, bars[3000].Day, 3000, 1},
		{"none", 19900101, 19900105, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []market.Bar
			var sources []string
			chunks := 0
			err := s.EachBars(ctx, a, market.Daily, tc.from, tc.to, nil, func(c db.SourcedBars) error {
				chunks++
				if len(c.Bars) > 4096 || len(c.Bars) != len(c.Sources) || len(c.Bars) == 0 {
					t.Fatalf("a chunk of %d bars and %d sources", len(c.Bars), len(c.Sources))
				}
				got = append(got, c.Bars...)
				sources = append(sources, c.Sources...)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tc.n {
				t.Fatalf("%d bars, want %d", len(got), tc.n)
			}
			for i, g := range got {
				w := bars[tc.first+i]
				wantSource := "tdx"
				if tc.first+i >= 3000 {
					wantSource = "push2his"
				}
				if g.TS != w.TS || g.Close != w.Close || g.Volume != w.Volume || sources[i] != wantSource {
					t.Fatalf("bar %d = %+v from %s, want %+v from %s", i, g, sources[i], w, wantSource)
				}
			}
		})
	}
	stop := errors.New("stop")
	calls := 0
	if err := s.EachBars(ctx, a, market.Daily, 0, 29991231, nil, func(db.SourcedBars) error { calls++; return stop }); err != stop || calls != 1 {
		t.Errorf("a callback's error: %v after %d calls, want it returned after 1", err, calls)
	}

	clock := market.NewFixedClock(time.Date(2026, 11, 27, 16, 0, 0, 0, market.Shanghai()))
	dm, err := demo.New(demo.Config{Seed: 7, Stocks: 20, Industries: 5, Concepts: 5}, clock)
	if err != nil {
		t.Fatal(err)
	}
	min1, err := dm.Klines(ctx, a, market.Min1, 20261124, 20261126)
	if err != nil {
		t.Fatal(err)
	}
	var days []db.MinuteDay
	for i := 0; i < len(min1); i += 240 {
		days = append(days, db.MinuteDay{Code: a, Freq: market.Min1, Day: min1[i].Day, Bars: min1[i : i+240], Source: "archive"})
	}
	if err := s.PutMinuteDays(ctx, days); err != nil {
		t.Fatal(err)
	}
	var perDay []int
	var got []market.Bar
	if err := s.EachBars(ctx, a, market.Min1, 20261125, 20261126, &db.SourcedBars{}, func(c db.SourcedBars) error {
		perDay = append(perDay, len(c.Bars))
		if c.Sources[0] != "archive" || len(c.Sources) != len(c.Bars) {
			t.Errorf("minute sources %v", c.Sources[:1])
		}
		got = append(got, c.Bars...)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(perDay) != 2 || perDay[0] != 240 || perDay[1] != 240 || got[0].TS != min1[240].TS || got[479].TS != min1[719].TS {
		t.Errorf("minutes by day %v, first %d", perDay, got[0].TS)
	}

	cov, err := s.Covered(ctx, market.Daily)
	if err != nil {
		t.Fatal(err)
	}
	if len(cov) != 2 || cov[0].Code != b || cov[1].Code != a || cov[0].Span.Last != bars[9].Day || cov[1].Source != "tdx" {
		t.Errorf("Covered = %+v", cov)
	}
}
