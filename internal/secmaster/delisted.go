package secmaster

import (
	"context"
	"errors"
	"fmt"
	"time"

	"mdqs/db"
	"mdqs/internal/config"
	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

// DelistedLists are the exchanges' lists of delisted companies
// (upstream.Exchanges): the delisting days no quote list keeps.
type DelistedLists interface {
	Sources() []string
	DelistedFrom(ctx context.Context, source string) ([]upstream.Delisting, error)
	Statuses() []upstream.Status
}

// Delisted imports the lists into the store.
type Delisted struct {
	store *db.Store
	lists DelistedLists
	// changes, when set, are the lists of short-name changes read on the
	// same schedule (renames.go).
	changes NameChangeLists
	clock   market.Clock
	every   time.Duration
}

// NewDelisted imports lists every interval (see Import).
func NewDelisted(store *db.Store, lists DelistedLists, clock market.Clock, every time.Duration) *Delisted {
	return &Delisted{store: store, lists: lists, clock: clock, every: every}
}

// DelistedFromConfig is the import of a configuration, the lists of
// short-name changes included: nil in demo mode
// (the demo market states its own delistings, see recordDelistings) or
// when securities.delisted is off.
// lims is the process's limiter registry (nil: a new one).
func DelistedFromConfig(cfg config.Config, store *db.Store, lims *upstream.Limiters, clock market.Clock) (*Delisted, error) {
	s := cfg.Securities
	if cfg.DemoMode() || !s.Delisted {
		return nil, nil
	}
	if lims == nil {
		lims = upstream.NewLimiters()
	}
	d := upstream.DefaultExchangesConfig()
	c, err := upstream.NewExchanges(upstream.ExchangesConfig{SZSE: s.SZSE.Source(d.SZSE), SSE: s.SSE.Source(d.SSE)}, lims, clock)
	if err != nil {
		return nil, err
	}
	return NewDelisted(store, c, clock, s.DelistedInterval.Duration).WithNameChanges(c), nil
}

// Statuses is the lists' health for /health/sources; none when d is nil.
func (d *Delisted) Statuses() []upstream.Status {
	if d == nil {
		return nil
	}
	return d.lists.Statuses()
}

// Import is the job: each list not read within the interval (or never)
// is read whole and replaces its stored rows. The job runs more often
// than the interval so that a failed read is tried again within the hour,
// and so that a restart reads only the lists that are due. A list that
// fails leaves its stored rows as they were; the other is imported all
// the same.
func (d *Delisted) Import(ctx context.Context) error {
	var errs []error
	for _, src := range d.lists.Sources() {
		now := d.clock.Now()
		at, err := d.store.DelistingsFetched(ctx, src)
		switch {
		case err == nil && now.Sub(at) < d.every:
			continue
		case err != nil && market.KindOf(err) != market.KindNotFound:
			errs = append(errs, err)
			continue
		}
		rows, err := d.lists.DelistedFrom(ctx, src)
		if err != nil {
			errs = append(errs, fmt.Errorf("the %s list of delisted companies: %w", src, err))
			continue
		}
		out := make([]db.Delisting, len(rows))
		for i, r := range rows {
			out[i] = db.Delisting{Code: r.Code, Name: r.Name, Listed: r.Listed, Delisted: r.Delisted}
		}
		if err := d.store.ReplaceDelistings(ctx, src, out, d.clock.Now()); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(append(errs, d.importNameChanges(ctx))...)
}

// addDelisting completes t with the delisting day the lists state of its
// code, and the list (their listing days come with the store's,
// db.ListingDay).
func (s *Service) addDelisting(ctx context.Context, t *Timeline) error {
	rows, err := s.store.Delisting(ctx, t.Code)
	switch {
	case market.KindOf(err) == market.KindNotFound:
		return nil
	case err != nil:
		return err
	}
	for _, r := range rows {
		if t.Delisted.Day == 0 && r.Delisted != 0 {
			t.Delisted = db.ListedOn{Day: r.Delisted, Source: r.Source}
		}
	}
	return nil
}

// recordDelistings stores the delistings History states (the demo's), as
// an exchange's list would give them: the name of its last listed day,
// its listing and delisting days.
func (s *Service) recordDelistings(ctx context.Context) error {
	days := s.cfg.History.DelistingDays()
	listed := s.cfg.History.ListingDays()
	rows := make([]db.Delisting, 0, len(days))
	for code, d := range days {
		rows = append(rows, db.Delisting{Code: code, Name: s.cfg.History.NamesOn(s.cal.Prev(d))[code], Listed: listed[code], Delisted: d})
	}
	return s.store.ReplaceDelistings(ctx, HistorySource, rows, s.clock.Now())
}
