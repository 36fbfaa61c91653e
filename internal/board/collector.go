package board

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"mdqs/db"
	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

// Collector fetches snapshots from sources, stores each collection in
// SQLite, and remembers the latest per (family, source) so readers need no
// query and no upstream call while it is fresh.
type Collector struct {
	store   *db.Store
	sources map[string]SectorSource
	clock   market.Clock
	log     *slog.Logger
	policy  Policy

	// base outlives requests: collections run on it so that a reader who
	// stops waiting does not cancel them; Close ends it.
	base context.Context
	stop context.CancelFunc

	mu     sync.RWMutex
	latest map[key]Stored
	// fetched is the last collection of each family and source, whatever
	// its day: a source that has just shown another day than the one
	// asked for is not asked again before the soft freshness passes.
	fetched map[key]Stored
	// pending is when each upstream fetch in flight began, so that a
	// reader who gives up on a build it joined can say which source it
	// was waiting for.
	pending   map[key]time.Time
	flight    singleflight.Group
	waits     upstream.WaitMarks // of the collections in flight
	observers []Observer
}

// Observer learns of every new collection after it is stored (the movement
// detector). Its error is logged; collection goes on.
type Observer func(ctx context.Context, st Stored) error

// Observe adds an observer; call before the collector is used.
func (c *Collector) Observe(o Observer) { c.observers = append(c.observers, o) }

type key struct {
	kind   market.SectorKind
	source string
}

// Stored is a snapshot with the time it was collected.
type Stored struct {
	market.SectorSnapshot
	CollectedAt time.Time
}

// Day is the trade day the snapshot's data is of.
func (s Stored) Day() market.Day { return market.DayOf(s.At) }

// Policy says when a collection is due.
type Policy struct {
	Calendar *market.Calendar
	Window   market.Window // collection window of trading days
	Soft     time.Duration // a collection older than this is due inside the window
	// Wait is how long a reader waits for a due collection when an older
	// one of the day is there to answer with (default 3 s). A slow or
	// hanging upstream then costs a request this much, not the upstream's
	// timeouts and retries: the collection goes on in the background and
	// the next reader gets it.
	Wait time.Duration
}

// DefaultWait is Policy.Wait's default: a healthy push2 delivers both
// sector families well within it at the shared 2 requests/s.
const DefaultWait = 3 * time.Second

func NewCollector(store *db.Store, sources map[string]SectorSource, clock market.Clock, log *slog.Logger, policy Policy) *Collector {
	if policy.Wait <= 0 {
		policy.Wait = DefaultWait
	}
	base, stop := context.WithCancel(context.Background())
	return &Collector{store: store, sources: sources, clock: clock, log: log, policy: policy, latest: map[key]Stored{}, fetched: map[key]Stored{},
		pending: map[key]time.Time{}, base: base, stop: stop}
}

// Close cancels the collections still running (a reader may have stopped
// waiting for one); call it at shutdown, before the store closes.
func (c *Collector) Close() { c.stop() }

// Pick is the collection chosen for one family of the current day.
type Pick struct {
	Stored
	Found bool  // Stored holds a collection of the day
	Tried bool  // a fresh collection was attempted
	Err   error // why the attempt (or the lookup) failed
}

// Current chooses the collection of a family for the current trading day
// without calling the upstream when the store can answer: the latest one,
// unless a fresh one is due (and collect allows asking) because
//   - there is none for the day,
//   - inside the window, it is older than the soft freshness, or
//   - the close has passed since it was taken (the final state is wanted).
//
// A failed collection leaves the latest one in the pick, with the error.
func (c *Collector) Current(ctx context.Context, kind market.SectorKind, source string, day market.Day, collect bool) Pick {
	now := c.clock.Now()
	latest, err := c.Latest(ctx, kind, source, day)
	p := Pick{Stored: latest, Found: err == nil}
	if err != nil && !IsNotFound(err) {
		p.Err = err
		return p
	}
	closeAt := c.policy.Window.End.On(day)
	if replay, ok := c.replayOver(ctx, kind, source, day, now); ok {
		// The day is over and the source can tell its close: a collection
		// now would be of another day (the demo market's next pre-open).
		if !p.Found || p.CollectedAt.Before(closeAt) {
			p.Stored, p.Found, p.Err = replay, true, nil
		}
		return p
	}
	due := !p.Found ||
		(c.policy.Window.Contains(c.policy.Calendar, now) && now.Sub(latest.CollectedAt) >= c.policy.Soft) ||
		(!now.Before(closeAt) && latest.CollectedAt.Before(closeAt))
	if !due {
		return p
	}
	if !collect {
		if !p.Found {
			p.Err = market.Errorf(market.KindUnavailable, "no %s collection stored for %v", kind, day)
		}
		return p
	}
	p.Tried = true
	if last, ok := c.lastFetched(kind, source); ok && last.Day() != day {
		if age := now.Sub(last.CollectedAt); age >= 0 && age < c.policy.Soft {
			// The source showed another day a moment ago: asking again
			// now would only fetch that again. Requests for the day cost
			// the source (and the store) one collection per soft freshness.
			p.Err = c.otherDay(kind, source, last.Day(), day)
			return p
		}
	}
	var fresh Stored
	if p.Found {
		fresh, err = c.collectWithin(ctx, kind, source, c.policy.Wait)
	} else {
		fresh, err = c.Collect(ctx, kind, source)
	}
	switch {
	case err != nil:
		p.Err = err
	case fresh.Day() != day:
		p.Err = c.otherDay(kind, source, fresh.Day(), day)
	default:
		p.Stored, p.Found = fresh, true
	}
	return p
}

// otherDay is the error of a source whose data is of day got when day is
// asked for.
func (c *Collector) otherDay(kind market.SectorKind, source string, got, day market.Day) error {
	if got > day {
		// Between the midnight after a session and the next window's
		// opening, the source may already show the next day's call auction.
		return market.Errorf(market.KindUnavailable, "%s now publishes %s data of %v (the next session has begun) and no %s collection of %v is stored",
			source, kind, got, kind, day)
	}
	return market.Errorf(market.KindUnavailable, "%s %s data is of %v, not %v", source, kind, got, day)
}

func (c *Collector) lastFetched(kind market.SectorKind, source string) (Stored, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	st, ok := c.fetched[key{kind, source}]
	return st, ok
}

// replayOver is the close of a day that is over by a new calendar day, from
// a source that can replay the past (the demo market); ok is false for any
// other day or source. Real upstreams go on showing the last session until
// the next call auction, so they are collected as usual.
func (c *Collector) replayOver(ctx context.Context, kind market.SectorKind, source string, day market.Day, now time.Time) (Stored, bool) {
	if market.DayOf(now) <= day {
		return Stored{}, false
	}
	if _, ok := c.sources[source].(HistorySource); !ok {
		return Stored{}, false
	}
	st, err := c.History(ctx, kind, source, c.policy.Window.End.On(day))
	return st, err == nil
}

// Has reports whether a concrete source is configured.
func (c *Collector) Has(source string) bool {
	_, ok := c.sources[source]
	return ok
}

// auctionStart is when EastMoney's lists turn to the new session (the call
// auction); before it they show the last session's final state.
const auctionStart market.TimeOfDay = 9*60 + 15

// sessionInstant is the instant a snapshot without a timestamp of its own
// (akshare's) taken at now describes: now on a trading day from the call
// auction on, else the close of the last session, whose state the upstream
// goes on showing overnight and over a weekend.
func (c *Collector) sessionInstant(now time.Time) time.Time {
	d := market.DayOf(now)
	if c.policy.Calendar.IsTradingDay(d) && market.ClockOf(now) >= auctionStart {
		return now
	}
	return c.policy.Window.End.On(c.policy.Calendar.Prev(d))
}

// Collect fetches a fresh snapshot from the source, stores it and makes it
// the latest. Concurrent calls for the same family and source share one
// upstream request.
func (c *Collector) Collect(ctx context.Context, kind market.SectorKind, source string) (Stored, error) {
	return c.collectWithin(ctx, kind, source, 0)
}

// collectWithin is Collect that gives up waiting after wait (0: never)
// or when ctx ends; the collection itself goes on for whoever comes next.
func (c *Collector) collectWithin(ctx context.Context, kind market.SectorKind, source string, wait time.Duration) (Stored, error) {
	src, ok := c.sources[source]
	if !ok {
		return Stored{}, market.Errorf(market.KindInvalid, "source %s is not configured on this server", source)
	}
	start := time.Now()
	fkey := string(kind) + "/" + source
	// A request that starts or joins the collection (a job may have
	// started it) waits on it: a source that has not answered yet is
	// not retried while it does.
	mark := c.waits.Join(ctx, fkey)
	ch := c.flight.DoChan(fkey, func() (any, error) {
		defer c.waits.Done(fkey, mark)
		// A caller that gives up must not cancel the collection the others
		// are waiting for; only Close does.
		fctx, cancel := context.WithTimeout(mark.Context(c.base), 2*time.Minute)
		defer cancel()
		k := key{kind, source}
		c.mu.Lock()
		c.pending[k] = time.Now()
		c.mu.Unlock()
		snap, err := src.Sectors(fctx, kind)
		c.mu.Lock()
		delete(c.pending, k)
		c.mu.Unlock()
		if err != nil {
			return Stored{}, market.Wrap(market.KindUnavailable, err, "%s %s snapshot: %v", source, kind, err)
		}
		return c.keep(fctx, kind, source, snap)
	})
	var timeout <-chan time.Time
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case res := <-ch:
		if res.Err != nil {
			return Stored{}, res.Err
		}
		return res.Val.(Stored), nil
	case <-timeout:
		return Stored{}, market.Errorf(market.KindUnavailable, "the %s %s collection is taking longer than %v; it goes on in the background", source, kind, wait)
	case <-ctx.Done():
		// The request's own bound (server.upstream_wait) or its client
		// leaving: either way the source has not answered yet.
		return Stored{}, market.Wrap(market.KindUnavailable, ctx.Err(), "%s %s snapshot: no answer within %v; the collection goes on in the background",
			source, kind, time.Since(start).Round(100*time.Millisecond))
	}
}

// Waiting says which upstream fetches are in flight and for how long, the
// longest first ("akshare industry snapshot: no answer for 20s"), or ""
// when none is.
func (c *Collector) Waiting() string {
	c.mu.RLock()
	type wait struct {
		k     key
		since time.Time
	}
	var waits []wait
	for k, since := range c.pending {
		waits = append(waits, wait{k, since})
	}
	c.mu.RUnlock()
	slices.SortFunc(waits, func(a, b wait) int { return a.since.Compare(b.since) })
	var parts []string
	for _, w := range waits {
		parts = append(parts, fmt.Sprintf("%s %s snapshot: no answer for %v", w.k.source, w.k.kind, time.Since(w.since).Round(100*time.Millisecond)))
	}
	return strings.Join(parts, ", ")
}

// keep validates, stores and remembers a snapshot.
func (c *Collector) keep(ctx context.Context, kind market.SectorKind, source string, snap market.SectorSnapshot) (Stored, error) {
	if len(snap.Sectors) == 0 {
		return Stored{}, market.Errorf(market.KindUnavailable, "%s %s snapshot is empty", source, kind)
	}
	snap.Kind, snap.Source = kind, source
	if snap.At.IsZero() {
		snap.At = c.sessionInstant(c.clock.Now())
	}
	st := Stored{SectorSnapshot: snap, CollectedAt: c.clock.Now()}
	// The same data as the latest stored collection (a source that has
	// not moved, or is stuck on a past session) is not stored again.
	_, added, err := c.store.SaveCollection(ctx, snap, st.CollectedAt)
	if err != nil {
		return Stored{}, err
	}
	c.remember(kind, source, st)
	c.mu.Lock()
	c.fetched[key{kind, source}] = st
	c.mu.Unlock()
	if !added {
		return st, nil // nothing new for the observers either
	}
	for _, o := range c.observers {
		if err := o(ctx, st); err != nil {
			c.log.Warn("collection observer failed", "kind", kind, "source", source, "err", err)
		}
	}
	return st, nil
}

func (c *Collector) remember(kind market.SectorKind, source string, st Stored) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := key{kind, source}
	if old, ok := c.latest[k]; !ok || !st.At.Before(old.At) {
		c.latest[k] = st
	}
}

// Latest is the last collection of a family from a source for a trade day:
// from memory when it is the newest, else from SQLite. None is a not-found
// error.
func (c *Collector) Latest(ctx context.Context, kind market.SectorKind, source string, day market.Day) (Stored, error) {
	c.mu.RLock()
	st, ok := c.latest[key{kind, source}]
	c.mu.RUnlock()
	if ok && st.Day() == day {
		return st, nil
	}
	snap, collected, err := c.store.LatestSnapshot(ctx, kind, source, day)
	if err != nil {
		return Stored{}, err
	}
	return Stored{SectorSnapshot: snap, CollectedAt: collected}, nil
}

// History asks a source that can replay the past for its state at t. The
// replay is not stored: it can be made again at will, and storing it would
// mix made-up collections with observed ones. Sources that cannot replay
// give a not-found error.
func (c *Collector) History(ctx context.Context, kind market.SectorKind, source string, t time.Time) (Stored, error) {
	hs, ok := c.sources[source].(HistorySource)
	if !ok {
		return Stored{}, market.Errorf(market.KindNotFound, "source %s cannot replay past days", source)
	}
	snap, err := hs.SectorsAt(ctx, kind, t)
	switch k := market.KindOf(err); {
	case err == nil:
	case k == market.KindInvalid || k == market.KindNotFound:
		// A time the source cannot replay (before its history, past its
		// horizon) is a day without data, not an outage.
		var me *market.Error
		errors.As(err, &me)
		return Stored{}, market.Wrap(market.KindNotFound, err, "%s has no %s data at %s: %s", source, kind, market.FormatTime(t), me.Detail)
	default:
		return Stored{}, market.Wrap(market.KindUnavailable, err, "%s %s history: %v", source, kind, err)
	}
	if len(snap.Sectors) == 0 {
		return Stored{}, market.Errorf(market.KindNotFound, "%s has no %s data at %s", source, kind, market.FormatTime(t))
	}
	snap.Kind, snap.Source = kind, source
	return Stored{SectorSnapshot: snap, CollectedAt: c.clock.Now()}, nil
}

// Session replays a day of a source minute by minute through until (see
// SessionSource); ok is false for a source that cannot, which is every real
// upstream. Replays are not stored, as History's are not.
func (c *Collector) Session(ctx context.Context, source string, day market.Day, until time.Time) (industry, concept []Stored, ok bool, err error) {
	ss, ok := c.sources[source].(SessionSource)
	if !ok {
		return nil, nil, false, nil
	}
	ind, con, err := ss.SessionSectors(ctx, day, until)
	if err != nil {
		if market.KindOf(err) == market.KindNotFound {
			return nil, nil, true, err
		}
		return nil, nil, true, market.Wrap(market.KindUnavailable, err, "%s session of %v: %v", source, day, err)
	}
	stored := func(kind market.SectorKind, snaps []market.SectorSnapshot) []Stored {
		out := make([]Stored, len(snaps))
		for i, s := range snaps {
			s.Kind, s.Source = kind, source
			out[i] = Stored{SectorSnapshot: s, CollectedAt: s.At}
		}
		return out
	}
	return stored(market.Industry, ind), stored(market.Concept, con), true, nil
}

// Warm loads the newest stored collection of each configured source into
// memory, so a restarted service answers from its store at once.
func (c *Collector) Warm(ctx context.Context) error {
	for source := range c.sources {
		for _, kind := range []market.SectorKind{market.Industry, market.Concept} {
			snap, collected, err := c.store.LatestSnapshot(ctx, kind, source, 0)
			if market.KindOf(err) == market.KindNotFound {
				continue
			}
			if err != nil {
				return err
			}
			c.remember(kind, source, Stored{SectorSnapshot: snap, CollectedAt: collected})
		}
	}
	return nil
}

// IsNotFound reports a missing snapshot (as opposed to a failure).
func IsNotFound(err error) bool {
	var me *market.Error
	return errors.As(err, &me) && me.Kind == market.KindNotFound
}
