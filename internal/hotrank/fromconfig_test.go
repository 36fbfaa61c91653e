package hotrank_test

import (
	"context"
	"testing"

	"mdqs/db/dbtest"
	"mdqs/internal/config"
	"mdqs/internal/demo"
	"mdqs/internal/hotrank"
	"mdqs/internal/hotrank/hotranktest"
	"mdqs/internal/market"
)

// The configuration's keys reach the service and its upstream client: the
// list from hot_rank.eastmoney, the names from sources.push2.
func TestFromConfig(t *testing.T) {
	fake := hotranktest.New(t, hotranktest.Stocks(7))
	cfg := config.Default()
	cfg.HotRank.EastMoney.BaseURL, cfg.Sources.Push2.BaseURL = fake.URL, fake.URL
	cfg.HotRank.EastMoney.Rate, cfg.Sources.Push2.Rate = 1000, 1000
	cfg.HotRank.PageSize, cfg.HotRank.MaxQuerySize, cfg.HotRank.CloseAt = 5, 30, "15:30"
	clock := market.NewFixedClock(t0)
	svc, err := hotrank.FromConfig(cfg, dbtest.Open(t), nil, nil, market.DefaultCalendar(), clock, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c := svc.Config(); c.Source != "emappdata" || c.PageSize != 5 || c.MaxSize != 30 || c.CloseAt != 15*60+30 || c.Window.Start != 9*60+25 {
		t.Errorf("config %+v", c)
	}
	res, err := svc.Import(context.Background(), hotrank.ImportRequest{})
	if err != nil || res.Counts.Inserted != 7 || res.Pages != 2 || !res.Complete {
		t.Fatalf("import through the configured client: %+v, %v", res, err)
	}
	if st := svc.Statuses(); len(st) != 1 || st[0].Source != "emappdata" || st[0].Calls != 2 || st[0].Requests != 4 {
		t.Errorf("statuses %+v", st)
	}
	cfg.Sources.Default, cfg.Demo.Enabled = "demo", true
	dm, err := demo.New(demo.Config{Seed: 1, Stocks: 200, Industries: 10, Concepts: 20}, clock)
	if err != nil {
		t.Fatal(err)
	}
	svc, err = hotrank.FromConfig(cfg, dbtest.Open(t), dm, nil, market.DefaultCalendar(), clock, nil)
	if err != nil || svc.Config().Source != "demo" || svc.Statuses() != nil {
		t.Fatalf("demo mode: %+v, %v", svc.Config(), err)
	}
	if res, err := svc.Import(context.Background(), hotrank.ImportRequest{Day: 20261120}); err != nil || res.Counts.Inserted != demo.HotRankDepth {
		t.Errorf("demo import of a past day: %+v, %v", res, err)
	}
}
