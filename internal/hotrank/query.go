package hotrank

import (
	"context"
	"fmt"

	"mdqs/db"
	"mdqs/internal/market"
)

// Query is GET /hot_rank's selection. Modes:
//   - day list: no range; Day (default: the latest day stored), paged;
//   - codes: Codes with Day (default the latest day), or with a range;
//   - range: From and To, both required, of the Codes or of all stocks.
//
// Day and a range are exclusive. Page and Size page the matching rows
// (Size up to MaxSize).
type Query struct {
	Day      market.Day // 0: the latest day stored
	From, To market.Day // a range when either is set
	Codes    []market.Code
	Page     int
	Size     int
}

// Page is a page of hot-rank rows.
type Page struct {
	Day   market.Day // the day of a day query; 0 for a range
	Items []db.HotRankEntry
	Total int
	Page  int
	Size  int
}

// errNotFound is the spec's 404 of the hot rank.
func errNotFound(format string, args ...any) error {
	return &market.Error{Kind: market.KindNotFound, Message: "hot rank not found", Detail: fmt.Sprintf(format, args...)}
}

func invalidDate(format string, args ...any) error {
	return &market.Error{Kind: market.KindInvalid, Message: "invalid date", Detail: fmt.Sprintf(format, args...)}
}

// checkRange validates a start..end pair.
func (s *Service) checkRange(from, to market.Day) error {
	switch {
	case from == 0 || to == 0:
		return invalidDate("start_date and end_date go together")
	case from > to:
		return invalidDate("start_date %v is after end_date %v", from, to)
	case to.Start().Sub(from.Start()).Hours()/24 >= float64(s.cfg.MaxRangeDays):
		return invalidDate("the range %v..%v is longer than %d days", from, to, s.cfg.MaxRangeDays)
	}
	return nil
}

// Query answers GET /hot_rank. Nothing matching is 404 "hot rank not
// found"; a page past the end of a non-empty result is an empty page with
// the total.
func (s *Service) Query(ctx context.Context, q Query) (Page, error) {
	if q.Page < 1 || q.Size < 1 || q.Size > s.cfg.MaxSize {
		return Page{}, market.Errorf(market.KindInvalid, "page must be >= 1 and size 1..%d", s.cfg.MaxSize)
	}
	dq := db.HotRankQuery{Codes: q.Codes, Offset: (q.Page - 1) * q.Size, Limit: q.Size}
	ranged := q.From != 0 || q.To != 0
	switch {
	case ranged && q.Day != 0:
		return Page{}, market.Errorf(market.KindInvalid, "date and start_date/end_date are two modes; send one")
	case ranged:
		if err := s.checkRange(q.From, q.To); err != nil {
			return Page{}, err
		}
		dq.From, dq.To = q.From, q.To
	default:
		day := q.Day
		if day == 0 {
			d, err := s.store.LatestHotRankDay(ctx, 0)
			if market.KindOf(err) == market.KindNotFound {
				today := s.today()
				if err := s.outage(ctx, today, today); err != nil {
					return Page{}, err
				}
				return Page{}, errNotFound("no hot rank is stored yet")
			}
			if err != nil {
				return Page{}, err
			}
			day = d
		}
		dq.Day = day
	}
	items, total, err := s.store.HotRank(ctx, dq)
	if err != nil {
		return Page{}, err
	}
	if total == 0 {
		from, to := dq.Day, dq.Day
		if ranged {
			from, to = q.From, q.To
		}
		// Codes missing from lists that exist are simply not ranked; an
		// outage can only explain days with no list at all.
		if _, n, err := s.store.HotRank(ctx, db.HotRankQuery{Day: dq.Day, From: dq.From, To: dq.To, Limit: 1}); err != nil {
			return Page{}, err
		} else if n == 0 {
			if err := s.outage(ctx, from, to); err != nil {
				return Page{}, err
			}
		}
		switch {
		case ranged:
			return Page{}, errNotFound("nothing ranked between %v and %v", q.From, q.To)
		case len(q.Codes) > 0:
			return Page{}, errNotFound("none of the codes is ranked on %v", dq.Day)
		}
		return Page{}, errNotFound("no hot rank for %v", dq.Day)
	}
	return Page{Day: dq.Day, Items: items, Total: total, Page: q.Page, Size: q.Size}, nil
}

// Top is GET /hot_rank_list: the first n of a day's list (default the
// latest day stored), and how many the day ranks.
func (s *Service) Top(ctx context.Context, day market.Day, n int) (Page, error) {
	if n < 1 || n > s.cfg.MaxSize {
		return Page{}, market.Errorf(market.KindInvalid, "top must be 1..%d", s.cfg.MaxSize)
	}
	p, err := s.Query(ctx, Query{Day: day, Page: 1, Size: n})
	if err != nil {
		return Page{}, err
	}
	return p, nil
}

// Detail is one stock's rank history.
type Detail struct {
	Code      market.Code
	Name      string
	Latest    db.HotRankEntry   // its newest row
	LatestDay market.Day        // the newest day of any list: Latest is current when Latest.Day equals it
	History   []db.HotRankEntry // newest first, within From..To
	From, To  market.Day
	Best      db.HotRankEntry // the best rank within the history (the earliest of equals)
}

// Detail answers GET /hot_rank/detail: the rank of code on every day of
// from..to (default: the DetailDays up to today) that ranked it, its
// latest row and heat, and its best rank. Never ranked is 404.
func (s *Service) Detail(ctx context.Context, code market.Code, from, to market.Day) (Detail, error) {
	if from == 0 && to == 0 {
		to = s.today()
		from = to.AddDays(-(s.cfg.DetailDays - 1))
	} else if err := s.checkRange(from, to); err != nil {
		return Detail{}, err
	}
	latest, _, err := s.store.HotRank(ctx, db.HotRankQuery{Codes: []market.Code{code}, Limit: 1})
	if err != nil {
		return Detail{}, err
	}
	if len(latest) == 0 {
		if _, n, err := s.store.HotRank(ctx, db.HotRankQuery{From: from, To: to, Limit: 1}); err != nil {
			return Detail{}, err
		} else if n == 0 {
			if err := s.outage(ctx, from, to); err != nil {
				return Detail{}, err
			}
		}
		return Detail{}, errNotFound("%v was never ranked", code)
	}
	newest, err := s.store.LatestHotRankDay(ctx, 0)
	if err != nil {
		return Detail{}, err
	}
	hist, _, err := s.store.HotRank(ctx, db.HotRankQuery{Codes: []market.Code{code}, From: from, To: to})
	if err != nil {
		return Detail{}, err
	}
	d := Detail{Code: code, Name: latest[0].Name, Latest: latest[0], LatestDay: newest, History: hist, From: from, To: to}
	for _, e := range hist {
		if d.Best.Rank == 0 || e.Rank <= d.Best.Rank {
			d.Best = e
		}
	}
	return d, nil
}
