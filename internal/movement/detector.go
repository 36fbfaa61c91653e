// Package movement finds sector movements (异动): it records the first time
// each sector reaches a movement threshold on a trading day, answers the
// sector queries of spec 4.4 with those times, and analyses the market's
// turnover against the previous session.
package movement

import (
	"context"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"mdqs/db"
	"mdqs/internal/board"
	"mdqs/internal/market"
)

// Thresholds define a movement. A sector moves when
//   - its change reaches +Pct or -Pct (triggers pct_up, pct_down), or
//   - its change moves by Speed or more within SpeedWindow (surge, plunge),
//     measured against the oldest collection of the day inside the window.
type Thresholds struct {
	Pct         float64
	Speed       float64
	SpeedWindow time.Duration
}

// Detector turns each live collection into movement events, and makes
// the timeline of a source that can replay its sessions (the demo market)
// from the replay, minute by minute, whenever it was started.
type Detector struct {
	th       Thresholds
	store    EventStore
	clock    market.Clock
	sessions Sessions

	mu      sync.Mutex
	history map[stream][]db.PctPoint // recent collections, for speed

	// replay serialises timeline replays, so their events go in in time
	// order: the events endpoint's cursor relies on it.
	replay sync.Mutex
	// emit makes the notified order the stored order: an insert and its
	// notification happen together, so a stream that skips what is at or
	// before its cursor never skips an event it has not seen.
	emit     sync.Mutex
	onEvents atomic.Pointer[func([]market.MovementEvent)]
}

// EventStore is what a Detector reads and writes (a *db.Store).
type EventStore interface {
	InsertEvents(ctx context.Context, events []market.MovementEvent) ([]market.MovementEvent, error)
	TimelineThrough(ctx context.Context, day market.Day, source string) (through time.Time, ok bool, err error)
	RecordTimeline(ctx context.Context, day market.Day, source string, events []market.MovementEvent, through time.Time, fresh bool) ([]market.MovementEvent, error)
	PctHistory(ctx context.Context, kind market.SectorKind, source string, day market.Day, since time.Time) ([]db.PctPoint, error)
}

// NotRecorded is Complete's error when the replay worked but its events
// could not be written (a database opened read-only, a full disk): Events
// are what it would have recorded, for a read to answer with anyway.
type NotRecorded struct {
	Events []market.MovementEvent
	Err    error
}

func (e *NotRecorded) Error() string { return e.Err.Error() }
func (e *NotRecorded) Unwrap() error { return e.Err }

// OnEvents has fn called with the events each insert adds, in the order
// they were stored, after they are committed. fn must not block.
func (d *Detector) OnEvents(fn func([]market.MovementEvent)) { d.onEvents.Store(&fn) }

// insert runs a store write of events and notifies those it added.
func (d *Detector) insert(write func() (added []market.MovementEvent, err error)) error {
	d.emit.Lock()
	defer d.emit.Unlock()
	added, err := write()
	if fn := d.onEvents.Load(); fn != nil && len(added) > 0 {
		(*fn)(added)
	}
	return err
}

// Sessions replays a source's trading day minute by minute, both sector
// families; ok is false for a source that cannot (board.Collector).
type Sessions interface {
	Session(ctx context.Context, source string, day market.Day, until time.Time) (industry, concept []board.Stored, ok bool, err error)
}

type stream struct {
	kind   market.SectorKind
	source string
	day    market.Day
}

// NewDetector detects with th. sessions may be nil: every source is then
// detected from its live collections only.
func NewDetector(th Thresholds, store EventStore, clock market.Clock, sessions Sessions) *Detector {
	return &Detector{th: th, store: store, clock: clock, sessions: sessions, history: map[stream][]db.PctPoint{}}
}

// Observe is a board.Observer: it records the events a collection shows.
// Only collections of today count; replays of past days are not live. For
// a source that can replay, the collection only moves the replayed
// timeline on to its instant: a server started at 10:30 or after the close
// still dates each event at the minute its sector crossed.
func (d *Detector) Observe(ctx context.Context, st board.Stored) error {
	day := st.Day()
	if day != market.DayOf(d.clock.Now()) {
		return nil
	}
	if replayed, err := d.Complete(ctx, st.Source, day, st.At); replayed || err != nil {
		return err
	}
	key := stream{st.Kind, st.Source, day}
	past, err := d.recent(ctx, key, st.At)
	if err != nil {
		return err
	}
	events := d.events(st, past)
	if err := d.insert(func() ([]market.MovementEvent, error) { return d.store.InsertEvents(ctx, events) }); err != nil {
		return err
	}
	d.remember(key, st)
	return nil
}

// events are the movements one collection shows, given the family's
// earlier collections inside the speed window (oldest first).
func (d *Detector) events(st board.Stored, past []db.PctPoint) []market.MovementEvent {
	day := st.Day()
	var events []market.MovementEvent
	for _, x := range st.Sectors {
		if !market.IsKnown(x.Pct) {
			continue
		}
		add := func(trigger, direction string, delta float64) {
			events = append(events, market.MovementEvent{Day: day, Kind: st.Kind, Source: st.Source, BoardCode: x.Code,
				BoardName: x.Name, Trigger: trigger, Direction: direction, Pct: x.Pct, MainNet: x.MainNet, Delta: delta, At: st.At})
		}
		switch {
		case x.Pct >= d.th.Pct:
			add(market.TriggerPctUp, "up", math.NaN())
		case x.Pct <= -d.th.Pct:
			add(market.TriggerPctDown, "down", math.NaN())
		}
		if then, ok := oldest(past, x.Name); ok {
			switch delta := x.Pct - then; {
			case delta >= d.th.Speed:
				add(market.TriggerSurge, "up", delta)
			case delta <= -d.th.Speed:
				add(market.TriggerPlunge, "down", delta)
			}
		}
	}
	return events
}

// Complete makes a day's timeline of a source that can replay its session
// complete through until: the minutes after what is recorded are replayed
// (both families, as a collector polling every minute would have seen
// them) and their first crossings recorded at their own minutes. A past
// day is replayed once. replayed is false for a source that cannot replay.
func (d *Detector) Complete(ctx context.Context, source string, day market.Day, until time.Time) (replayed bool, err error) {
	if d.sessions == nil {
		return false, nil
	}
	// Replayed instants are whole minutes: within one nothing new can
	// appear, so a day is replayed at most once a minute.
	until = until.Truncate(time.Minute)
	d.replay.Lock()
	defer d.replay.Unlock()
	through, recorded, err := d.store.TimelineThrough(ctx, day, source)
	if err != nil {
		return false, err
	}
	if recorded && !through.Before(until) {
		return true, nil
	}
	ind, con, ok, err := d.sessions.Session(ctx, source, day, until)
	if !ok || err != nil {
		return ok, err
	}
	if len(ind) == 0 && len(con) == 0 {
		return true, nil // the session had not begun by then
	}
	var events []market.MovementEvent
	for _, snaps := range [][]board.Stored{ind, con} {
		for _, e := range d.scan(snaps) {
			if !recorded || e.At.After(through) {
				events = append(events, e)
			}
		}
	}
	// Both families share the day's cursor: in time order, industries
	// before concepts at one instant. The replay holds every instant up
	// to until, so the day is complete through until (lunch included).
	slices.SortStableFunc(events, func(a, b market.MovementEvent) int { return a.At.Compare(b.At) })
	if err := d.insert(func() ([]market.MovementEvent, error) {
		return d.store.RecordTimeline(ctx, day, source, events, until, !recorded)
	}); err != nil {
		return true, &NotRecorded{Events: events, Err: err}
	}
	return true, nil
}

// scan is the first crossing of each board and trigger over a family's
// collections of one day, in time order.
func (d *Detector) scan(snaps []board.Stored) []market.MovementEvent {
	type first struct{ board, trigger string }
	seen := map[first]bool{}
	var out []market.MovementEvent
	var window []db.PctPoint
	for _, st := range snaps {
		from := st.At.Add(-d.th.SpeedWindow)
		for len(window) > 0 && window[0].At.Before(from) {
			window = window[1:]
		}
		for _, e := range d.events(st, window) {
			if k := (first{e.BoardName, e.Trigger}); !seen[k] {
				seen[k] = true
				out = append(out, e)
			}
		}
		window = append(window, pointOf(st))
	}
	return out
}

// recent is the stream's collections inside the speed window before at,
// loaded from the store the first time (so a restart keeps its memory).
func (d *Detector) recent(ctx context.Context, key stream, at time.Time) ([]db.PctPoint, error) {
	from := at.Add(-d.th.SpeedWindow)
	d.mu.Lock()
	pts, ok := d.history[key]
	d.mu.Unlock()
	if !ok {
		loaded, err := d.store.PctHistory(ctx, key.kind, key.source, key.day, from)
		if err != nil {
			return nil, err
		}
		pts = loaded
	}
	var in []db.PctPoint
	for _, p := range pts {
		if !p.At.Before(from) && p.At.Before(at) {
			in = append(in, p)
		}
	}
	d.mu.Lock()
	for k := range d.history {
		if k.day != key.day {
			delete(d.history, k) // yesterday's streams
		}
	}
	d.history[key] = in
	d.mu.Unlock()
	return in, nil
}

func (d *Detector) remember(key stream, st board.Stored) {
	p := pointOf(st)
	d.mu.Lock()
	d.history[key] = append(d.history[key], p)
	d.mu.Unlock()
}

// oldest is the sector's change at the oldest collection in the window.
func oldest(pts []db.PctPoint, name string) (float64, bool) {
	for _, p := range pts {
		if v, ok := p.Pct[name]; ok && market.IsKnown(v) {
			return v, true
		}
	}
	return 0, false
}

// pointOf is a collection's changes by sector name.
func pointOf(st board.Stored) db.PctPoint {
	p := db.PctPoint{At: st.At, Pct: make(map[string]float64, len(st.Sectors))}
	for _, x := range st.Sectors {
		p.Pct[x.Name] = x.Pct
	}
	return p
}
