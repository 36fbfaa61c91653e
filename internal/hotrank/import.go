package hotrank

import (
	"context"
	"errors"
	"fmt"
	"time"

	"mdqs/db"
	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

// ImportKind is the kind of the hot rank's import runs in the store.
const ImportKind = "hot_rank"

// ImportRequest is what POST /hot_rank/import asks: the day to file the
// list under (0: today), the page size (0: the configured one) and how
// many pages (0: all, up to the configured safety stop).
type ImportRequest struct {
	Day      market.Day
	Size     int
	MaxPages int
}

// PageFailure says why a page was not stored.
type PageFailure struct {
	Page  int    `json:"page"`
	Kind  string `json:"kind"` // the upstream error kind: timeout, http_status, schema, ...
	Error string `json:"error"`
}

// ImportResult is what an import did.
type ImportResult struct {
	Date     market.Day
	Source   string
	Size     int
	Pages    int // pages fetched, failed ones included
	Fetched  int // rows received on the stored pages
	Counts   db.InfoCounts
	Complete bool // the list was walked to its end and every page stored
	Failures []PageFailure
	Started  time.Time
	Finished time.Time
}

// Import collects a day's list page by page and upserts each page by
// (day, code) in its own transaction. A page that fails stores nothing and
// ends the walk (where the list ends is unknown past it); the pages before
// it stay stored, and the result lists the failure. The walk ends at an
// empty or short page, at a page with no new codes (an upstream ignoring
// the page number), or after MaxPages. Importing the same list twice
// changes nothing (Counts.Unchanged). If the first page fails, nothing was
// imported and the error says why: invalid when the day cannot be asked
// for, unavailable when the upstream failed.
func (s *Service) Import(ctx context.Context, req ImportRequest) (ImportResult, error) {
	today := s.today()
	if req.Day == 0 {
		req.Day = today
	}
	if req.Day > today {
		return ImportResult{}, &market.Error{Kind: market.KindInvalid, Message: "invalid date",
			Detail: fmt.Sprintf("date %v is after today %v", req.Day, today)}
	}
	if req.Size == 0 {
		req.Size = s.cfg.PageSize
	}
	if req.Size < 1 || req.Size > upstream.HotRankMaxPageSize {
		return ImportResult{}, market.Errorf(market.KindInvalid, "size must be 1..%d (the upstream's page limit), got %d",
			upstream.HotRankMaxPageSize, req.Size)
	}
	if req.MaxPages < 0 || req.MaxPages > s.cfg.MaxPages {
		return ImportResult{}, market.Errorf(market.KindInvalid, "max_pages must be 0 (all) to %d, got %d", s.cfg.MaxPages, req.MaxPages)
	}
	limit := req.MaxPages
	if limit == 0 {
		limit = s.cfg.MaxPages
	}
	s.importMu.Lock()
	defer s.importMu.Unlock()
	res := ImportResult{Date: req.Day, Source: s.cfg.Source, Size: req.Size, Started: s.now()}
	seen := map[market.Code]bool{}
	var first error
	for page := 1; page <= limit; page++ {
		res.Pages++
		p, err := s.src.HotRankPage(ctx, req.Day, page, req.Size)
		if err != nil {
			if page == 1 {
				first = err
			}
			res.Failures = append(res.Failures, failure(page, err))
			break
		}
		entries := s.entries(ctx, req.Day, p.Rows, seen)
		if len(entries) > 0 {
			c, err := s.store.UpsertHotRank(ctx, req.Day, entries, s.now())
			if err != nil {
				if page == 1 {
					first = err
				}
				res.Failures = append(res.Failures, failure(page, err))
				break
			}
			res.Counts.Add(c)
			res.Fetched += len(p.Rows)
		}
		if len(entries) == 0 || len(p.Rows) < req.Size {
			res.Complete = true
			break
		}
	}
	res.Finished = s.now()
	s.record(ctx, res)
	if first != nil {
		return res, importErr(first)
	}
	return res, nil
}

// entries turns a page's rows into store rows, dropping codes an earlier
// page had. A row without a name (the quote list did not know it) takes
// the name the store last had for the code.
func (s *Service) entries(ctx context.Context, day market.Day, rows []upstream.HotRankRow, seen map[market.Code]bool) []db.HotRankEntry {
	out := make([]db.HotRankEntry, 0, len(rows))
	for _, r := range rows {
		if seen[r.Code] {
			continue
		}
		seen[r.Code] = true
		name := r.Name
		if name == "" {
			if prev, _, err := s.store.HotRank(ctx, db.HotRankQuery{Codes: []market.Code{r.Code}, Limit: 1}); err == nil && len(prev) > 0 {
				name = prev[0].Name
			}
		}
		out = append(out, db.HotRankEntry{Day: day, Code: r.Code, Name: name, Rank: r.Rank, Heat: HeatOf(r.Rank), Source: s.cfg.Source})
	}
	return out
}

func failure(page int, err error) PageFailure {
	kind := upstream.KindOf(err).String()
	if upstream.KindOf(err) == upstream.KindNone {
		kind = market.KindOf(err).String()
	}
	return PageFailure{Page: page, Kind: kind, Error: err.Error()}
}

// importErr classifies a failed first page: the request's own fault stays
// what it is; an upstream failure is unavailable (503), its cause logged.
func importErr(err error) error {
	var me *market.Error
	if errors.As(err, &me) {
		return err
	}
	return market.Wrap(market.KindUnavailable, err, "the hot-rank upstream failed (%s)", upstream.KindOf(err))
}

func (s *Service) record(ctx context.Context, res ImportResult) {
	run := db.InfoImport{Kind: ImportKind, Source: res.Source, Scope: res.Date.String(), Started: res.Started, Finished: res.Finished,
		Pages: res.Pages, Failed: len(res.Failures), Fetched: res.Fetched, InfoCounts: res.Counts, Complete: res.Complete}
	for _, f := range res.Failures {
		run.Error = fmt.Sprintf("page %d: %s", f.Page, f.Error)
	}
	if _, err := s.store.RecordImport(context.WithoutCancel(ctx), run); err != nil {
		s.log.Warn("hot rank: could not record the import run", "err", err)
	}
	if len(res.Failures) > 0 {
		s.log.Warn("hot rank import incomplete", "date", res.Date, "pages", res.Pages, "failed", len(res.Failures), "err", run.Error)
	}
}

// Collect is the periodic job inside the trading window: today's whole
// list.
func (s *Service) Collect(ctx context.Context) error {
	res, err := s.Import(ctx, ImportRequest{})
	if err == nil && len(res.Failures) > 0 {
		err = fmt.Errorf("hot rank: page %d failed: %s", res.Failures[0].Page, res.Failures[0].Error)
	}
	return err
}

// AfterClose is the end-of-day job: once CloseAt has passed on a trading
// day, today's final list, unless a complete import already ran after
// CloseAt. It runs every minute and at start (catching up a restart in the
// evening), and does nothing the rest of the time. A source with history
// (the demo) first gets the recent trading days that have no list, so a
// fresh demo server answers at once, weekends included.
func (s *Service) AfterClose(ctx context.Context) error {
	if err := s.catchUp(ctx); err != nil {
		return err
	}
	now := s.now()
	today := market.DayOf(now)
	if !s.cal.IsTradingDay(today) || now.Before(s.cfg.CloseAt.On(today)) {
		return nil
	}
	last, err := s.store.LastImport(ctx, ImportKind, today.String(), true)
	switch {
	case err == nil && !last.Started.Before(s.cfg.CloseAt.On(today)):
		return nil
	case err != nil && market.KindOf(err) != market.KindNotFound:
		return err
	}
	return s.Collect(ctx)
}

// catchUp imports the lists of the last CatchUpDays trading days before
// today that have none, when the source keeps history; EastMoney (Live)
// serves the current list only, so there is nothing to catch up there.
func (s *Service) catchUp(ctx context.Context) error {
	if _, current := s.src.(live); current || s.cfg.CatchUpDays == 0 {
		return nil
	}
	today := s.today()
	var days []market.Day
	for d := s.cal.Prev(today); len(days) < s.cfg.CatchUpDays; d = s.cal.Prev(d) {
		days = append(days, d)
	}
	for _, d := range days {
		_, n, err := s.store.HotRank(ctx, db.HotRankQuery{Day: d, Limit: 1})
		if err != nil {
			return err
		}
		if n > 0 {
			continue
		}
		if _, err := s.Import(ctx, ImportRequest{Day: d}); err != nil {
			return fmt.Errorf("hot rank catch-up of %v: %w", d, err)
		}
	}
	return nil
}

// InWindow is the periodic job's gate.
func (s *Service) InWindow(now time.Time) bool { return s.cfg.Window.Contains(s.cal, now) }

// AtStart is the job at start and after the close: AfterClose, and first,
// when no list is stored at all, the current one from a live source,
// whatever the hour, as the other start-up jobs import what is missing.
// Without it a live server that never imported answered 404 "no hot rank
// is stored yet" until the scheduled import ran; now an outage is the 503
// naming the source. (A source with history catches up in AfterClose.)
func (s *Service) AtStart(ctx context.Context) error {
	if _, current := s.src.(live); current {
		_, err := s.store.LatestHotRankDay(ctx, 0)
		switch {
		case market.KindOf(err) == market.KindNotFound:
			if err := s.Collect(ctx); err != nil {
				return err
			}
		case err != nil:
			return err
		}
	}
	return s.AfterClose(ctx)
}
