package db

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"mdqs/internal/market"
)

// InsertEvents records movement events in one transaction. An event whose
// (day, kind, source, board, trigger) is already recorded is ignored: the
// first crossing keeps its time. New events get times that are unique and
// increasing within the day: their own time, or one millisecond after the
// day's latest, whichever is later. It returns the events it inserted.
func (s *Store) InsertEvents(ctx context.Context, events []market.MovementEvent) ([]market.MovementEvent, error) {
	if len(events) == 0 {
		return nil, nil
	}
	var added []market.MovementEvent
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		added, err = insertEvents(ctx, tx, events[0].Day, events)
		return err
	})
	return added, err
}

// insertEvents inserts a day's events in order, each event_ms after the
// day's last, skipping those whose key is already there.
func insertEvents(ctx context.Context, tx *sql.Tx, day market.Day, events []market.MovementEvent) ([]market.MovementEvent, error) {
	var added []market.MovementEvent
	if len(events) == 0 {
		return nil, nil
	}
	var last sql.NullInt64
	if err := tx.QueryRowContext(ctx, `SELECT max(event_ms) FROM movement_events WHERE trade_day = ?`, int(day)).Scan(&last); err != nil {
		return nil, classify(err, "read last event")
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO movement_events(trade_day, kind, source, board_code, board_name,
		trigger, direction, pct, main_net, delta, event_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT DO NOTHING RETURNING id`)
	if err != nil {
		return nil, classify(err, "prepare event insert")
	}
	defer stmt.Close()
	for _, e := range events {
		ms := e.At.UnixMilli()
		if last.Valid && ms <= last.Int64 {
			ms = last.Int64 + 1
		}
		err := stmt.QueryRowContext(ctx, int(e.Day), string(e.Kind), e.Source, e.BoardCode, e.BoardName, e.Trigger, e.Direction,
			nullFloat(e.Pct), nullFloat(e.MainNet), nullFloat(e.Delta), ms).Scan(&e.ID)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			continue // recorded before: the first crossing keeps its time
		case err != nil:
			return nil, classify(err, "insert event")
		}
		e.At = time.UnixMilli(ms).In(market.Shanghai())
		added = append(added, e)
		last = sql.NullInt64{Int64: ms, Valid: true}
	}
	return added, nil
}

// TimelineThrough is how far a day's timeline of a replayable source is
// complete (see RecordTimeline); ok is false when none was recorded.
func (s *Store) TimelineThrough(ctx context.Context, day market.Day, source string) (through time.Time, ok bool, err error) {
	var ms int64
	err = s.r.QueryRowContext(ctx, `SELECT through_ms FROM movement_timelines WHERE trade_day = ? AND source = ?`, int(day), source).Scan(&ms)
	switch {
	case err == sql.ErrNoRows:
		return time.Time{}, false, nil
	case err != nil:
		return time.Time{}, false, classify(err, "read timeline")
	}
	return time.UnixMilli(ms).In(market.Shanghai()), true, nil
}

// RecordTimeline adds a replayed stretch of a day's timeline: its events,
// in time order, and how far the day is now complete, in one transaction.
// fresh first drops the day's events of the source recorded before any
// replay (an older binary dated a late start's events at its first
// collection).
func (s *Store) RecordTimeline(ctx context.Context, day market.Day, source string, events []market.MovementEvent, through time.Time, fresh bool) ([]market.MovementEvent, error) {
	var added []market.MovementEvent
	err := s.write(ctx, func(tx *sql.Tx) error {
		if fresh {
			if _, err := tx.ExecContext(ctx, `DELETE FROM movement_events WHERE trade_day = ? AND source = ?`, int(day), source); err != nil {
				return classify(err, "reset timeline")
			}
		}
		var err error
		if added, err = insertEvents(ctx, tx, day, events); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO movement_timelines(trade_day, source, through_ms) VALUES (?, ?, ?)
			ON CONFLICT (trade_day, source) DO UPDATE SET through_ms = excluded.through_ms
			WHERE excluded.through_ms > movement_timelines.through_ms`,
			int(day), source, through.UnixMilli())
		return classify(err, "record timeline")
	})
	return added, err
}

// EventFilter selects movement events of one day.
type EventFilter struct {
	Day     market.Day
	Kind    market.SectorKind // "" for both families
	Source  string
	AfterMS int64 // only events strictly after this time (0: all)
	Limit   int   // 0: no limit
}

// Events lists a day's movement events in time order.
func (s *Store) Events(ctx context.Context, f EventFilter) ([]market.MovementEvent, error) {
	q := `SELECT id, trade_day, kind, source, board_code, board_name, trigger, direction, pct, main_net, delta, event_ms
		FROM movement_events WHERE trade_day = ? AND source = ? AND event_ms > ?`
	args := []any{int(f.Day), f.Source, f.AfterMS}
	if f.Kind != "" {
		q += ` AND kind = ?`
		args = append(args, string(f.Kind))
	}
	q += ` ORDER BY event_ms, id`
	if f.Limit > 0 {
		q += ` LIMIT ?`
		args = append(args, f.Limit)
	}
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, classify(err, "read events")
	}
	defer rows.Close()
	out := []market.MovementEvent{}
	for rows.Next() {
		var e market.MovementEvent
		var day int
		var kind string
		var pct, mainNet, delta sql.NullFloat64
		var ms int64
		if err := rows.Scan(&e.ID, &day, &kind, &e.Source, &e.BoardCode, &e.BoardName, &e.Trigger, &e.Direction,
			&pct, &mainNet, &delta, &ms); err != nil {
			return nil, classify(err, "read events")
		}
		e.Day, e.Kind = market.Day(day), market.SectorKind(kind)
		e.Pct, e.MainNet, e.Delta = floatOrNaN(pct), floatOrNaN(mainNet), floatOrNaN(delta)
		e.At = time.UnixMilli(ms).In(market.Shanghai())
		out = append(out, e)
	}
	return out, classify(rows.Err(), "read events")
}

// FirstEventTimes maps each board of a family to the time it first moved
// on a day.
func (s *Store) FirstEventTimes(ctx context.Context, day market.Day, kind market.SectorKind, source string) (map[string]time.Time, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT board_name, min(event_ms) FROM movement_events
		WHERE trade_day = ? AND kind = ? AND source = ? GROUP BY board_name`, int(day), string(kind), source)
	if err != nil {
		return nil, classify(err, "read event times")
	}
	defer rows.Close()
	out := map[string]time.Time{}
	for rows.Next() {
		var name string
		var ms int64
		if err := rows.Scan(&name, &ms); err != nil {
			return nil, classify(err, "read event times")
		}
		out[name] = time.UnixMilli(ms).In(market.Shanghai())
	}
	return out, classify(rows.Err(), "read event times")
}

// PctPoint is every sector's change at one collection.
type PctPoint struct {
	At  time.Time
	Pct map[string]float64 // by sector name
}

// PctHistory lists a family's collections of a day taken at or after since,
// oldest first, with each sector's change.
func (s *Store) PctHistory(ctx context.Context, kind market.SectorKind, source string, day market.Day, since time.Time) ([]PctPoint, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT r.as_of, x.name, x.pct FROM snapshot_runs r JOIN sector_snapshots x ON x.run_id = r.id
		WHERE r.kind = ? AND r.source = ? AND r.trade_day = ? AND r.as_of >= ? ORDER BY r.as_of, r.id`,
		string(kind), source, int(day), since.UnixMilli())
	if err != nil {
		return nil, classify(err, "read pct history")
	}
	defer rows.Close()
	var out []PctPoint
	for rows.Next() {
		var at int64
		var name string
		var pct sql.NullFloat64
		if err := rows.Scan(&at, &name, &pct); err != nil {
			return nil, classify(err, "read pct history")
		}
		if len(out) == 0 || out[len(out)-1].At.UnixMilli() != at {
			out = append(out, PctPoint{At: time.UnixMilli(at).In(market.Shanghai()), Pct: map[string]float64{}})
		}
		out[len(out)-1].Pct[name] = floatOrNaN(pct)
	}
	return out, classify(rows.Err(), "read pct history")
}

// SnapshotAsOf is a family's last collection of a day whose data is as of t
// or earlier (the previous session at the same minute, say). None is a
// not-found error.
func (s *Store) SnapshotAsOf(ctx context.Context, kind market.SectorKind, source string, day market.Day, t time.Time) (market.SectorSnapshot, error) {
	var id, asOf int64
	err := s.r.QueryRowContext(ctx, `SELECT id, as_of FROM snapshot_runs WHERE kind = ? AND source = ? AND trade_day = ? AND as_of <= ?
		ORDER BY as_of DESC, id DESC LIMIT 1`, string(kind), source, int(day), t.UnixMilli()).Scan(&id, &asOf)
	if err == sql.ErrNoRows {
		return market.SectorSnapshot{}, market.Errorf(market.KindNotFound, "no %s snapshot from %s as of %v", kind, source, market.FormatTime(t))
	}
	if err != nil {
		return market.SectorSnapshot{}, classify(err, "find snapshot")
	}
	return s.readSnapshot(ctx, id, kind, source, asOf)
}
