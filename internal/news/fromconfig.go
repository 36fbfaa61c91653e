package news

import (
	"log/slog"
	"time"

	"mdqs/db"
	"mdqs/internal/config"
	"mdqs/internal/demo"
	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

// FromConfig builds the news service of a configuration: the demo
// market's feed (dm) when sources.default is demo, else the news.source
// flash news (EastMoney 7x24 or the CLS telegraph), followed by EastMoney's
// announcement list when news.announcements is set. lims is the process's
// limiter registry (nil: a new one).
func FromConfig(cfg config.Config, store *db.Store, dm *demo.Market, lims *upstream.Limiters, clock market.Clock, log *slog.Logger) (*Service, error) {
	n := cfg.News
	retention := time.Duration(n.RetentionDays) * 24 * time.Hour
	if n.RetentionDays == 0 {
		retention = -1 // keep everything
	}
	svc := Config{PageSize: n.PageSize, Pages: n.Pages, MaxPageSize: n.MaxPageSize, Retention: retention, Interval: n.Interval.Duration}
	if cfg.Sources.Default == "demo" && dm != nil {
		return New(svc, store, []Feed{{Name: demo.FeedDemo, Fetch: dm.NewsPage}}, clock, log), nil
	}
	if lims == nil {
		lims = upstream.NewLimiters()
	}
	d := upstream.DefaultNewsConfig()
	uc := upstream.NewsConfig{EastMoney: n.EastMoney.Source(d.EastMoney), Notices: n.Notices.Source(d.Notices),
		CLS: n.CLS.Source(d.CLS)}
	em, err := upstream.NewEastMoneyNews(uc, lims, clock)
	if err != nil {
		return nil, err
	}
	var feeds []Feed
	var statuses []func() upstream.Status
	switch n.Source {
	case "cls":
		cls, err := upstream.NewCLSNews(uc, lims, clock)
		if err != nil {
			return nil, err
		}
		feeds, statuses = append(feeds, CLS(cls)), append(statuses, cls.Status)
	default:
		feeds = append(feeds, EastMoneyFlash(em))
	}
	if n.Announcements {
		feeds = append(feeds, EastMoneyNotices(em))
	}
	if n.Source != "cls" || n.Announcements {
		statuses = append(statuses, em.Status)
	}
	s := New(svc, store, feeds, clock, log)
	s.statuses = statuses
	return s, nil
}

// Statuses is the upstream clients' health for /health/sources (none for
// the demo, which reports itself).
func (s *Service) Statuses() []upstream.Status {
	out := make([]upstream.Status, 0, len(s.statuses))
	for _, f := range s.statuses {
		out = append(out, f())
	}
	return out
}
