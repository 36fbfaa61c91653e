// Package relay carries a team's stream events through Redis to every
// instance, so a client sees the same events with the same ids whichever
// instance it streams from, and resumes on any of them with Last-Event-ID.
//
// The leader's events (rankings, movements, quotes, alerts: its jobs
// publish them) are appended to the events stream of sharedstate with the
// id its hub would give them; every instance, the leader included, reads
// the stream from the last entry it saw and delivers each entry to its hub
// with that id. A follower's own publishes are dropped: the leader
// publishes the same events. Without Redis there is no relay and the hub
// publishes locally, as a lone server always has.
//
// When Redis is away the leader publishes to its own hub (its streams go
// on, with ids of its own), and a follower's streams get nothing; when the
// relay reads again, a follower that missed entries (the stream no longer
// reaches back to its last, or the leader published locally meanwhile)
// sends its streams a resync. Health and metrics show the relay's state.
package relay

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"mdqs/internal/market"
	"mdqs/internal/sharedstate"
	"mdqs/internal/stream"
)

// Config tunes a Relay; Instance and Leader are required.
type Config struct {
	Instance string      // server.instance: who published an entry
	Leader   func() bool // whether this instance publishes
	Log      *slog.Logger
	// Block is how long one read waits for entries (default 1 s): how
	// soon a stop is noticed, not a delay of events, which end the wait.
	Block time.Duration
	// Retry is the wait after a failed read (default 500 ms).
	Retry time.Duration
	// WantTTL is how long an instance's wants stand in Redis unless
	// said again (default 3 s; said every WantTTL/3).
	WantTTL time.Duration
	// Recent is how many entries an instance reads into its rings at
	// start (default 1,000).
	Recent int
}

func (c *Config) defaults() {
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	if c.Block <= 0 {
		c.Block = time.Second
	}
	if c.Retry <= 0 {
		c.Retry = 500 * time.Millisecond
	}
	if c.WantTTL <= 0 {
		c.WantTTL = 3 * time.Second
	}
	if c.Recent <= 0 {
		c.Recent = 1000
	}
}

// Relay is one instance's end of the relay.
type Relay struct {
	hub *stream.Hub
	rc  *sharedstate.Client
	cfg Config

	cancel context.CancelFunc
	wg     sync.WaitGroup

	sendMu sync.Mutex // one append at a time, in the publishers' order
	gap    bool       // sendMu: events went to this hub alone since the last append

	down      atomic.Bool
	last      atomic.Int64 // the last entry delivered
	published atomic.Uint64
	local     atomic.Uint64
	dropped   atomic.Uint64
	delivered atomic.Uint64
	gaps      atomic.Uint64
	failures  atomic.Uint64
	errMu     sync.Mutex
	lastErr   string
	wantMu    sync.Mutex
	wantedAt  time.Time
	wanted    map[market.Code]bool // the team's, as of wantedAt
}

// New makes the relay of hub and sets it as the hub's relay: from now on
// the hub's publishes go through it.
func New(hub *stream.Hub, rc *sharedstate.Client, cfg Config) *Relay {
	cfg.defaults()
	r := &Relay{hub: hub, rc: rc, cfg: cfg}
	hub.SetRelay(r)
	return r
}

// Start reads the stream's recent entries into the hub's rings (before
// the instance serves streams), then reads on in the background until
// Stop. A Redis that does not answer now is not fatal: the reads retry.
func (r *Relay) Start(ctx context.Context) {
	r.last.Store(-1) // unknown until the stream is read
	entries, err := r.rc.RecentEvents(ctx, r.cfg.Recent)
	if err != nil {
		r.fail(ctx, err)
	} else {
		var events []stream.Event
		var last int64
		for _, e := range entries {
			if ev, ok := decode(e); ok {
				events = append(events, ev.Event)
			}
			last = e.ID
		}
		r.hub.Restore(events, last)
		r.last.Store(last)
		r.cfg.Log.Info("stream relay: read the recent events from redis", "events", len(events), "last", last)
	}
	ctx, r.cancel = context.WithCancel(context.WithoutCancel(ctx))
	r.wg.Add(2)
	go func() { defer r.wg.Done(); r.read(ctx) }()
	go func() { defer r.wg.Done(); r.want(ctx) }()
}

// Stop ends the reads and withdraws this instance's wants.
func (r *Relay) Stop() {
	if r.cancel == nil {
		return
	}
	r.cancel()
	r.wg.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	r.rc.Unwant(ctx, r.cfg.Instance)
}

// Send is the hub's publish: the leader appends ev to the stream (its own
// hub gets it back with every other instance's), or, while Redis is away,
// publishes it to its own hub alone; a follower drops it.
func (r *Relay) Send(ev stream.Event) {
	if !r.cfg.Leader() {
		r.dropped.Add(1)
		return
	}
	if ev.Topic == stream.Quote && !r.quoteWanted(ev.Codes) {
		return // no stream of the team lists the code
	}
	r.sendMu.Lock()
	defer r.sendMu.Unlock()
	if !r.down.Load() {
		fields := encode(ev, r.cfg.Instance, r.gap)
		_, err := r.rc.AppendEvent(context.Background(), r.hub.Next(), fields)
		if err == nil {
			r.gap = false
			r.published.Add(1)
			return
		}
		r.fail(context.Background(), err)
	}
	r.gap = true
	r.local.Add(1)
	r.hub.PublishLocal(ev)
}

// read delivers the stream's entries to the hub, in order, until ctx ends.
func (r *Relay) read(ctx context.Context) {
	for ctx.Err() == nil {
		if r.last.Load() < 0 && !r.skipToEnd(ctx) {
			continue
		}
		entries, err := r.rc.ReadEvents(ctx, r.last.Load(), r.cfg.Block, 512)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			r.fail(ctx, err)
			select {
			case <-ctx.Done():
			case <-time.After(r.cfg.Retry):
			}
			continue
		}
		r.up()
		for _, e := range entries {
			r.deliver(e)
		}
	}
}

// skipToEnd starts the reads at the stream's last entry when Start could
// not read it: the entries before it are old news to streams that opened
// meanwhile, which get a resync instead (what they missed is unknown).
func (r *Relay) skipToEnd(ctx context.Context) bool {
	entries, err := r.rc.RecentEvents(ctx, 1)
	if err != nil {
		if ctx.Err() == nil {
			r.fail(ctx, err)
			select {
			case <-ctx.Done():
			case <-time.After(r.cfg.Retry):
			}
		}
		return false
	}
	var last int64
	if len(entries) > 0 {
		last = entries[0].ID
	}
	r.last.Store(last)
	r.gaps.Add(1)
	r.hub.Gap("the stream relay could not read Redis when this instance started: refetch", last+1)
	return true
}

func (r *Relay) deliver(e sharedstate.Entry) {
	ev, ok := decode(e)
	last := r.last.Swap(e.ID)
	switch {
	case e.Prev != last && !(ev.from == r.cfg.Instance && ev.gap):
		// (The leader's own entry after local-only events: its streams
		// had those.)
		r.gaps.Add(1)
		r.hub.Gap("events were lost while the stream relay was away from Redis: refetch, or reconnect with Last-Event-ID", e.ID)
		r.cfg.Log.Warn("stream relay: entries were lost; the streams were sent a resync", "last", last, "next_after", e.Prev)
	case ev.gap && ev.from != r.cfg.Instance:
		r.gaps.Add(1)
		r.hub.Gap("the leader's events did not reach Redis for a while: refetch", e.ID)
		r.cfg.Log.Warn("stream relay: the leader published without Redis for a while; the streams were sent a resync", "leader", ev.from)
	}
	if ok {
		r.delivered.Add(1)
		r.hub.Deliver(ev.Event)
	}
}

func (r *Relay) fail(ctx context.Context, err error) {
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return
	}
	r.failures.Add(1)
	r.errMu.Lock()
	r.lastErr = err.Error()
	r.errMu.Unlock()
	if !r.down.Swap(true) {
		r.cfg.Log.Warn("stream relay: redis unreachable; the leader's events reach the leader's own streams only until it answers", "err", err)
	}
}

func (r *Relay) up() {
	if r.down.Swap(false) {
		r.cfg.Log.Info("stream relay: redis answers again; events are relayed")
	}
}

// Status is the relay's state for health and metrics.
type Status struct {
	Up bool `json:"up"`
	// Last is the id of the last entry delivered to this instance's hub.
	Last int64 `json:"last_id"`
	// Published counts the events this instance appended to the stream
	// as the leader; Local those it published to its own streams alone
	// while Redis was away; Dropped a follower's own publishes, left to
	// the leader.
	Published uint64 `json:"published"`
	Local     uint64 `json:"local_only"`
	Dropped   uint64 `json:"dropped"`
	// Delivered counts the entries read back and delivered to this
	// instance's streams; Gaps the resyncs sent because entries were lost.
	Delivered uint64 `json:"delivered"`
	Gaps      uint64 `json:"gaps"`
	Failures  uint64 `json:"failures"`
	LastError string `json:"last_error,omitempty"`
	Degraded  string `json:"degraded,omitempty"`
}

func (r *Relay) Status() Status {
	r.errMu.Lock()
	defer r.errMu.Unlock()
	st := Status{Up: !r.down.Load(), Last: r.last.Load(), Published: r.published.Load(), Local: r.local.Load(),
		Dropped: r.dropped.Load(), Delivered: r.delivered.Load(), Gaps: r.gaps.Load(), Failures: r.failures.Load(), LastError: r.lastErr}
	if !st.Up {
		st.Degraded = "the leader's stream events reach the leader's own streams only; a follower's streams get them, or a resync, when Redis answers again"
	}
	return st
}
