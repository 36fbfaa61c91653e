package db

import (
	"context"
	"database/sql"

	"mdqs/internal/market"
)

// SaveDailyRanking stores every list of a day's ranking and its stats
// (DailyStats), replacing what the day had, in one transaction: running it
// twice leaves the same rows, and a day's stats never disagree with its
// ranking.
func (s *Store) SaveDailyRanking(ctx context.Context, day market.Day, r *market.Ranking) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM daily_rankings WHERE trade_day = ?`, int(day)); err != nil {
			return classify(err, "clear daily ranking")
		}
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO daily_rankings(trade_day, list_type, rank, sector_name, count, pct,
			turnover, main_net, flow, signal, signal_rank, flow_tag, source, updated_ms, ts)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return classify(err, "prepare daily ranking")
		}
		defer stmt.Close()
		for _, lt := range market.ListTypes() {
			for _, e := range r.List(lt) {
				if _, err := stmt.ExecContext(ctx, int(day), lt, e.Rank, e.SectorName, e.Count, nullFloat(e.Pct),
					nullFloat(e.Turnover), nullFloat(e.MainNet), e.Flow, e.Signal, e.SignalRank, e.FlowTag,
					r.Source, r.UpdatedMS, r.TS); err != nil {
					return classify(err, "insert daily ranking")
				}
			}
		}
		return saveDailyStats(ctx, tx, StatsOf(day, r))
	})
}

// DailyRanking reads a day's stored ranking; a day without one is a
// not-found error.
func (s *Store) DailyRanking(ctx context.Context, day market.Day) (*market.Ranking, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT list_type, rank, sector_name, count, pct, turnover, main_net, flow,
		signal, signal_rank, flow_tag, source, updated_ms, ts FROM daily_rankings WHERE trade_day = ?
		ORDER BY list_type, rank`, int(day))
	if err != nil {
		return nil, classify(err, "read daily ranking")
	}
	defer rows.Close()
	r := &market.Ranking{Day: day.Compact()}
	lists := map[string][]market.RankedSector{}
	found := false
	for rows.Next() {
		var lt string
		var e market.RankedSector
		var pct, turnover, mainNet sql.NullFloat64
		if err := rows.Scan(&lt, &e.Rank, &e.SectorName, &e.Count, &pct, &turnover, &mainNet, &e.Flow, &e.Signal,
			&e.SignalRank, &e.FlowTag, &r.Source, &r.UpdatedMS, &r.TS); err != nil {
			return nil, classify(err, "read daily ranking")
		}
		e.Pct, e.Turnover, e.MainNet = floatOrNaN(pct), floatOrNaN(turnover), floatOrNaN(mainNet)
		lists[lt] = append(lists[lt], e)
		found = true
	}
	if err := rows.Err(); err != nil {
		return nil, classify(err, "read daily ranking")
	}
	if !found {
		return nil, market.Errorf(market.KindNotFound, "no stored ranking for %v", day)
	}
	for _, lt := range market.ListTypes() {
		l := lists[lt]
		if l == nil {
			l = []market.RankedSector{}
		}
		r.SetList(lt, l)
	}
	return r, nil
}

// DailyRankingDays lists the days in [from, to] that have a stored ranking.
func (s *Store) DailyRankingDays(ctx context.Context, from, to market.Day) (map[market.Day]bool, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT DISTINCT trade_day FROM daily_rankings WHERE trade_day BETWEEN ? AND ?`, int(from), int(to))
	if err != nil {
		return nil, classify(err, "list ranking days")
	}
	defer rows.Close()
	out := map[market.Day]bool{}
	for rows.Next() {
		var d int
		if err := rows.Scan(&d); err != nil {
			return nil, classify(err, "list ranking days")
		}
		out[market.Day(d)] = true
	}
	return out, classify(rows.Err(), "list ranking days")
}

// TopNames reads, for each day in [from, to] with a stored ranking, the
// first n sector names of one list.
func (s *Store) TopNames(ctx context.Context, from, to market.Day, listType string, n int) (map[market.Day][]string, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT trade_day, sector_name FROM daily_rankings
		WHERE trade_day BETWEEN ? AND ? AND list_type = ? AND rank < ? ORDER BY trade_day, rank`, int(from), int(to), listType, n)
	if err != nil {
		return nil, classify(err, "read top names")
	}
	defer rows.Close()
	out := map[market.Day][]string{}
	for rows.Next() {
		var d int
		var name string
		if err := rows.Scan(&d, &name); err != nil {
			return nil, classify(err, "read top names")
		}
		out[market.Day(d)] = append(out[market.Day(d)], name)
	}
	return out, classify(rows.Err(), "read top names")
}
