package finance_test

import (
	"context"
	"testing"

	"mdqs/db/dbtest"
	"mdqs/internal/config"
	"mdqs/internal/demo"
	"mdqs/internal/finance"
	"mdqs/internal/market"
)

func TestFromConfig(t *testing.T) {
	fake := newDataCenter(t, 7)
	cfg := config.Default()
	cfg.Finance.DataCenter.BaseURL, cfg.Finance.DataCenter.Rate = fake.URL, 1000
	cfg.Finance.PageSize, cfg.Finance.MaxPageSize, cfg.Finance.Periods = 3, 40, 4
	clock := market.NewFixedClock(t0)
	svc, err := finance.FromConfig(cfg, dbtest.Open(t), nil, nil, clock, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c := svc.Config(); c.Source != "datacenter" || c.MaxPageSize != 40 || c.Periods != 4 {
		t.Errorf("config %+v", c)
	}
	res, err := svc.Import(context.Background(), finance.ImportRequest{Period: 20240930})
	if err != nil || res.Pages != 3 || res.Counts.Inserted != 7 {
		t.Fatalf("import at finance.page_size 3: %+v, %v", res, err)
	}
	if st := svc.Statuses(); len(st) != 1 || st[0].Source != "datacenter" || st[0].Calls != 3 {
		t.Errorf("statuses %+v", st)
	}
	cfg.Sources.Default, cfg.Demo.Enabled = "demo", true
	dm, err := demo.New(demo.Config{Seed: 1, Stocks: 200, Industries: 10, Concepts: 20}, clock)
	if err != nil {
		t.Fatal(err)
	}
	svc, err = finance.FromConfig(cfg, dbtest.Open(t), dm, nil, clock, nil)
	if err != nil || svc.Config().Source != "demo" || svc.Statuses() != nil {
		t.Fatalf("demo mode: %+v, %v", svc.Config(), err)
	}
}
