package ranking

import (
	"cmp"
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"

	"mdqs/cache"
	"mdqs/db"
	"mdqs/internal/board"
	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

// Config is the spec's MARKET_CONF for the ranking, plus the source mode.
type Config struct {
	Soft   time.Duration // BOARDS_TOP50_REFRESH_MS: soft freshness and scheduler interval
	Hard   time.Duration // BOARDS_TOP50_REDIS_TTL_SEC: hard expiry of a cached ranking
	Window market.Window // BOARDS_TOP50_WINDOW_START..END
	EODAt  market.TimeOfDay
	// CatchUpDays bounds the end-of-day job's look back for missed days.
	CatchUpDays int
	// Mode is the source mode (auto, push2, akshare, demo).
	Mode string
	// Shared, when set, holds the rankings every instance of a deployment
	// serves; the process's cache is then a near cache in front of it.
	Shared cache.Shared
	// Collects says whether this instance may collect from the upstreams
	// to rebuild (the leader); nil: always. An instance that may not
	// ranks the collections the leader stored.
	Collects func() bool
}

// Service builds, caches and stores rankings.
type Service struct {
	cfg   Config
	col   *board.Collector
	store *db.Store
	cal   *market.Calendar
	clock market.Clock
	log   *slog.Logger
	cache *cache.Cache[*Entry]
	tier  *cache.Tier[sharedEntry] // nil: nothing shared

	flight  singleflight.Group
	waits   upstream.WaitMarks // of the builds in flight
	onBuild atomic.Pointer[func(*Entry)]
	// statsDone counts the days kept so far by each stats flight.
	statsDone sync.Map
}

// OnBuild has fn called with each ranking this process builds and keeps
// (not those it takes from the shared tier), once per build, after it is
// cached. fn must not block: it runs on the build's goroutine.
func (s *Service) OnBuild(fn func(*Entry)) { s.onBuild.Store(&fn) }

// Entry is a cached ranking: the ranking itself, its full encoding, and
// lazily made encodings for `top` values.
type Entry struct {
	Ranking *market.Ranking
	Day     market.Day
	Built   time.Time
	Expires time.Time // the hard expiry
	// Final marks a ranking of the day's closing state: both families
	// collected after the close. It is not rebuilt again, so its ETag
	// stays and a poller gets its 304.
	Final bool
	Full  *Encoded

	mu  sync.Mutex
	top map[int]*Encoded
}

// maxVariants bounds the per-entry encodings of `top` values; a client
// cycling through many values gets fresh (uncached) encodings beyond it.
const maxVariants = 16

// Top is the encoding with every list cut to n entries (0 or beyond the
// longest list: the full ranking).
func (e *Entry) Top(n int) *Encoded {
	if n <= 0 || n >= e.longest() {
		return e.Full
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if enc, ok := e.top[n]; ok {
		return enc
	}
	enc := encode(e.Ranking, n)
	if len(e.top) < maxVariants {
		if e.top == nil {
			e.top = map[int]*Encoded{}
		}
		e.top[n] = enc
	}
	return enc
}

func (e *Entry) longest() int {
	n := 0
	for _, lt := range market.ListTypes() {
		n = max(n, len(e.Ranking.List(lt)))
	}
	return n
}

func New(cfg Config, col *board.Collector, store *db.Store, cal *market.Calendar, clock market.Clock, log *slog.Logger, maxBytes int64) (*Service, error) {
	c, err := cache.New[*Entry](cache.Config{Name: "rankings", MaxCost: maxBytes, Entries: 64})
	if err != nil {
		return nil, err
	}
	return &Service{cfg: cfg, col: col, store: store, cal: cal, clock: clock, log: log, cache: c,
		tier: cache.NewTier[sharedEntry](cfg.Shared, "ranking:", log)}, nil
}

// Close releases the cache; call once nothing uses the service.
func (s *Service) Close() { s.cache.Close() }

// CacheStats reports the ranking cache's counters.
func (s *Service) CacheStats() cache.Stats { return s.cache.Stats() }

// Source is the label the service's rankings carry.
func (s *Service) Source() string { return board.Label(s.cfg.Mode) }

// QueryDay resolves a request's day parameter (market.Window.QueryDay).
func (s *Service) QueryDay(day market.Day, given bool) (market.Day, error) {
	return s.cfg.Window.QueryDay(s.cal, s.clock.Now(), day, given)
}

// CurrentDay is the day a request without ?day= means.
func (s *Service) CurrentDay() market.Day {
	return s.cfg.Window.CurrentTradingDay(s.cal, s.clock.Now())
}

// Get returns the ranking of a trading day (spec 4.3 rules 3, 4 and 6):
//   - a cached ranking younger than the soft freshness is served as is;
//   - an older one, or none, is rebuilt and written back, concurrent
//     requests sharing one rebuild;
//   - refresh rebuilds unconditionally;
//   - when the rebuild fails the old ranking is served (stale = true) while
//     it lasts; with none cached, a ranking of the stored collections is
//     served (stale = true) if there are any; otherwise the rebuild's error
//     (503 when the sources are down, 404 for a day without data).
func (s *Service) Get(ctx context.Context, day market.Day, refresh bool) (e *Entry, stale bool, err error) {
	now := s.clock.Now()
	old, ok := s.cached(ctx, day)
	if ok && !now.Before(old.Expires) {
		ok = false // past its hard expiry by our clock
	}
	if ok && !refresh && !s.isStale(old, now) {
		return old, false, nil
	}
	fresh, err := s.Rebuild(ctx, day)
	if err == nil {
		return fresh, false, nil
	}
	if ok {
		s.log.Warn("ranking rebuild failed; serving the previous one", "day", day, "err", err)
		return old, true, nil
	}
	// A rebuild that ran out of the request's time leaves it little to
	// rank the stored collections with: that needs the store only.
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storedWait)
	defer cancel()
	if fb, ferr := s.rebuild(sctx, day, false); ferr == nil {
		s.log.Warn("ranking rebuild failed; serving one built from stored collections", "day", day, "err", err)
		return fb, true, nil
	}
	return nil, false, err
}

// storedWait bounds the ranking of stored collections after a failed
// rebuild: local reads only.
const storedWait = 5 * time.Second

// isStale: a ranking of a past day is final and never goes soft-stale; the
// current day's is stale once older than the soft freshness.
func (s *Service) isStale(e *Entry, now time.Time) bool {
	if e.Day != s.cfg.Window.CurrentTradingDay(s.cal, now) || e.Final {
		return false
	}
	return now.Sub(e.Built) >= s.cfg.Soft
}

// Rebuild builds a day's ranking, collecting afresh where the data is due,
// and writes it back to the cache. Concurrent calls for one day share one
// build.
func (s *Service) Rebuild(ctx context.Context, day market.Day) (*Entry, error) {
	return s.rebuild(ctx, day, true)
}

func (s *Service) rebuild(ctx context.Context, day market.Day, collect bool) (*Entry, error) {
	if collect && s.cfg.Collects != nil && !s.cfg.Collects() {
		collect = false
	}
	key := day.Compact()
	if !collect {
		key += "/stored"
	}
	// A request that starts or joins the build (the end-of-day job may
	// have started it) waits on its collections from then on.
	mark := s.waits.Join(ctx, key)
	ch := s.flight.DoChan(key, func() (any, error) {
		defer s.waits.Done(key, mark)
		// The build outlives a request that stops waiting (the others
		// sharing it still wait), but not its wait: a request that can
		// wait only so long on the upstreams (server.upstream_wait) has
		// the build's collections give up waiting then, naming the source
		// they wait for, while they go on in the background.
		bctx, cancel := context.WithTimeout(mark.Context(context.WithoutCancel(ctx)), 3*time.Minute)
		defer cancel()
		if d, ok := ctx.Deadline(); ok {
			bctx, cancel = context.WithDeadline(bctx, d)
			defer cancel()
		}
		r, final, err := s.build(bctx, day, collect)
		if err != nil {
			return nil, err
		}
		e := s.publish(bctx, s.keep(day, r, final))
		if fn := s.onBuild.Load(); fn != nil {
			(*fn)(e)
		}
		return e, nil
	})
	select {
	case res := <-ch:
		if res.Err != nil {
			return nil, res.Err
		}
		return res.Val.(*Entry), nil
	case <-ctx.Done():
	}
	// A build on this request's deadline stops waiting for its
	// collections at the same moment and says which source it waited
	// for: take its word when it comes at once.
	t := time.NewTimer(namingGrace)
	defer t.Stop()
	select {
	case res := <-ch:
		if res.Err != nil {
			return nil, res.Err
		}
		return res.Val.(*Entry), nil
	case <-t.C:
		// The build was started by someone without this deadline (the
		// end-of-day job, another instance's catch-up): say what it is
		// waiting for, as a build on this request's deadline would.
		if waiting := s.col.Waiting(); waiting != "" {
			return nil, market.Wrap(market.KindUnavailable, ctx.Err(), "%s; the collection goes on in the background", waiting)
		}
		return nil, market.Wrap(market.KindUnavailable, ctx.Err(), "gave up waiting for the ranking of %v (the sector sources are slow); it is still being built", day)
	}
}

// namingGrace is how long a request whose time is up still waits for the
// rebuild it shares to report why it failed.
const namingGrace = 200 * time.Millisecond

// keep encodes a ranking and caches it until the hard expiry: the hard TTL
// or the next midnight in Shanghai, whichever comes first (rule 6).
func (s *Service) keep(day market.Day, r *market.Ranking, final bool) *Entry {
	now := s.clock.Now()
	expires := now.Add(s.cfg.Hard)
	if midnight := market.DayOf(now).AddDays(1).Start(); midnight.Before(expires) {
		expires = midnight
	}
	return s.keepLocal(day, r, final, expires)
}

// keepLocal caches an entry in this process until expires.
func (s *Service) keepLocal(day market.Day, r *market.Ranking, final bool, expires time.Time) *Entry {
	now := s.clock.Now()
	e := &Entry{Ranking: r, Day: day, Built: time.UnixMilli(r.UpdatedMS), Expires: expires, Final: final, Full: encode(r, 0)}
	// Rebuilds are rare, so wait until the entry is really in the cache:
	// the next request must find it, not rebuild again. The cache's own TTL
	// only reclaims memory; Get judges expiry by our clock.
	if !s.cache.SetSync(day.Compact(), e, int64(len(e.Full.JSON)+len(e.Full.Gzip)), max(expires.Sub(now), time.Second)) {
		s.log.Warn("ranking not cached (larger than the cache budget?)", "day", day, "bytes", len(e.Full.JSON)+len(e.Full.Gzip))
	}
	return e
}

// build makes a day's ranking from the best data there is:
//   - the current trading day: the latest collections, collecting afresh
//     (when collect is set) a family whose latest is older than the soft
//     freshness inside the window, that has none, or whose latest predates
//     the close once the close has passed. If every collection it tried
//     failed, the build fails; one family failing is ranked from its latest
//     collection;
//   - an earlier day: its stored end-of-day ranking, else its last stored
//     collections, else (demo) the source's replay of that day's close.
//
// final says the ranking is of the day's closing state (every past day's
// is; the current day's once both families were collected after the close).
func (s *Service) build(ctx context.Context, day market.Day, collect bool) (r *market.Ranking, final bool, err error) {
	now := s.clock.Now()
	if day == s.cfg.Window.CurrentTradingDay(s.cal, now) {
		// The families come from different upstreams (auto mode) or pages
		// of one: collecting them side by side halves a slow rebuild.
		var ind, con board.Pick
		var wg sync.WaitGroup
		wg.Go(func() {
			ind = s.col.Current(ctx, market.Industry, board.Resolve(s.cfg.Mode, market.Industry), day, collect)
		})
		con = s.col.Current(ctx, market.Concept, board.Resolve(s.cfg.Mode, market.Concept), day, collect)
		wg.Wait()
		switch {
		case ind.Err != nil && !ind.Found:
			return nil, false, ind.Err
		case con.Err != nil && !con.Found:
			return nil, false, con.Err
		case ind.Err != nil && con.Err != nil, ind.Err != nil && !con.Tried, con.Err != nil && !ind.Tried:
			return nil, false, cmp.Or(ind.Err, con.Err)
		}
		for _, p := range []board.Pick{ind, con} {
			if p.Err != nil {
				s.log.Warn("collection failed; ranking the family's previous collection", "kind", p.Kind, "err", p.Err)
			}
		}
		closeAt := s.cfg.Window.End.On(day)
		final = ind.Err == nil && con.Err == nil && !ind.CollectedAt.Before(closeAt) && !con.CollectedAt.Before(closeAt)
		return Build(ind.SectorSnapshot, con.SectorSnapshot, s.Source(), day, now), final, nil
	}
	if r, err := s.store.DailyRanking(ctx, day); err == nil {
		return r, true, nil
	} else if !board.IsNotFound(err) {
		return nil, false, err
	}
	ind, err := s.past(ctx, market.Industry, day)
	if err != nil {
		return nil, false, err
	}
	con, err := s.past(ctx, market.Concept, day)
	if err != nil {
		return nil, false, err
	}
	return Build(ind.SectorSnapshot, con.SectorSnapshot, s.Source(), day, now), true, nil
}

// past is the collection to rank for an earlier day.
func (s *Service) past(ctx context.Context, kind market.SectorKind, day market.Day) (board.Stored, error) {
	source := board.Resolve(s.cfg.Mode, kind)
	st, err := s.col.Latest(ctx, kind, source, day)
	if err == nil || !board.IsNotFound(err) {
		return st, err
	}
	st, err = s.col.History(ctx, kind, source, s.cfg.Window.End.On(day))
	if board.IsNotFound(err) {
		return board.Stored{}, market.Errorf(market.KindNotFound, "no %s data stored for %v", kind, day)
	}
	return st, err
}
