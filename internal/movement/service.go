package movement

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"mdqs/db"
	"mdqs/internal/board"
	"mdqs/internal/market"
)

// Service answers the sector queries, movements and the event timeline.
type Service struct {
	col    *board.Collector
	store  *db.Store
	cal    *market.Calendar
	clock  market.Clock
	window market.Window
	det    *Detector // completes replayable timelines; nil: none
}

func NewService(col *board.Collector, store *db.Store, cal *market.Calendar, clock market.Clock, window market.Window, det *Detector) *Service {
	return &Service{col: col, store: store, cal: cal, clock: clock, window: window, det: det}
}

// OnEvents has fn called with each batch of new movement events, in the
// order they were stored (see Detector.OnEvents); without a detector there
// are none.
func (s *Service) OnEvents(fn func([]market.MovementEvent)) {
	if s.det != nil {
		s.det.OnEvents(fn)
	}
}

// RowOf is the timeline's form of a stored event.
func RowOf(e market.MovementEvent) EventRow {
	return EventRow{ID: e.ID, BoardCode: e.BoardCode, BoardName: e.BoardName, Type: string(e.Kind), Source: e.Source,
		Trigger: e.Trigger, Direction: e.Direction, Pct: market.Num(e.Pct), MainNet: market.Num(e.MainNet),
		Delta: market.Num(e.Delta), EventTS: market.FormatTime(e.At), EventMS: e.At.UnixMilli()}
}

// complete makes the day's timeline of a source that can replay its
// sessions complete through now (or the day's close), so that a past day
// has its timeline and today's runs to the last minute, whenever the
// server started. Other sources' timelines are what their collections
// showed.
//
// A store that cannot be written (opened read-only, a full disk) still
// answers: the replayed events it could not record are returned, to be
// answered with beside the recorded ones, and are replayed again by the
// next request.
func (s *Service) complete(ctx context.Context, source string, day market.Day) (unrecorded []market.MovementEvent, err error) {
	if s.det == nil {
		return nil, nil
	}
	until := s.window.End.On(day)
	if now := s.clock.Now(); now.Before(until) {
		until = now
	}
	_, err = s.det.Complete(ctx, source, day, until)
	var nr *NotRecorded
	switch {
	case market.KindOf(err) == market.KindNotFound:
		return nil, nil // a day the source has no session of: no timeline
	case errors.As(err, &nr) && market.KindOf(err) == market.KindUnavailable:
		return nr.Events, nil
	}
	return nil, err
}

// firstTimes adds to moved (board name -> first event time, as stored) the
// first times of the unrecorded events of kind.
func firstTimes(moved map[string]time.Time, unrecorded []market.MovementEvent, kind market.SectorKind) map[string]time.Time {
	for _, e := range unrecorded {
		if t, ok := moved[e.BoardName]; e.Kind == kind && (!ok || e.At.Before(t)) {
			moved[e.BoardName] = e.At
		}
	}
	return moved
}

// Day resolves a query's day parameter (see market.Window.QueryDay).
func (s *Service) Day(day market.Day, given bool) (market.Day, error) {
	return s.window.QueryDay(s.cal, s.clock.Now(), day, given)
}

// Slice is the answer of a sector query.
type Slice struct {
	Day    market.Day
	Kind   market.SectorKind
	Source string
	AsOf   time.Time
	Total  int // sectors in the snapshot before filtering
	Rows   []Row
}

// snapshot is the family's collection to answer from: the current day's
// latest (collected afresh only when due), or a past day's last one (or the
// demo's replay of its close).
func (s *Service) snapshot(ctx context.Context, kind market.SectorKind, source string, day market.Day) (board.Stored, error) {
	if day == s.window.CurrentTradingDay(s.cal, s.clock.Now()) {
		p := s.col.Current(ctx, kind, source, day, true)
		if !p.Found {
			return board.Stored{}, p.Err
		}
		return p.Stored, nil
	}
	st, err := s.col.Latest(ctx, kind, source, day)
	if board.IsNotFound(err) {
		st, err = s.col.History(ctx, kind, source, s.window.End.On(day))
	}
	if board.IsNotFound(err) {
		return board.Stored{}, market.Errorf(market.KindNotFound, "no %s data from %s for %v", kind, source, day)
	}
	return st, err
}

// Sectors answers /boards/industry, /boards/concept and /market/movements:
// the day's latest collection of a family from the source the mode names,
// filtered and sorted, each row with the time its sector first moved.
func (s *Service) Sectors(ctx context.Context, kind market.SectorKind, mode string, day market.Day, f Filter) (Slice, error) {
	source := board.Resolve(mode, kind)
	st, err := s.snapshot(ctx, kind, source, day)
	if err != nil {
		return Slice{}, err
	}
	unrecorded, err := s.complete(ctx, source, day)
	if err != nil {
		return Slice{}, err
	}
	moved, err := s.store.FirstEventTimes(ctx, day, kind, source)
	if err != nil {
		return Slice{}, err
	}
	moved = firstTimes(moved, unrecorded, kind)
	rows, matched := f.apply(kind, st.Sectors, moved)
	if !matched {
		return Slice{}, market.E(market.KindNotFound, "board not found")
	}
	return Slice{Day: day, Kind: kind, Source: source, AsOf: st.At, Total: len(st.Sectors), Rows: rows}, nil
}

// EventRow is one entry of the movement timeline.
type EventRow struct {
	ID        int64      `json:"id"`
	BoardCode string     `json:"board_code"`
	BoardName string     `json:"board_name"`
	Type      string     `json:"type"`
	Source    string     `json:"source"`
	Trigger   string     `json:"trigger"`
	Direction string     `json:"direction"`
	Pct       market.Num `json:"pct"`
	MainNet   market.Num `json:"main_net"`
	Delta     market.Num `json:"delta"`
	EventTS   string     `json:"event_ts"`
	EventMS   int64      `json:"event_ms"`
}

// Timeline is the answer of the events endpoint.
type Timeline struct {
	Day   string     `json:"day"`
	Items []EventRow `json:"items"`
	// NextSince is the cursor to send as since for the events after these:
	// the last item's event_ms, or the request's since when there are none.
	NextSince int64 `json:"next_since"`
}

// Events lists a day's movements in time order after sinceMS, for one
// family or both (kind ""), optionally for the boards a filter's code, name
// and excode select.
func (s *Service) Events(ctx context.Context, kind market.SectorKind, mode string, day market.Day, sinceMS int64, limit int, f Filter) (Timeline, error) {
	kinds := []market.SectorKind{market.Industry, market.Concept}
	if kind != "" {
		kinds = []market.SectorKind{kind}
	}
	var all []market.MovementEvent
	for _, k := range kinds {
		source := board.Resolve(mode, k)
		unrecorded, err := s.complete(ctx, source, day)
		if err != nil {
			return Timeline{}, err
		}
		evs, err := s.store.Events(ctx, db.EventFilter{Day: day, Kind: k, Source: source, AfterMS: sinceMS})
		if err != nil {
			return Timeline{}, err
		}
		all = append(all, evs...)
		for _, e := range unrecorded {
			if e.Kind == k && e.At.UnixMilli() > sinceMS {
				all = append(all, e) // after every recorded one: the replay went on from there
			}
		}
	}
	keep := all[:0]
	for _, e := range all {
		if f.Exclude[strings.ToUpper(e.BoardCode)] || !f.matchesBoard(market.Sector{Code: e.BoardCode, Name: e.BoardName}) {
			continue
		}
		keep = append(keep, e)
	}
	if (f.Code != "" || f.Name != "") && len(keep) == 0 && !s.boardExists(ctx, kinds, mode, day, f) {
		return Timeline{}, market.E(market.KindNotFound, "board not found")
	}
	slices.SortStableFunc(keep, func(a, b market.MovementEvent) int { return a.At.Compare(b.At) })
	if limit > 0 && len(keep) > limit {
		keep = keep[:limit]
	}
	t := Timeline{Day: day.Compact(), Items: make([]EventRow, len(keep)), NextSince: sinceMS}
	for i, e := range keep {
		t.Items[i] = RowOf(e)
		t.NextSince = e.At.UnixMilli()
	}
	return t, nil
}

func (s *Service) boardExists(ctx context.Context, kinds []market.SectorKind, mode string, day market.Day, f Filter) bool {
	for _, k := range kinds {
		st, err := s.snapshot(ctx, k, board.Resolve(mode, k), day)
		if err != nil {
			continue
		}
		if _, matched := f.apply(k, st.Sectors, nil); matched {
			return true
		}
	}
	return false
}
