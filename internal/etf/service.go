// Package etf serves the ETF list: each fund's last price, IOPV, the
// premium mdqs computes from them, the source's own discount rate,
// turnover and scale. The list comes whole from one source (push2's ETF
// boards, or the demo market) and is held with a soft and a hard age, as
// the other lists are: younger than the soft age it is served as is;
// older, the next request asks the source again (concurrent requests
// sharing one call); when that fails, the held list is served, marked
// stale, until the hard age; past it, or with nothing held, the failure
// is a 503 naming the source.
package etf

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

// Source is the ETF list of a source (push2, the demo market). A list
// cut short comes with the rows in hand and an upstream KindPartial error.
type Source interface {
	ETFs(ctx context.Context) ([]market.ETF, error)
}

// Config sets the ages and names the source.
type Config struct {
	// Soft is how old a list may be before a request asks the source
	// again (etf.refresh); Hard how long a held list is still served,
	// marked stale, while the source fails (etf.max_age).
	Soft, Hard time.Duration
	// Source names the source in answers and errors: push2 or demo.
	Source string
}

// Defaults: a minute, as the quote snapshot; a failing source leaves the
// last list served for an hour, marked stale.
const (
	DefaultSoft = time.Minute
	DefaultHard = time.Hour
)

// errorHold is how long a failed refresh with nothing held answers for the
// source without asking it again, so a burst of requests during an outage
// costs one call.
const errorHold = 5 * time.Second

// Row is one fund with what mdqs derives from the source's figures.
type Row struct {
	market.ETF
	// PremiumPct is (price - IOPV) / IOPV x 100, computed here; NaN when
	// either is unknown or the IOPV is not positive.
	PremiumPct float64
}

// Premium is (price - iopv) / iopv x 100, NaN unless both are known and
// the IOPV is positive.
func Premium(price, iopv float64) float64 {
	if math.IsNaN(price) || math.IsNaN(iopv) || math.IsInf(price, 0) || math.IsInf(iopv, 0) || iopv <= 0 || price <= 0 {
		return math.NaN()
	}
	return (price - iopv) / iopv * 100
}

// List is one fetch of the whole list. The slice is shared by every
// request that gets it: callers must not modify it.
type List struct {
	Rows    []Row
	Source  string
	Fetched time.Time // when the source was asked (the clock's)
	// AsOf is the newest row time (f124), DataDate the newest data date
	// (f297) of the rows; zero when no row has one.
	AsOf     time.Time
	DataDate market.Day
	// Partial is the source's account of a list cut short ("" when whole).
	Partial string
	// Stale is set on a list served after a failed refresh; Problem then
	// says what failed.
	Stale   bool
	Problem string
}

// Service holds the last list.
type Service struct {
	src   Source
	clock market.Clock
	cfg   Config

	refresh chan struct{} // a one-slot lock a waiter can give up on

	mu     sync.Mutex
	held   *List     // the last list fetched
	stale  *List     // held marked stale after the last failed refresh
	failAt time.Time // when the last refresh failed
	err    error     // its 503, when nothing was held
	calls  int
}

func New(src Source, clock market.Clock, cfg Config) *Service {
	if cfg.Soft <= 0 {
		cfg.Soft = DefaultSoft
	}
	if cfg.Hard < cfg.Soft {
		cfg.Hard = max(DefaultHard, cfg.Soft)
	}
	if clock == nil {
		clock = market.SystemClock{}
	}
	return &Service{src: src, clock: clock, cfg: cfg, refresh: make(chan struct{}, 1)}
}

// Config is the service's configuration, defaults filled in.
func (s *Service) Config() Config { return s.cfg }

// Calls is how many times the service has asked its source.
func (s *Service) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

// List is the current list (see the package comment).
func (s *Service) List(ctx context.Context) (*List, error) {
	if l, err, ok := s.fresh(); ok {
		return l, err
	}
	select {
	case s.refresh <- struct{}{}:
	case <-ctx.Done():
		return nil, s.unavailable(ctx.Err())
	}
	defer func() { <-s.refresh }()
	if l, err, ok := s.fresh(); ok {
		return l, err // whoever held the slot refreshed it meanwhile
	}
	s.mu.Lock()
	s.calls++
	s.mu.Unlock()
	now := s.clock.Now()
	etfs, err := s.src.ETFs(ctx)
	if len(etfs) > 0 && (err == nil || upstream.KindOf(err) == upstream.KindPartial) {
		l := s.build(etfs, err, now)
		s.mu.Lock()
		s.held, s.stale, s.failAt, s.err = l, nil, time.Time{}, nil
		s.mu.Unlock()
		return l, nil
	}
	if err == nil {
		err = &upstream.Error{Kind: upstream.KindEmpty, Source: s.cfg.Source, Detail: "the ETF list holds no funds"}
	}
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return nil, err // the client left; the next one asks again
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failAt = now
	if s.held != nil && now.Sub(s.held.Fetched) < s.cfg.Hard {
		stale := *s.held
		stale.Stale, stale.Problem = true, fmt.Sprintf("refreshing from %s failed: %v", s.cfg.Source, err)
		s.stale, s.err = &stale, nil
		return s.stale, nil
	}
	s.held, s.stale, s.err = nil, nil, s.unavailable(err)
	return nil, s.err
}

// fresh is the held list when younger than the soft age, or the answer
// of a refresh that failed within errorHold: the stale list, or the 503.
func (s *Service) fresh() (*List, error, bool) {
	now := s.clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held != nil {
		if age := now.Sub(s.held.Fetched); age >= 0 && age < s.cfg.Soft {
			return s.held, nil, true
		}
	}
	if since := now.Sub(s.failAt); !s.failAt.IsZero() && since >= 0 && since < min(errorHold, s.cfg.Soft) {
		if s.stale != nil {
			if now.Sub(s.stale.Fetched) < s.cfg.Hard {
				return s.stale, nil, true
			}
			return nil, nil, false
		}
		return nil, s.err, true
	}
	return nil, nil, false
}

func (s *Service) build(etfs []market.ETF, err error, now time.Time) *List {
	l := &List{Rows: make([]Row, len(etfs)), Source: s.cfg.Source, Fetched: now}
	for i, e := range etfs {
		l.Rows[i] = Row{ETF: e, PremiumPct: Premium(e.Price, e.IOPV)}
		if e.At.After(l.AsOf) {
			l.AsOf = e.At
		}
		l.DataDate = max(l.DataDate, e.DataDate)
	}
	if err != nil {
		l.Partial = err.Error()
	}
	return l
}

// unavailable is the 503 of a source that failed, naming it.
func (s *Service) unavailable(err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return &market.Error{Kind: market.KindUnavailable, Message: market.DefaultMessage(market.KindUnavailable),
			Detail: fmt.Sprintf("the ETF list from %s: no answer within the request's upstream wait", s.cfg.Source), Err: err}
	}
	return &market.Error{Kind: market.KindUnavailable, Message: market.DefaultMessage(market.KindUnavailable),
		Detail: fmt.Sprintf("the ETF list from %s failed: %v", s.cfg.Source, err), Err: err, RetryAfter: upstream.RetryIn(err)}
}

// Sort fields: the figures a list can be ordered by.
var sortKeys = map[string]func(Row) float64{
	"premium":      func(r Row) float64 { return r.PremiumPct },
	"discount":     func(r Row) float64 { return r.DiscountRate },
	"pct":          func(r Row) float64 { return r.Pct },
	"amount":       func(r Row) float64 { return r.Amount },
	"volume":       func(r Row) float64 { return float64(r.Volume) },
	"turnover":     func(r Row) float64 { return r.Turnover },
	"market_value": func(r Row) float64 { return r.MarketValue },
	"shares":       func(r Row) float64 { return r.Shares },
	"price":        func(r Row) float64 { return r.Price },
	"iopv":         func(r Row) float64 { return r.IOPV },
}

// SortFields lists what Select sorts by, "code" first (the default).
func SortFields() []string {
	return []string{"code", "premium", "discount", "pct", "amount", "volume", "turnover", "market_value", "shares", "price", "iopv"}
}

// Query selects and orders rows.
type Query struct {
	Category string // "" every category
	Sort     string // one of SortFields; "" = code
	// Order is "asc" or "desc"; "" is ascending for code, descending for
	// a figure (the largest premium first).
	Order string
	Limit int // 0 = all
}

// Select is the rows of q, in a new slice: filtered by category, sorted
// (unknown figures last whichever the order, ties by code), cut to the
// limit. Total is how many matched before the cut.
func Select(rows []Row, q Query) (out []Row, total int) {
	out = make([]Row, 0, len(rows))
	for _, r := range rows {
		if q.Category == "" || r.Category == q.Category {
			out = append(out, r)
		}
	}
	key := sortKeys[q.Sort]
	desc := q.Order == "desc" || q.Order == "" && key != nil
	slices.SortStableFunc(out, func(a, b Row) int {
		c := cmp.Compare(a.Code.String(), b.Code.String())
		if key == nil {
			if desc {
				return -c
			}
			return c
		}
		x, y := key(a), key(b)
		xu, yu := unknown(q.Sort, x), unknown(q.Sort, y)
		switch {
		case xu && !yu:
			return 1
		case yu && !xu:
			return -1
		case xu || x == y:
			return c
		case desc:
			return cmp.Compare(y, x)
		}
		return cmp.Compare(x, y)
	})
	total = len(out)
	if q.Limit > 0 && len(out) > q.Limit {
		out = out[:q.Limit]
	}
	return out, total
}

// unknown: NaN, or a volume of -1.
func unknown(field string, v float64) bool {
	return math.IsNaN(v) || field == "volume" && v < 0
}
