package finance

import (
	"context"

	"mdqs/db"
	"mdqs/internal/market"
)

// Query is GET /financial-reports' selection:
//   - Codes (up to 50) with or without a period filter: those stocks'
//     reports, newest period first;
//   - no codes: one period of every stock, by code; Period defaults to the
//     latest period stored;
//   - Period selects one period; From and To bound the periods instead
//     (either side may be open). Period and a range are exclusive.
type Query struct {
	Codes    []market.Code
	Period   market.Day
	From, To market.Day
	Page     int
	PageSize int
}

// Page is a page of report rows; Period is the period the rows are of
// when the query asked one (or defaulted to the latest).
type Page struct {
	Period   market.Day
	Items    []db.ReportRecord
	Total    int
	Page     int
	PageSize int
}

// Query answers GET /financial-reports. Nothing matching a valid query is
// 404 "not found"; a page past the end of a non-empty result is an empty
// page with the total.
func (s *Service) Query(ctx context.Context, q Query) (Page, error) {
	switch {
	case q.Page < 1 || q.PageSize < 1 || q.PageSize > s.cfg.MaxPageSize:
		return Page{}, market.Errorf(market.KindInvalid, "page must be >= 1 and page_size 1..%d", s.cfg.MaxPageSize)
	case q.Period != 0 && (q.From != 0 || q.To != 0):
		return Page{}, market.Errorf(market.KindInvalid, "period and start_period/end_period are two modes; send one")
	case q.From != 0 && q.To != 0 && q.From > q.To:
		return Page{}, market.Errorf(market.KindInvalid, "start_period %v is after end_period %v", q.From, q.To)
	}
	if len(q.Codes) == 0 && q.Period == 0 && q.From == 0 && q.To == 0 {
		p, err := s.store.LatestReportPeriod(ctx)
		if market.KindOf(err) == market.KindNotFound {
			if err := s.outage(ctx, 0); err != nil {
				return Page{}, err
			}
			return Page{}, market.Errorf(market.KindNotFound, "no financial reports are stored yet")
		}
		if err != nil {
			return Page{}, err
		}
		q.Period = p
	}
	items, total, err := s.store.Reports(ctx, db.ReportQuery{Codes: q.Codes, Period: q.Period, From: q.From, To: q.To,
		Offset: (q.Page - 1) * q.PageSize, Limit: q.PageSize})
	if err != nil {
		return Page{}, err
	}
	if total == 0 {
		// A period asked: its reports may be missing for the outage; any
		// other query: only if nothing at all is stored.
		if err := s.outage(ctx, q.Period); err != nil {
			return Page{}, err
		}
		return Page{}, market.Errorf(market.KindNotFound, "no financial report matches")
	}
	return Page{Period: q.Period, Items: items, Total: total, Page: q.Page, PageSize: q.PageSize}, nil
}
