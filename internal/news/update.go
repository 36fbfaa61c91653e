package news

import (
	"context"
	"errors"
	"fmt"

	"mdqs/db"
	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

// ImportKind is the kind of the news update runs in the store.
const ImportKind = "news"

// UpdateRequest tunes one update; zero fields take the configuration.
type UpdateRequest struct {
	Pages    int // per feed, 1..10
	PageSize int // items per page, 1..200
}

// FeedResult is what an update did with one feed.
type FeedResult struct {
	Feed    string        `json:"feed"`
	Pages   int           `json:"pages"`
	Fetched int           `json:"fetched"`
	Counts  db.InfoCounts `json:"counts"`
	Kind    string        `json:"error_kind,omitempty"`
	Error   string        `json:"error,omitempty"`
}

// UpdateResult sums the feeds.
type UpdateResult struct {
	Feeds   []FeedResult
	Fetched int
	Counts  db.InfoCounts
}

// Update fetches the newest items of every feed and upserts them by
// (feed, upstream id): a known item is updated only if it changed, so
// running it again adds nothing. Each feed walks up to Pages pages and
// stops at the end of the feed (a short page, no next cursor) or at the
// first page with nothing new. A page is stored in one
// transaction; a failing page stores nothing and ends that feed's walk
// (the result says why), the other feeds still run. Only when every feed
// failed on its first page is the update an error (503).
func (s *Service) Update(ctx context.Context, req UpdateRequest) (UpdateResult, error) {
	if req.Pages == 0 {
		req.Pages = s.cfg.Pages
	}
	if req.PageSize == 0 {
		req.PageSize = s.cfg.PageSize
	}
	if req.Pages < 1 || req.Pages > 10 || req.PageSize < 1 || req.PageSize > 200 {
		return UpdateResult{}, market.Errorf(market.KindInvalid, "pages must be 1..10 and page_size 1..200")
	}
	if len(s.feeds) == 0 {
		return UpdateResult{}, market.NotConfigured("no news feed is configured")
	}
	s.updateMu.Lock()
	defer s.updateMu.Unlock()
	var res UpdateResult
	var errs []error
	failedAll := true
	for _, f := range s.feeds {
		fr, err := s.updateFeed(ctx, f, req)
		res.Feeds = append(res.Feeds, fr)
		res.Fetched += fr.Fetched
		res.Counts.Add(fr.Counts)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", f.Name, err))
		}
		if fr.Pages > 1 || fr.Error == "" {
			failedAll = false
		}
	}
	if failedAll {
		return res, market.Wrap(market.KindUnavailable, errors.Join(errs...), "every news feed failed")
	}
	return res, nil
}

func (s *Service) updateFeed(ctx context.Context, f Feed, req UpdateRequest) (FeedResult, error) {
	fr := FeedResult{Feed: f.Name}
	run := db.InfoImport{Kind: ImportKind, Source: f.Name, Scope: f.Name, Started: s.clock.Now()}
	var err error
	cursor := ""
	for page := 1; page <= req.Pages; page++ {
		fr.Pages++
		var items []upstream.NewsItem
		var next string
		items, next, err = f.Fetch(ctx, cursor, req.PageSize)
		if err != nil {
			break
		}
		fr.Fetched += len(items)
		var c db.InfoCounts
		c, err = s.store.UpsertNews(ctx, records(f.Name, items), s.clock.Now())
		if err != nil {
			break
		}
		fr.Counts.Add(c)
		if next == "" || len(items) < req.PageSize || c.Inserted+c.Updated == 0 {
			run.Complete = true
			break
		}
		cursor = next
	}
	if err != nil {
		fr.Kind, fr.Error = upstream.KindOf(err).String(), fmt.Sprintf("page %d: %v", fr.Pages, err)
		if upstream.KindOf(err) == upstream.KindNone {
			fr.Kind = market.KindOf(err).String()
		}
		s.log.Warn("news update: feed failed", "feed", f.Name, "page", fr.Pages, "err", err)
	} else if fr.Pages == req.Pages {
		run.Complete = true // every page asked was stored
	}
	run.Finished, run.Pages, run.Fetched, run.InfoCounts, run.Error = s.clock.Now(), fr.Pages, fr.Fetched, fr.Counts, fr.Error
	if err != nil {
		run.Failed = 1
	}
	if _, rerr := s.store.RecordImport(context.WithoutCancel(ctx), run); rerr != nil {
		s.log.Warn("news update: could not record the run", "err", rerr)
	}
	return fr, err
}

// records maps a feed's items to store rows. Items keep the feed they
// came with (a feed may merge upstreams, as the demo's does not).
func records(feed string, items []upstream.NewsItem) []db.NewsRecord {
	out := make([]db.NewsRecord, 0, len(items))
	for _, it := range items {
		if it.Feed == "" {
			it.Feed = feed
		}
		out = append(out, db.NewsRecord{Feed: it.Feed, UID: it.UID, Type: it.Type, Title: it.Title, Summary: it.Summary,
			Body: it.Body, URL: it.URL, Tags: it.Tags, Codes: it.Codes, Published: it.Published})
	}
	return out
}

// Job is the periodic update.
func (s *Service) Job(ctx context.Context) error {
	res, err := s.Update(ctx, UpdateRequest{})
	if err != nil {
		return err
	}
	var errs []error
	for _, f := range res.Feeds {
		if f.Error != "" {
			errs = append(errs, fmt.Errorf("%s: %s", f.Feed, f.Error))
		}
	}
	return errors.Join(errs...)
}

// Prune is the retention job: items published before Retention ago go,
// with the update runs of the same age.
func (s *Service) Prune(ctx context.Context) error {
	if s.cfg.Retention < 0 {
		return nil
	}
	before := s.clock.Now().Add(-s.cfg.Retention)
	n, err := s.store.PruneNews(ctx, before)
	if err != nil {
		return err
	}
	if _, err := s.store.PruneImports(ctx, ImportKind, before); err != nil {
		return err
	}
	if n > 0 {
		s.log.Info("news: pruned old items", "items", n, "before", market.FormatTime(before))
	}
	return nil
}
