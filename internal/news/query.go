package news

import (
	"context"

	"mdqs/db"
	"mdqs/internal/market"
)

// ListQuery is GET /news/list's selection; zero fields do not filter.
type ListQuery struct {
	Type     int
	Day      market.Day
	Code     market.Code
	Search   string // full text over titles and bodies
	Page     int
	PageSize int
}

// List is a page of items.
type List struct {
	Items    []db.NewsRecord
	Total    int
	Page     int
	PageSize int
}

// List answers GET /news/list, newest first. A valid query that matches
// nothing is 404 "not found"; a page past the end of a non-empty result is
// an empty page with the total.
func (s *Service) List(ctx context.Context, q ListQuery) (List, error) {
	if q.Page < 1 || q.PageSize < 1 || q.PageSize > s.cfg.MaxPageSize {
		return List{}, market.Errorf(market.KindInvalid, "page must be >= 1 and page_size 1..%d", s.cfg.MaxPageSize)
	}
	if q.Type != 0 {
		if _, ok := TypeNames()[q.Type]; !ok {
			return List{}, &market.Error{Kind: market.KindInvalid, Message: "invalid news type", Detail: "type must be 1 or 2"}
		}
	}
	items, total, err := s.store.News(ctx, db.NewsQuery{Type: q.Type, Day: q.Day, Code: q.Code, Search: q.Search,
		Offset: (q.Page - 1) * q.PageSize, Limit: q.PageSize})
	if err != nil {
		return List{}, err
	}
	if total == 0 {
		if err := s.outage(ctx, q.Day); err != nil {
			return List{}, err
		}
		return List{}, market.Errorf(market.KindNotFound, "no news matches")
	}
	return List{Items: items, Total: total, Page: q.Page, PageSize: q.PageSize}, nil
}

// View is one item, GET /news/view.
func (s *Service) View(ctx context.Context, id int64) (db.NewsRecord, error) {
	if id < 1 {
		return db.NewsRecord{}, market.Errorf(market.KindInvalid, "id must be a positive integer")
	}
	return s.store.NewsByID(ctx, id)
}
