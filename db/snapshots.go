package db

import (
	"context"
	"database/sql"
	"time"

	"mdqs/market"
)

// SaveSnapshot stores one collection and its sectors in one transaction.
// Its trade day is the day of the data's own time (snap.At).
func (s *Store) SaveSnapshot(ctx context.Context, snap market.SectorSnapshot, collectedAt time.Time) (int64, error) {
	var id int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `INSERT INTO snapshot_runs(kind, source, trade_day, as_of, collected_at, row_count)
			VALUES (?, ?, ?, ?, ?, ?) RETURNING id`, string(snap.Kind), snap.Source, int(market.DayOf(snap.At)), snap.At.UnixMilli(),
			collectedAt.UnixMilli(), len(snap.Sectors)).Scan(&id); err != nil {
			return classify(err, "insert snapshot run")
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
			return classify(err, "prepare sector insert")
		}
		defer stmt.Close()
		for _, x := range snap.Sectors {
			if _, err := stmt.ExecContext(ctx, id, x.Name, x.Code, nullFloat(x.Price), nullFloat(x.Pct), nullFloat(x.Amount),
				nullFloat(x.Turnover), nullFloat(x.MainNet), nullFloat(x.MainNetRatio), x.Up, x.Down, x.Flat,
				x.LeaderCode, x.LeaderName, nullFloat(x.LeaderPct)); err != nil {
				return classify(err, "insert sector")
			}
		}
		return nil
	})
	return id, err
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

func (s *Store) readSnapshot(ctx context.Context, id int64, kind market.SectorKind, source string, asOf int64) (market.SectorSnapshot, error) {
	snap := market.SectorSnapshot{Kind: kind, Source: source, At: time.UnixMilli(asOf).In(market.Shanghai())}
	rows, err := s.r.QueryContext(ctx, `SELECT name, code, price, pct, amount, turnover, main_net, main_net_ratio,
		up, down, flat, leader_code, leader_name, leader_pct FROM sector_snapshots WHERE run_id = ?`, id)
	if err != nil {
		return snap, classify(err, "read snapshot")
	}
	defer rows.Close()
	for rows.Next() {
		var x market.Sector
		var price, pct, amount, turnover, mainNet, ratio, leaderPct sql.NullFloat64
		if err := rows.Scan(&x.Name, &x.Code, &price, &pct, &amount, &turnover, &mainNet, &ratio,
			&x.Up, &x.Down, &x.Flat, &x.LeaderCode, &x.LeaderName, &leaderPct); err != nil {
			return snap, classify(err, "read snapshot")
		}
		x.Price, x.Pct, x.Amount, x.Turnover = floatOrNaN(price), floatOrNaN(pct), floatOrNaN(amount), floatOrNaN(turnover)
		x.MainNet, x.MainNetRatio, x.LeaderPct = floatOrNaN(mainNet), floatOrNaN(ratio), floatOrNaN(leaderPct)
		snap.Sectors = append(snap.Sectors, x)
	}
	return snap, classify(rows.Err(), "read snapshot")
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
