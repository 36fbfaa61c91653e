package secmaster

import (
	"context"
	"sync"

	"mdqs/db"
	"mdqs/internal/market"
)

// sharesCache keeps the last cross-section of shares read: reading one
// takes 60 ms of a full gbbq's 65,000 share records, and a client reads
// the universe of one day again and again. It is good while the store's
// actions revision stands, which moves with any change of the actions
// (on a team, whoever imports).
type sharesCache struct {
	mu  sync.Mutex
	rev int64
	day market.Day
	on  map[market.Code]db.Shares
}

// sharesOn are the shares in force on day, by code (db.Store.SharesOn).
func (s *Service) sharesOn(ctx context.Context, day market.Day) (map[market.Code]db.Shares, error) {
	rev, err := s.store.ActionsRevision(ctx)
	if err != nil {
		return nil, err
	}
	c := &s.shares
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.on != nil && c.rev == rev && c.day == day {
		return c.on, nil
	}
	on, err := s.store.SharesOn(ctx, day)
	if err != nil {
		return nil, err
	}
	c.rev, c.day, c.on = rev, day, on
	return on, nil
}

// withShares gives each security the shares in force on day; one with no
// record keeps the zero Shares (unknown).
func (s *Service) withShares(ctx context.Context, day market.Day, list []Security) error {
	if len(list) == 0 {
		return nil
	}
	on, err := s.sharesOn(ctx, day)
	if err != nil {
		return err
	}
	for i := range list {
		list[i].Shares = on[list[i].Code]
	}
	return nil
}
