package ranking_test

import (
	"context"
	"testing"
	"time"

	"mdqs/db/dbtest"
	"mdqs/internal/board"
	"mdqs/internal/demo"
	"mdqs/internal/market"
	"mdqs/internal/ranking"
)

// BenchmarkStatsRange measures a year of GET /v1/api/market/stats/range
// (top 10) on the demo market at real scale (5,300 stocks, 90 industries,
// 450 concepts), once every day of it is stored, both ways in the same run:
// "rankings" reads every day's whole stored ranking as the endpoint did
// before (issue 32), "kept" reads the kept stats, one row a day. The first
// computation of the year (each day replayed by the demo and stored) is
// logged, not measured:
//
//	go test -run '^$' -bench StatsRange -benchtime 20x ./internal/ranking
func BenchmarkStatsRange(b *testing.B) {
	clock := market.NewFixedClock(friday10)
	cal := market.DefaultCalendar()
	cfg := demo.DefaultConfig()
	cfg.Calendar = cal
	dm, err := demo.New(cfg, clock)
	if err != nil {
		b.Fatal(err)
	}
	store := dbtest.Open(b)
	start, _ := market.ParseTimeOfDay("09:25")
	end, _ := market.ParseTimeOfDay("15:00")
	window := market.Window{Start: start, End: end}
	col := board.NewCollector(store, map[string]board.SectorSource{"demo": dm}, clock, quiet(),
		board.Policy{Calendar: cal, Window: window, Soft: time.Minute})
	b.Cleanup(col.Close)
	svc, err := ranking.New(ranking.Config{Soft: time.Hour, Hard: 24 * time.Hour, Window: window, EODAt: 15*60 + 5, CatchUpDays: 10, Mode: "demo"},
		col, store, cal, clock, quiet(), 64<<20)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(svc.Close)
	ctx := context.Background()
	from, to := market.Day(20251128), market.Day(20261127)
	t0 := time.Now()
	stats, _, err := svc.StatsRange(ctx, from, to, 10)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("first computation of %d days: %v", len(stats), time.Since(t0).Round(time.Millisecond))
	for _, bc := range []struct {
		name string
		fn   func(ctx context.Context, from, to market.Day, top int) ([]ranking.DailyStats, []string, error)
	}{{"rankings", svc.StatsRangeFromRankings}, {"kept", svc.StatsRange}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				got, _, err := bc.fn(ctx, from, to, 10)
				if err != nil || len(got) != len(stats) {
					b.Fatalf("%d days, %v; want %d", len(got), err, len(stats))
				}
			}
		})
	}
}
