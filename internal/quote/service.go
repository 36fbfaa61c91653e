// Package quote serves current quotes of any codes: the whole-market
// snapshot the screener also reads (one upstream walk per refresh, shared)
// and, for codes the snapshot leaves out (indices, funds), one upstream
// call per code, with the status, limit prices and call-auction figures
// derived once here.
package quote

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

// Snapshot is the whole A-share list (push2 clist, or the demo).
type Snapshot interface {
	Quotes(ctx context.Context) ([]market.Quote, error)
}

// Single is one security's quote (push2 stock/get, or the demo), for the
// codes the snapshot does not hold. A code the source does not know is a
// KindNotFound market error, an upstream KindEmpty, or rc 100.
type Single interface {
	Quote(ctx context.Context, code market.Code) (market.Quote, error)
}

// Config sets the service's limits.
type Config struct {
	// Age is how old the snapshot (and a single quote) may be before the
	// next request asks the source again: screener.quote_age.
	Age time.Duration
	// Source names the source in answers and errors: push2 or demo.
	Source string
	// MaxCodes bounds one lookup; MaxSingles bounds the codes of one
	// lookup that need their own upstream call, which at push2's 2/s is
	// the lookup's time.
	MaxCodes, MaxSingles int
}

// Defaults: 100 codes fit one query value (1 KiB) in the canonical form;
// 20 single calls are ten seconds at push2's rate.
const (
	DefaultMaxCodes   = 100
	DefaultMaxSingles = 20
)

// errorHold is how long a failed refresh answers for the source without
// asking it again, so a burst of requests during an outage costs one call.
const errorHold = 5 * time.Second

// Service owns the snapshot: it refreshes it at most once per Age, one
// caller at a time (the others wait for that refresh and use it), and
// keeps recent single quotes for the same age.
type Service struct {
	snap   Snapshot
	single Single // may be nil: codes outside the snapshot are unknown
	cal    *market.Calendar
	clock  market.Clock
	cfg    Config

	refresh chan struct{} // a one-slot lock a waiter can give up on

	mu      sync.Mutex
	quotes  []market.Quote
	byCode  map[market.Code]int
	snapAt  time.Time // when the source was asked (the clock's)
	snapErr error     // the source's error with the rows (partial), or of a failed refresh
	failAt  time.Time // when the last refresh failed outright
	singles map[market.Code]singleEntry
	calls   int // source calls, snapshot and single, for tests

	onRefresh []func(changed []Quote)
}

type singleEntry struct {
	q   market.Quote
	err error // a not-found answer is kept too: unknown codes cost one call per age
	at  time.Time
}

func New(snap Snapshot, single Single, cal *market.Calendar, clock market.Clock, cfg Config) *Service {
	if cfg.MaxCodes <= 0 {
		cfg.MaxCodes = DefaultMaxCodes
	}
	if cfg.MaxSingles <= 0 {
		cfg.MaxSingles = DefaultMaxSingles
	}
	if cfg.Age <= 0 {
		cfg.Age = time.Minute
	}
	return &Service{snap: snap, single: single, cal: cal, clock: clock, cfg: cfg, refresh: make(chan struct{}, 1),
		singles: map[market.Code]singleEntry{}}
}

// Config is the service's configuration, defaults filled in.
func (s *Service) Config() Config { return s.cfg }

// Quotes is the snapshot, refreshed when older than Age, with the source's
// own error when it came back partial: the screener's quote source, so
// screens and quotes share one upstream walk. The slice is shared; callers
// must not modify it.
func (s *Service) Quotes(ctx context.Context) ([]market.Quote, error) {
	qs, _, err := s.current(ctx)
	return qs, err
}

// Calls is how many times the service has asked its sources.
func (s *Service) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

// current is the snapshot no older than Age, its index, and the source's
// error (partial rows, or a failed refresh with no rows).
func (s *Service) current(ctx context.Context) ([]market.Quote, map[market.Code]int, error) {
	if qs, idx, err, ok := s.fresh(); ok {
		return qs, idx, err
	}
	select {
	case s.refresh <- struct{}{}:
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
	defer func() { <-s.refresh }()
	// Whoever held the slot may have refreshed it meanwhile.
	if qs, idx, err, ok := s.fresh(); ok {
		return qs, idx, err
	}
	s.mu.Lock()
	s.calls++
	s.mu.Unlock()
	now := s.clock.Now()
	qs, err := s.snap.Quotes(ctx)
	if ctx.Err() != nil && err != nil {
		return nil, nil, err // the caller gave up; the next one asks again
	}
	s.mu.Lock()
	if len(qs) == 0 {
		if err == nil {
			err = &upstream.Error{Kind: upstream.KindEmpty, Source: s.cfg.Source, Detail: "the snapshot holds no quotes"}
		}
		s.snapErr, s.failAt = err, now
		s.mu.Unlock()
		return nil, nil, err
	}
	idx := make(map[market.Code]int, len(qs))
	for i, q := range qs {
		idx[q.Code] = i
	}
	prev, prevIdx := s.quotes, s.byCode
	s.quotes, s.byCode, s.snapAt, s.snapErr, s.failAt = qs, idx, now, err, time.Time{}
	hooks := s.onRefresh
	s.mu.Unlock()
	if len(hooks) > 0 {
		if changed := changedQuotes(prev, prevIdx, qs); len(changed) > 0 {
			out := make([]Quote, len(changed))
			for i, j := range changed {
				out[i].Quote = qs[j]
				s.derive(&out[i], now)
			}
			for _, fn := range hooks {
				fn(out)
			}
		}
	}
	return qs, idx, err
}

// OnRefresh registers a receiver of the quotes that changed at each
// snapshot refresh (the stream's quote publisher). Call before serving.
func (s *Service) OnRefresh(fn func(changed []Quote)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onRefresh = append(s.onRefresh, fn)
}

// changedQuotes are the positions in next of the quotes whose price,
// volume or amount differ from prev's (every one, the first time).
func changedQuotes(prev []market.Quote, prevIdx map[market.Code]int, next []market.Quote) []int {
	var out []int
	for j, q := range next {
		if i, ok := prevIdx[q.Code]; ok {
			p := prev[i]
			if p.Price == q.Price && p.Volume == q.Volume && p.Amount == q.Amount {
				continue
			}
		}
		out = append(out, j)
	}
	return out
}

// fresh is the held snapshot when it is young enough, or a recent failure.
func (s *Service) fresh() ([]market.Quote, map[market.Code]int, error, bool) {
	now := s.clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.failAt.IsZero() && now.Sub(s.failAt) < min(errorHold, s.cfg.Age) {
		return nil, nil, s.snapErr, true
	}
	if s.quotes != nil && now.Sub(s.snapAt) < s.cfg.Age && now.Sub(s.snapAt) >= 0 {
		return s.quotes, s.byCode, s.snapErr, true
	}
	return nil, nil, nil, false
}

// Quote is one code's answer: the source's figures and what this service
// derives from them at the instant asked.
type Quote struct {
	market.Quote
	Type   market.SecurityType
	Status Status
	Phase  string // market.Phase at the instant asked
	// LimitUp and LimitDown (shadowing the source's, which are 0 when it
	// gives none) are NaN when the code has none; LimitFrom says whose
	// they are: "source" (published with the quote) or
	// "rule" (derived here from the previous close).
	LimitUp, LimitDown float64
	LimitFrom          string
	// Auction is set while the opening call auction runs (status
	// auction): the source's price and volume then are the auction's.
	Auction *AuctionFigures
	Source  string
}

// AuctionFigures are the call auction's price and matched volume as the
// source shows them: before 09:25 the indicative match (Matched false),
// from 09:25 the opening match itself. Price is NaN when nothing matches
// (or the source gives no indicative price, as the demo before 09:25);
// Volume is -1 when unknown.
type AuctionFigures struct {
	Price   float64
	Volume  int64
	Matched bool
}

// Lookup answers codes in the order given (the caller removes
// duplicates). It fails as a whole: an unknown code is KindNotFound naming
// every unknown one, a source that fails is KindUnavailable naming it.
func (s *Service) Lookup(ctx context.Context, codes []market.Code) ([]Quote, error) {
	if len(codes) > s.cfg.MaxCodes {
		return nil, market.Errorf(market.KindInvalid, "%d codes; at most %d per request", len(codes), s.cfg.MaxCodes)
	}
	qs, idx, err := s.current(ctx)
	if qs == nil {
		return nil, s.unavailable("the quote snapshot", err)
	}
	complete := err == nil
	out := make([]Quote, len(codes))
	var rest []int // positions that need a single quote
	var unknown []string
	for i, c := range codes {
		if j, ok := idx[c]; ok {
			out[i].Quote = qs[j]
			continue
		}
		// The snapshot lists every A share, suspended ones included: a
		// stock missing from a complete one is not listed, and asking
		// for it one by one would only cost upstream calls.
		if complete && market.Classify(c) == market.TypeStock || s.single == nil {
			unknown = append(unknown, c.String())
			continue
		}
		rest = append(rest, i)
	}
	if len(rest) > s.cfg.MaxSingles {
		return nil, market.Errorf(market.KindInvalid, "%d of the codes (indices, funds, or stocks the snapshot lacks) need one upstream call each; at most %d per request",
			len(rest), s.cfg.MaxSingles)
	}
	for _, i := range rest {
		q, err := s.one(ctx, codes[i])
		switch {
		case err == nil:
			out[i].Quote = q
		case notFound(err):
			unknown = append(unknown, codes[i].String())
		default:
			return nil, s.unavailable("the quote of "+codes[i].String(), err)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, &market.Error{Kind: market.KindNotFound, Message: "unknown code",
			Detail: fmt.Sprintf("no quote for %s: not a security %s lists", strings.Join(unknown, ", "), s.cfg.Source)}
	}
	now := s.clock.Now()
	for i := range out {
		s.derive(&out[i], now)
	}
	return out, nil
}

// one is a single quote no older than Age. Single calls are rare (a few
// indices per request) and each is rate-limited upstream, so concurrent
// callers for one code may both ask; the cache makes the next ones free.
func (s *Service) one(ctx context.Context, code market.Code) (market.Quote, error) {
	now := s.clock.Now()
	s.mu.Lock()
	e, ok := s.singles[code]
	s.mu.Unlock()
	if ok && now.Sub(e.at) < s.cfg.Age && now.Sub(e.at) >= 0 {
		return e.q, e.err
	}
	s.mu.Lock()
	s.calls++
	s.mu.Unlock()
	q, err := s.single.Quote(ctx, code)
	if err != nil && !notFound(err) {
		return q, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.singles) >= 4*s.cfg.MaxCodes {
		clear(s.singles) // a bound, not a policy: the entries live one Age anyway
	}
	s.singles[code] = singleEntry{q: q, err: err, at: now}
	return q, err
}

// notFound tells a source's "no such security" from a failure.
func notFound(err error) bool {
	var e *upstream.Error
	if errors.As(err, &e) {
		return e.Kind == upstream.KindEmpty || e.Kind == upstream.KindRC && e.RC == 100
	}
	var me *market.Error
	return errors.As(err, &me) && me.Kind == market.KindNotFound
}

// unavailable is the 503 of a source that failed, naming it, with the
// breaker's retry time when it has one.
func (s *Service) unavailable(what string, err error) error {
	if err == nil {
		err = errors.New("no answer")
	}
	if errors.Is(err, context.Canceled) {
		return err // the client left
	}
	if errors.Is(err, context.DeadlineExceeded) {
		// The request's bound on upstream waits (server.upstream_wait).
		return &market.Error{Kind: market.KindUnavailable, Message: market.DefaultMessage(market.KindUnavailable),
			Detail: fmt.Sprintf("%s from %s: no answer within the request's upstream wait", what, s.cfg.Source), Err: err}
	}
	return &market.Error{Kind: market.KindUnavailable, Message: market.DefaultMessage(market.KindUnavailable),
		Detail: fmt.Sprintf("%s from %s failed: %v", what, s.cfg.Source, err), Err: err, RetryAfter: upstream.RetryIn(err)}
}

// derive fills what the service adds to the source's figures.
func (s *Service) derive(q *Quote, now time.Time) {
	day := market.DayOf(now)
	if !q.At.IsZero() {
		day = market.DayOf(q.At) // the session the figures are of: Friday's, on a Sunday
	}
	q.Type = market.Classify(q.Code)
	q.Source = s.cfg.Source
	q.Status, q.Phase = StatusAt(s.cal, now, q.Quote)
	q.LimitUp, q.LimitDown = math.NaN(), math.NaN()
	switch {
	case q.Quote.LimitUp > 0 && q.Quote.LimitDown > 0:
		q.LimitUp, q.LimitDown, q.LimitFrom = q.Quote.LimitUp, q.Quote.LimitDown, "source"
	default:
		if pct, ok := LimitPct(q.Code, q.Name, day); ok {
			if up, down, ok := Limits(q.PrevClose, pct); ok {
				q.LimitUp, q.LimitDown, q.LimitFrom = up, down, "rule"
			}
		}
	}
	if q.Status == Auction {
		a := &AuctionFigures{Price: math.NaN(), Volume: q.Volume, Matched: q.Phase == market.PhasePreOpen}
		if q.Volume > 0 && q.Price > 0 {
			a.Price = q.Price
		}
		if q.Volume < 0 {
			a.Volume = -1
		}
		q.Auction = a
	}
}
