package news_test

import (
	"context"
	"slices"
	"testing"

	"mdqs/db/dbtest"
	"mdqs/internal/config"
	"mdqs/internal/demo"
	"mdqs/internal/market"
	"mdqs/internal/news"
)

func TestFromConfig(t *testing.T) {
	fake := newFake(t, 4)
	cfg := config.Default()
	for _, u := range []*config.Upstream{&cfg.News.EastMoney, &cfg.News.Notices, &cfg.News.CLS} {
		u.BaseURL, u.Rate = fake.URL, 1000
	}
	cfg.News.PageSize, cfg.News.MaxPageSize = 3, 40
	clock := market.NewFixedClock(t0)
	svc, err := news.FromConfig(cfg, dbtest.Open(t), nil, nil, clock, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(svc.Feeds(), []string{"eastmoney", "eastmoney_notice"}) || svc.Config().MaxPageSize != 40 {
		t.Errorf("feeds %v, config %+v", svc.Feeds(), svc.Config())
	}
	res, err := svc.Update(context.Background(), news.UpdateRequest{})
	if err != nil || res.Counts.Inserted != 5 || res.Feeds[0].Pages != 2 {
		t.Fatalf("update at news.page_size 3: %+v, %v", res, err)
	}
	if st := svc.Statuses(); len(st) != 1 || st[0].Source != "eastmoney_news" || st[0].Calls != 3 {
		t.Errorf("statuses %+v", st)
	}
	cfg.News.Source, cfg.News.Announcements = "cls", false
	if svc, err = news.FromConfig(cfg, dbtest.Open(t), nil, nil, clock, nil); err != nil || !slices.Equal(svc.Feeds(), []string{"cls"}) ||
		len(svc.Statuses()) != 1 || svc.Statuses()[0].Source != "cls" {
		t.Errorf("cls: %v, %v", svc.Feeds(), err)
	}
	cfg.News.RetentionDays = 0
	cfg.Sources.Default, cfg.Demo.Enabled = "demo", true
	dm, err := demo.New(demo.Config{Seed: 1, Stocks: 200, Industries: 10, Concepts: 20}, clock)
	if err != nil {
		t.Fatal(err)
	}
	svc, err = news.FromConfig(cfg, dbtest.Open(t), dm, nil, clock, nil)
	if err != nil || !slices.Equal(svc.Feeds(), []string{"demo"}) || svc.Statuses() == nil || len(svc.Statuses()) != 0 || svc.Config().Retention >= 0 {
		t.Fatalf("demo mode: %v %+v, %v", svc.Feeds(), svc.Config(), err)
	}
}
