package db

import (
	"context"
	"database/sql"
	"math"
	"time"

	"mdqs/internal/market"
)

// SaveSnapshot stores one collection and its sectors in one transaction.
// Its trade day is the day of the data's own time (snap.At).
func (s *Store) SaveSnapshot(ctx context.Context, snap market.SectorSnapshot, collectedAt time.Time) (int64, error) {
	var id int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		id, err = insertSnapshot(ctx, tx, snap, collectedAt)
		return err
	})
	return id, err
}

// SaveCollection is SaveSnapshot for a collection that may repeat the
// latest one stored: when the latest collection of the family, source and
// trade day has the same data time and the same rows, nothing is added,
// and that collection's collected_at moves on to collectedAt (the source
// confirmed it then). A source whose data has not moved, or that is stuck
// on a past session, then costs one row update per collection instead of
// a whole collection. added says whether a collection was added; id is the
// stored one either way.
func (s *Store) SaveCollection(ctx context.Context, snap market.SectorSnapshot, collectedAt time.Time) (id int64, added bool, err error) {
	err = s.write(ctx, func(tx *sql.Tx) error {
		var same bool
		var err error
		if id, same, err = sameAsLatest(ctx, tx, snap); err != nil || !same {
			if err == nil {
				id, err = insertSnapshot(ctx, tx, snap, collectedAt)
				added = err == nil
			}
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE snapshot_runs SET collected_at = ? WHERE id = ? AND collected_at < ?`,
			collectedAt.UnixMilli(), id, collectedAt.UnixMilli()); err != nil {
			return classify(err, "update snapshot run")
		}
		return nil
	})
	return id, added, err
}

// sameAsLatest reports whether the latest stored collection of snap's
// family, source and trade day holds snap's data: the same data time and
// the same rows (a name twice in snap counts once, its last row, as
// stored). id is that collection.
func sameAsLatest(ctx context.Context, tx *sql.Tx, snap market.SectorSnapshot) (id int64, same bool, err error) {
	var asOf, count int64
	err = tx.QueryRowContext(ctx, `SELECT id, as_of, row_count FROM snapshot_runs WHERE kind = ? AND source = ? AND trade_day = ?
		ORDER BY collected_at DESC, id DESC LIMIT 1`, string(snap.Kind), snap.Source, int(market.DayOf(snap.At))).Scan(&id, &asOf, &count)
	if err == sql.ErrNoRows {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, classify(err, "find the latest snapshot")
	}
	if asOf != snap.At.UnixMilli() || count != int64(len(snap.Sectors)) {
		return id, false, nil
	}
	want := make(map[string]market.Sector, len(snap.Sectors))
	for _, x := range snap.Sectors {
		want[x.Name] = x
	}
	stored, err := readSectors(ctx, tx, id)
	if err != nil {
		return 0, false, err
	}
	if len(stored) != len(want) {
		return id, false, nil
	}
	for _, x := range stored {
		if w, ok := want[x.Name]; !ok || !sameSector(x, w) {
			return id, false, nil
		}
	}
	return id, true, nil
}

// sameSector compares a stored row with a collected one as the store
// keeps it (an unknown or infinite number is NULL).
func sameSector(stored, x market.Sector) bool {
	num := func(a, b float64) bool {
		a, b = floatOrNaN(nullFloat(a)), floatOrNaN(nullFloat(b))
		return a == b || math.IsNaN(a) && math.IsNaN(b)
	}
	return stored.Name == x.Name && stored.Code == x.Code && num(stored.Price, x.Price) && num(stored.Pct, x.Pct) &&
		num(stored.Amount, x.Amount) && num(stored.Turnover, x.Turnover) && num(stored.MainNet, x.MainNet) &&
		num(stored.MainNetRatio, x.MainNetRatio) && stored.Up == x.Up && stored.Down == x.Down && stored.Flat == x.Flat &&
		stored.LeaderCode == x.LeaderCode && stored.LeaderName == x.LeaderName && num(stored.LeaderPct, x.LeaderPct)
}

// insertSnapshot adds one collection and its sectors.
func insertSnapshot(ctx context.Context, tx *sql.Tx, snap market.SectorSnapshot, collectedAt time.Time) (int64, error) {
	var id int64
	if err := tx.QueryRowContext(ctx, `INSERT INTO snapshot_runs(kind, source, trade_day, as_of, collected_at, row_count)
		VALUES (?, ?, ?, ?, ?, ?) RETURNING id`, string(snap.Kind), snap.Source, int(market.DayOf(snap.At)), snap.At.UnixMilli(),
		collectedAt.UnixMilli(), len(snap.Sectors)).Scan(&id); err != nil {
		return 0, classify(err, "insert snapshot run")
	}
	// A name twice in one snapshot keeps its last row.
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO sector_snapshots(run_id, name, code, price, pct, amount,
		turnover, main_net, main_net_ratio, up, down, flat, leader_code, leader_name, leader_pct)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(run_id, name) DO UPDATE SET code = excluded.code,
		price = excluded.price, pct = excluded.pct, amount = excluded.amount, turnover = excluded.turnover,
		main_net = excluded.main_net, main_net_ratio = excluded.main_net_ratio, up = excluded.up, down = excluded.down,
		flat = excluded.flat, leader_code = excluded.leader_code, leader_name = excluded.leader_name,
		leader_pct = excluded.leader_pct`)
	if err != nil {
		return 0, classify(err, "prepare sector insert")
	}
	defer stmt.Close()
	for _, x := range snap.Sectors {
		if _, err := stmt.ExecContext(ctx, id, x.Name, x.Code, nullFloat(x.Price), nullFloat(x.Pct), nullFloat(x.Amount),
			nullFloat(x.Turnover), nullFloat(x.MainNet), nullFloat(x.MainNetRatio), x.Up, x.Down, x.Flat,
			x.LeaderCode, x.LeaderName, nullFloat(x.LeaderPct)); err != nil {
			return 0, classify(err, "insert sector")
		}
	}
	return id, nil
}

// LatestSnapshot is the last collection of a sector family from a source
// for a trade day, and when it was collected; day 0 means the last one of
// any day. None is a not-found error.
func (s *Store) LatestSnapshot(ctx context.Context, kind market.SectorKind, source string, day market.Day) (market.SectorSnapshot, time.Time, error) {
	q := `SELECT id, as_of, collected_at FROM snapshot_runs WHERE kind = ? AND source = ? AND trade_day = ?
		ORDER BY collected_at DESC, id DESC LIMIT 1`
	args := []any{string(kind), source, int(day)}
	if day == 0 {
		q = `SELECT id, as_of, collected_at FROM snapshot_runs WHERE kind = ? AND source = ?
			ORDER BY trade_day DESC, collected_at DESC, id DESC LIMIT 1`
		args = args[:2]
	}
	var id, asOf, collected int64
	if err := s.r.QueryRowContext(ctx, q, args...).Scan(&id, &asOf, &collected); err != nil {
		if err == sql.ErrNoRows {
			return market.SectorSnapshot{}, time.Time{}, market.Errorf(market.KindNotFound, "no %s snapshot from %s for %v", kind, source, day)
		}
		return market.SectorSnapshot{}, time.Time{}, classify(err, "find snapshot")
	}
	snap, err := s.readSnapshot(ctx, id, kind, source, asOf)
	return snap, time.UnixMilli(collected), err
}

// LastCollected is when the newest collection of a family from source for
// day was taken; ok false when there is none. It reads one row, for the
// scheduler's question "was this just collected (by another instance)?".
func (s *Store) LastCollected(ctx context.Context, kind market.SectorKind, source string, day market.Day) (at time.Time, ok bool, err error) {
	var collected int64
	err = s.r.QueryRowContext(ctx, `SELECT collected_at FROM snapshot_runs WHERE kind = ? AND source = ? AND trade_day = ?
		ORDER BY collected_at DESC LIMIT 1`, string(kind), source, int(day)).Scan(&collected)
	if err == sql.ErrNoRows {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, classify(err, "find the last collection")
	}
	return time.UnixMilli(collected), true, nil
}

// Collections counts the stored collections of a family from a source
// for a trade day (0: every day).
func (s *Store) Collections(ctx context.Context, kind market.SectorKind, source string, day market.Day) (int, error) {
	q, args := `SELECT count(*) FROM snapshot_runs WHERE kind = ? AND source = ? AND trade_day = ?`, []any{string(kind), source, int(day)}
	if day == 0 {
		q, args = `SELECT count(*) FROM snapshot_runs WHERE kind = ? AND source = ?`, args[:2]
	}
	var n int
	if err := s.r.QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
		return 0, classify(err, "count snapshots")
	}
	return n, nil
}

func (s *Store) readSnapshot(ctx context.Context, id int64, kind market.SectorKind, source string, asOf int64) (market.SectorSnapshot, error) {
	snap := market.SectorSnapshot{Kind: kind, Source: source, At: time.UnixMilli(asOf).In(market.Shanghai())}
	var err error
	snap.Sectors, err = readSectors(ctx, s.r, id)
	return snap, err
}

// rowsQuerier is what readSectors reads through: the reader pool, or a
// write transaction.
type rowsQuerier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// readSectors is the rows of one stored collection.
func readSectors(ctx context.Context, q rowsQuerier, id int64) ([]market.Sector, error) {
	rows, err := q.QueryContext(ctx, `SELECT name, code, price, pct, amount, turnover, main_net, main_net_ratio,
		up, down, flat, leader_code, leader_name, leader_pct FROM sector_snapshots WHERE run_id = ?`, id)
	if err != nil {
		return nil, classify(err, "read snapshot")
	}
	defer rows.Close()
	var out []market.Sector
	for rows.Next() {
		var x market.Sector
		var price, pct, amount, turnover, mainNet, ratio, leaderPct sql.NullFloat64
		if err := rows.Scan(&x.Name, &x.Code, &price, &pct, &amount, &turnover, &mainNet, &ratio,
			&x.Up, &x.Down, &x.Flat, &x.LeaderCode, &x.LeaderName, &leaderPct); err != nil {
			return nil, classify(err, "read snapshot")
		}
		x.Price, x.Pct, x.Amount, x.Turnover = floatOrNaN(price), floatOrNaN(pct), floatOrNaN(amount), floatOrNaN(turnover)
		x.MainNet, x.MainNetRatio, x.LeaderPct = floatOrNaN(mainNet), floatOrNaN(ratio), floatOrNaN(leaderPct)
		out = append(out, x)
	}
	return out, classify(rows.Err(), "read snapshot")
}

// PruneSnapshots deletes the collections of days before `before`, except
// the last collection of each (kind, source, day), which past-day queries
// still read. It reports how many collections it removed.
func (s *Store) PruneSnapshots(ctx context.Context, before market.Day) (int64, error) {
	var n int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM snapshot_runs WHERE trade_day < ? AND id NOT IN (
			SELECT (SELECT id FROM snapshot_runs r2 WHERE r2.kind = r.kind AND r2.source = r.source AND r2.trade_day = r.trade_day
				ORDER BY r2.collected_at DESC, r2.id DESC LIMIT 1)
			FROM snapshot_runs r WHERE r.trade_day < ? GROUP BY r.kind, r.source, r.trade_day)`, int(before), int(before))
		if err != nil {
			return classify(err, "prune snapshots")
		}
		n, _ = res.RowsAffected()
		return nil
	})
	return n, err
}
