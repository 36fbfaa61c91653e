// Package movement finds sector movements (异动): it records the first time
// each sector reaches a movement threshold on a trading day, answers the
// sector queries of spec 4.4 with those times, and analyses the market's
// turnover against the previous session.
package movement

import (
	"context"
	"math"
	"sync"
	"time"

	"mdqs/board"
	"mdqs/db"
	"mdqs/market"
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

// Detector turns each live collection into movement events.
type Detector struct {
	th    Thresholds
	store *db.Store
	clock market.Clock

	mu      sync.Mutex
	history map[stream][]db.PctPoint // recent collections, for speed
}

type stream struct {
	kind   market.SectorKind
	source string
	day    market.Day
}

func NewDetector(th Thresholds, store *db.Store, clock market.Clock) *Detector {
	return &Detector{th: th, store: store, clock: clock, history: map[stream][]db.PctPoint{}}
}

// Observe is a board.Observer: it records the events a collection shows.
// Only collections of today count; replays of past days are not live.
func (d *Detector) Observe(ctx context.Context, st board.Stored) error {
	day := st.Day()
	if day != market.DayOf(d.clock.Now()) {
		return nil
	}
	key := stream{st.Kind, st.Source, day}
	past, err := d.recent(ctx, key, st.At)
	if err != nil {
		return err
	}
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
	if _, err := d.store.InsertEvents(ctx, events); err != nil {
		return err
	}
	d.remember(key, st)
	return nil
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
	p := db.PctPoint{At: st.At, Pct: make(map[string]float64, len(st.Sectors))}
	for _, x := range st.Sectors {
		p.Pct[x.Name] = x.Pct
	}
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
