// Package finance keeps the main indicators of the periodic reports
// (revenue, net profit, EPS, ROE, growth...) in the store: imports from
// EastMoney's data centre (or the demo market), the job and command that
// run them, and the query of GET /financial-reports.
package finance

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"mdqs/db"
	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

// Source pages through report rows: upstream.Finance (the data centre's
// RPT_LICO_FN_CPD) or the demo market.
type Source interface {
	Reports(ctx context.Context, q upstream.FinanceQuery, page int) ([]upstream.FinanceReport, int, error)
}

// ImportKind is the kind of the report import runs in the store.
const ImportKind = "finance"

// Config tunes the service; zero fields take the defaults in brackets.
type Config struct {
	Source      string // the rows' origin ["datacenter"]
	MaxPageSize int    // cap of the query's page_size [100]
	MaxPages    int    // safety stop of one import [200]
	// Periods is how many of the latest period ends the job imports [2]:
	// on 2026-11-23 2026Q3 and 2026Q2, on 2027-04-15 2027Q1 and the 2026
	// annual reports, the ones still being published.
	Periods int
	// Interval is how often the job imports them [6h].
	Interval time.Duration
}

func (c Config) withDefaults() Config {
	c.Source = cmp.Or(c.Source, upstream.SourceDataCenter)
	c.MaxPageSize = cmp.Or(max(c.MaxPageSize, 0), 100)
	c.MaxPages = cmp.Or(max(c.MaxPages, 0), 200)
	c.Periods = cmp.Or(max(c.Periods, 0), 2)
	c.Interval = cmp.Or(max(c.Interval, 0), 6*time.Hour)
	return c
}

// Service imports and answers the reports.
type Service struct {
	cfg   Config
	store *db.Store
	src   Source
	clock market.Clock
	log   *slog.Logger

	importMu sync.Mutex // one import at a time

	status func() upstream.Status // the upstream client's, when there is one
}

// New builds the service.
func New(cfg Config, store *db.Store, src Source, clock market.Clock, log *slog.Logger) *Service {
	if clock == nil {
		clock = market.SystemClock{}
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Service{cfg: cfg.withDefaults(), store: store, src: src, clock: clock, log: log}
}

// Config is the effective configuration.
func (s *Service) Config() Config { return s.cfg }

// ImportRequest selects what to import: a period (all stocks), a stock
// (all its periods), or both. At least one is required.
type ImportRequest struct {
	Period market.Day
	Code   market.Code
}

// PageFailure says why a page was not stored.
type PageFailure struct {
	Page  int    `json:"page"`
	Kind  string `json:"kind"`
	Error string `json:"error"`
}

// ImportResult is what an import did.
type ImportResult struct {
	Request  ImportRequest
	Pages    int // pages fetched, the failed one included
	Total    int // pages the upstream announced
	Fetched  int
	Counts   db.InfoCounts
	Complete bool
	Failures []PageFailure
	Started  time.Time
	Finished time.Time
}

// Scope names a request in the import runs: "2024Q3", "600519.SH" or
// "600519.SH@2024Q3".
func (r ImportRequest) Scope() string {
	switch {
	case r.Code.IsZero():
		return upstream.PeriodName(r.Period)
	case r.Period == 0:
		return r.Code.String()
	}
	return r.Code.String() + "@" + upstream.PeriodName(r.Period)
}

// Import walks the pages the source announces and upserts each by (code,
// period) in its own transaction, so a restated report updates its row
// and importing twice changes nothing. A failing page stores nothing of
// itself and ends the walk; the pages before it stay stored and the result
// lists the failure. A failing first page is the import's error (the
// request's own fault, or 503 for the upstream). A query that matches
// nothing (reports not out yet) is a complete import of nothing.
func (s *Service) Import(ctx context.Context, req ImportRequest) (ImportResult, error) {
	if req.Period == 0 && req.Code.IsZero() {
		return ImportResult{}, market.Errorf(market.KindInvalid, "a report import needs a period, a code or both")
	}
	s.importMu.Lock()
	defer s.importMu.Unlock()
	res := ImportResult{Request: req, Started: s.clock.Now()}
	var first error
	for page := 1; page <= max(1, min(res.Total, s.cfg.MaxPages)); page++ {
		res.Pages++
		rows, total, err := s.src.Reports(ctx, upstream.FinanceQuery{Period: req.Period, Code: req.Code}, page)
		if err == nil {
			res.Total = total
			var c db.InfoCounts
			c, err = s.store.UpsertReports(ctx, s.records(rows), s.clock.Now())
			res.Counts.Add(c)
			res.Fetched += len(rows)
		}
		if err != nil {
			if page == 1 {
				first = err
			}
			kind := upstream.KindOf(err).String()
			if upstream.KindOf(err) == upstream.KindNone {
				kind = market.KindOf(err).String()
			}
			res.Failures = append(res.Failures, PageFailure{Page: page, Kind: kind, Error: err.Error()})
			break
		}
		if page >= total {
			res.Complete = true
			break
		}
	}
	res.Finished = s.clock.Now()
	s.record(ctx, res)
	if first != nil {
		var me *market.Error
		if errors.As(first, &me) {
			return res, first
		}
		return res, market.Wrap(market.KindUnavailable, first, "the report upstream failed (%s)", upstream.KindOf(first))
	}
	return res, nil
}

func (s *Service) records(rows []upstream.FinanceReport) []db.ReportRecord {
	out := make([]db.ReportRecord, len(rows))
	for i, r := range rows {
		out[i] = db.ReportRecord{Code: r.Code, Name: r.Name, Period: r.Period, NoticeDate: r.NoticeDate,
			Revenue: r.Revenue, RevenueYoY: r.RevenueYoY, RevenueQoQ: r.RevenueQoQ, NetProfit: r.NetProfit,
			NetProfitYoY: r.NetProfitYoY, NetProfitQoQ: r.NetProfitQoQ, EPS: r.EPS, EPSDeducted: r.EPSDeducted,
			BPS: r.BPS, ROE: r.ROE, GrossMargin: r.GrossMargin, OCFPerShare: r.OCFPerShare, Industry: r.Industry, Source: s.cfg.Source}
	}
	return out
}

func (s *Service) record(ctx context.Context, res ImportResult) {
	run := db.InfoImport{Kind: ImportKind, Source: s.cfg.Source, Scope: res.Request.Scope(), Started: res.Started, Finished: res.Finished,
		Pages: res.Pages, Failed: len(res.Failures), Fetched: res.Fetched, InfoCounts: res.Counts, Complete: res.Complete}
	for _, f := range res.Failures {
		run.Error = fmt.Sprintf("page %d: %s", f.Page, f.Error)
	}
	if _, err := s.store.RecordImport(context.WithoutCancel(ctx), run); err != nil {
		s.log.Warn("finance: could not record the import run", "err", err)
	}
}

// RecentPeriods are the n latest period ends on or before day, newest
// first.
func RecentPeriods(day market.Day, n int) []market.Day {
	var out []market.Day
	for y := day.Year(); len(out) < n; y-- {
		for _, md := range []int{1231, 930, 630, 331} {
			if p := market.Day(y*10000 + md); p <= day && len(out) < n {
				out = append(out, p)
			}
		}
	}
	return out
}

// Job imports the configured number of latest periods, the ones whose
// reports are still coming out.
func (s *Service) Job(ctx context.Context) error {
	var errs []error
	for _, p := range RecentPeriods(market.DayOf(s.clock.Now()), s.cfg.Periods) {
		res, err := s.Import(ctx, ImportRequest{Period: p})
		if err == nil && len(res.Failures) > 0 {
			err = fmt.Errorf("page %d: %s", res.Failures[0].Page, res.Failures[0].Error)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("reports %s: %w", upstream.PeriodName(p), err))
			continue
		}
		s.log.Info("imported financial reports", "period", upstream.PeriodName(p), "rows", res.Fetched,
			"inserted", res.Counts.Inserted, "updated", res.Counts.Updated)
	}
	return errors.Join(errs...)
}
