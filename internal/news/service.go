// Package news keeps news items in the store: updates from the configured
// feeds (EastMoney 7x24 news and announcements, the CLS telegraph, or the
// demo market), the job that runs them, retention, and the queries of
// spec 4.7 with full-text search.
package news

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"mdqs/db"
	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

// The news types, the values of the list's type parameter.
const (
	TypeFlash        = upstream.NewsFlash        // 1: 7x24 flash news (快讯, 电报)
	TypeAnnouncement = upstream.NewsAnnouncement // 2: company announcements (公告)
)

// TypeNames names each type.
func TypeNames() map[int]string {
	return map[int]string{TypeFlash: "flash", TypeAnnouncement: "announcement"}
}

// ParseType reads the type parameter: 1 or 2 (or the names flash and
// announcement). Anything else is 400 "invalid news type".
func ParseType(s string) (int, error) {
	s = strings.TrimSpace(strings.ToLower(s))
	for t, name := range TypeNames() {
		if s == name || s == strconv.Itoa(t) {
			return t, nil
		}
	}
	return 0, &market.Error{Kind: market.KindInvalid, Message: "invalid news type",
		Detail: fmt.Sprintf("type %q: want 1 (flash news) or 2 (company announcements)", s)}
}

// Fetch is one page of a feed, newest first: cursor "" asks the newest
// page, a previous page's next the one after it; next "" is the end.
type Fetch func(ctx context.Context, cursor string, size int) (items []upstream.NewsItem, next string, err error)

// Feed is a named source of items.
type Feed struct {
	Name  string
	Fetch Fetch
}

// EastMoneyFlash is EastMoney's 7x24 news.
func EastMoneyFlash(c *upstream.EastMoneyNews) Feed {
	return Feed{Name: upstream.FeedEastMoney, Fetch: c.Flash}
}

// EastMoneyNotices is the A-share announcement list; its cursor is the
// page number.
func EastMoneyNotices(c *upstream.EastMoneyNews) Feed {
	return Feed{Name: upstream.FeedEastMoneyNotice, Fetch: func(ctx context.Context, cursor string, size int) ([]upstream.NewsItem, string, error) {
		page := 1
		if cursor != "" {
			p, err := strconv.Atoi(cursor)
			if err != nil || p < 1 {
				return nil, "", market.Errorf(market.KindInvalid, "announcement cursor %q", cursor)
			}
			page = p
		}
		items, err := c.Announcements(ctx, page, size)
		if err != nil || len(items) < size {
			return items, "", err
		}
		return items, strconv.Itoa(page + 1), nil
	}}
}

// CLS is the CLS telegraph.
func CLS(c *upstream.CLSNews) Feed { return Feed{Name: upstream.FeedCLS, Fetch: c.Flash} }

// Config tunes the service; zero fields take the defaults in brackets.
type Config struct {
	// PageSize is the items asked per feed page [50]; Pages how many pages
	// an update walks at most per feed [3] (it stops earlier at the first
	// page with nothing new).
	PageSize int
	Pages    int
	// MaxPageSize caps the list's page_size parameter [100].
	MaxPageSize int
	// Retention deletes items published longer ago [180 days]; negative
	// keeps everything.
	Retention time.Duration
	// Interval is how often the job updates the feeds [2m].
	Interval time.Duration
}

func (c Config) withDefaults() Config {
	c.PageSize = cmp.Or(max(c.PageSize, 0), 50)
	c.Pages = cmp.Or(max(c.Pages, 0), 3)
	c.MaxPageSize = cmp.Or(max(c.MaxPageSize, 0), 100)
	c.Retention = cmp.Or(c.Retention, 180*24*time.Hour)
	c.Interval = cmp.Or(max(c.Interval, 0), 2*time.Minute)
	return c
}

// Service updates and answers the news.
type Service struct {
	cfg   Config
	store *db.Store
	feeds []Feed
	clock market.Clock
	log   *slog.Logger

	updateMu sync.Mutex // one update at a time

	statuses []func() upstream.Status // the upstream clients', when there are any
}

// New builds the service over feeds (the order they are updated in).
func New(cfg Config, store *db.Store, feeds []Feed, clock market.Clock, log *slog.Logger) *Service {
	if clock == nil {
		clock = market.SystemClock{}
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Service{cfg: cfg.withDefaults(), store: store, feeds: feeds, clock: clock, log: log}
}

// Config is the effective configuration.
func (s *Service) Config() Config { return s.cfg }

// Feeds names the feeds, in update order.
func (s *Service) Feeds() []string {
	out := make([]string, len(s.feeds))
	for i, f := range s.feeds {
		out[i] = f.Name
	}
	return out
}
