package db

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"mdqs/internal/market"
)

// StatsDepth is how many names of each list a day's stats keep: the
// largest top GET /v1/api/market/stats/range takes.
const StatsDepth = 100

// DayStats is one trading day of the stats range: the first StatsDepth
// sector names of five lists of the day's stored ranking, in rank order.
type DayStats struct {
	Day         market.Day
	Source      string
	UpdatedMS   int64
	IndustryIn  []string
	ConceptIn   []string
	IndustryOut []string
	ConceptOut  []string
	SectorsIn   []string
}

// StatsOf is a ranking's stats, as SaveDailyRanking keeps them.
func StatsOf(day market.Day, r *market.Ranking) DayStats {
	return DayStats{Day: day, Source: r.Source, UpdatedMS: r.UpdatedMS,
		IndustryIn: namesOf(r.Industry), ConceptIn: namesOf(r.Concept),
		IndustryOut: namesOf(r.IndustryOut), ConceptOut: namesOf(r.ConceptOut), SectorsIn: namesOf(r.Sectors)}
}

func namesOf(list []market.RankedSector) []string {
	out := make([]string, 0, min(len(list), StatsDepth))
	for _, e := range list[:min(len(list), StatsDepth)] {
		out = append(out, e.SectorName)
	}
	return out
}

// lists are the stats' lists in the table's column order.
func (st *DayStats) lists() []*[]string {
	return []*[]string{&st.IndustryIn, &st.ConceptIn, &st.IndustryOut, &st.ConceptOut, &st.SectorsIn}
}

// SaveDailyStats stores a day's stats, replacing what the day had. The
// stats of a ranking stored before the table existed are kept so the first
// time a range reads the day; SaveDailyRanking keeps every later one.
func (s *Store) SaveDailyStats(ctx context.Context, st DayStats) error {
	return s.write(ctx, func(tx *sql.Tx) error { return saveDailyStats(ctx, tx, st) })
}

func saveDailyStats(ctx context.Context, tx *sql.Tx, st DayStats) error {
	args := []any{int(st.Day), st.Source, st.UpdatedMS}
	for _, l := range st.lists() {
		names := *l
		if names == nil {
			names = []string{}
		}
		b, err := json.Marshal(names[:min(len(names), StatsDepth)])
		if err != nil {
			return fmt.Errorf("daily stats of %v: %w", st.Day, err)
		}
		args = append(args, string(b))
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM daily_stats WHERE trade_day = ?`, int(st.Day)); err != nil {
		return classify(err, "clear daily stats")
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO daily_stats(trade_day, source, updated_ms, industry_in, concept_in,
		industry_out, concept_out, sectors_in) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, args...)
	return classify(err, "insert daily stats")
}

// DailyStats reads the kept stats of the days in [from, to]; a day without
// them is absent from the map.
func (s *Store) DailyStats(ctx context.Context, from, to market.Day) (map[market.Day]DayStats, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT trade_day, source, updated_ms, industry_in, concept_in, industry_out,
		concept_out, sectors_in FROM daily_stats WHERE trade_day BETWEEN ? AND ?`, int(from), int(to))
	if err != nil {
		return nil, classify(err, "read daily stats")
	}
	defer rows.Close()
	out := map[market.Day]DayStats{}
	var lists [5]string
	for rows.Next() {
		var st DayStats
		var day int
		if err := rows.Scan(&day, &st.Source, &st.UpdatedMS, &lists[0], &lists[1], &lists[2], &lists[3], &lists[4]); err != nil {
			return nil, classify(err, "read daily stats")
		}
		st.Day = market.Day(day)
		for i, l := range st.lists() {
			if err := json.Unmarshal([]byte(lists[i]), l); err != nil {
				return nil, fmt.Errorf("daily stats of %v: %w", st.Day, err)
			}
		}
		out[st.Day] = st
	}
	return out, classify(rows.Err(), "read daily stats")
}
