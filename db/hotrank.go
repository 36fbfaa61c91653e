package db

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"mdqs/internal/market"
)

// HotRankEntry is one stock's place in a day's hot rank.
type HotRankEntry struct {
	Day       market.Day
	Code      market.Code
	Name      string
	Rank      int
	Heat      int
	Source    string
	UpdatedAt time.Time // when the row last changed
}

// InfoCounts is what an upsert of hot-rank, news or report rows did.
type InfoCounts struct {
	Inserted  int `json:"inserted"`
	Updated   int `json:"updated"`
	Unchanged int `json:"unchanged"`
	Removed   int `json:"removed"`
}

// Add sums counts.
func (c *InfoCounts) Add(o InfoCounts) {
	c.Inserted += o.Inserted
	c.Updated += o.Updated
	c.Unchanged += o.Unchanged
	c.Removed += o.Removed
}

// UpsertHotRank stores one page of a day's list in one transaction, so a
// page is stored whole or not at all. Rows are upserted by (day, code); a
// row whose values are the same is left alone (Unchanged), so importing
// the same list twice changes nothing. Then the rows of the day whose rank
// lies within the page's ranks but whose code is not on the page are
// removed: they are left from an earlier collection that day, and keeping
// them would give two stocks one rank.
func (s *Store) UpsertHotRank(ctx context.Context, day market.Day, rows []HotRankEntry, now time.Time) (InfoCounts, error) {
	var c InfoCounts
	if len(rows) == 0 {
		return c, nil
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		c = InfoCounts{}
		sel, err := tx.PrepareContext(ctx, `SELECT name, rank, heat, source FROM hot_rank WHERE trade_date = ? AND code = ?`)
		if err != nil {
			return classify(err, "prepare hot rank read")
		}
		defer sel.Close()
		up, err := tx.PrepareContext(ctx, `INSERT INTO hot_rank(trade_date, code, name, rank, heat, source, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT(trade_date, code) DO UPDATE SET name = excluded.name, rank = excluded.rank, heat = excluded.heat,
				source = excluded.source, updated_at = excluded.updated_at`)
		if err != nil {
			return classify(err, "prepare hot rank upsert")
		}
		defer up.Close()
		lo, hi := rows[0].Rank, rows[0].Rank
		codes := make([]any, 0, len(rows)+3)
		codes = append(codes, int(day), 0, 0)
		for _, r := range rows {
			lo, hi = min(lo, r.Rank), max(hi, r.Rank)
			codes = append(codes, r.Code.String())
			var name, source string
			var rank, heat int
			switch err := sel.QueryRowContext(ctx, int(day), r.Code.String()).Scan(&name, &rank, &heat, &source); {
			case err == sql.ErrNoRows:
				c.Inserted++
			case err != nil:
				return classify(err, "read hot rank")
			case name == r.Name && rank == r.Rank && heat == r.Heat && source == r.Source:
				c.Unchanged++
				continue
			default:
				c.Updated++
			}
			if _, err := up.ExecContext(ctx, int(day), r.Code.String(), r.Name, r.Rank, r.Heat, r.Source, now.UnixMilli()); err != nil {
				return classify(err, "upsert hot rank")
			}
		}
		codes[1], codes[2] = lo, hi
		res, err := tx.ExecContext(ctx, `DELETE FROM hot_rank WHERE trade_date = ? AND rank BETWEEN ? AND ?
			AND code NOT IN (`+qmarks(len(rows))+`)`, codes...)
		if err != nil {
			return classify(err, "remove stale hot rank")
		}
		n, _ := res.RowsAffected()
		c.Removed = int(n)
		return nil
	})
	return c, err
}

// qmarks is "?, ?, ?" for n parameters.
func qmarks(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// HotRankQuery selects hot-rank rows. Day selects one day; otherwise From
// and To bound a range (0 leaves a side open). Codes, when given, keeps
// those stocks only. Rows come by rank within a day, newest day first.
type HotRankQuery struct {
	Day      market.Day
	From, To market.Day
	Codes    []market.Code
	Offset   int
	Limit    int // 0: all
}

// HotRank lists the rows q selects and how many there are in all.
func (s *Store) HotRank(ctx context.Context, q HotRankQuery) ([]HotRankEntry, int, error) {
	var f filter
	switch {
	case q.Day != 0:
		f.and("trade_date = ?", int(q.Day))
	default:
		if q.From != 0 {
			f.and("trade_date >= ?", int(q.From))
		}
		if q.To != 0 {
			f.and("trade_date <= ?", int(q.To))
		}
	}
	f.codes("code", q.Codes)
	total, err := s.count(ctx, "hot_rank", f, "count hot rank")
	if err != nil || total == 0 {
		return []HotRankEntry{}, 0, err
	}
	args := f.args
	query := `SELECT trade_date, code, name, rank, heat, source, updated_at FROM hot_rank WHERE ` + f.where() +
		` ORDER BY trade_date DESC, rank, code`
	if q.Limit > 0 {
		query += ` LIMIT ? OFFSET ?`
		args = append(args, q.Limit, q.Offset)
	}
	rows, err := s.r.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, 0, classify(err, "read hot rank")
	}
	defer rows.Close()
	out := []HotRankEntry{}
	for rows.Next() {
		var e HotRankEntry
		var day int
		var code string
		var updated int64
		if err := rows.Scan(&day, &code, &e.Name, &e.Rank, &e.Heat, &e.Source, &updated); err != nil {
			return nil, 0, classify(err, "read hot rank")
		}
		c, err := market.ParseCode(code)
		if err != nil {
			return nil, 0, market.Wrap(market.KindInternal, err, "stored hot rank code %q", code)
		}
		e.Day, e.Code, e.UpdatedAt = market.Day(day), c, time.UnixMilli(updated).In(market.Shanghai())
		out = append(out, e)
	}
	return out, total, classify(rows.Err(), "read hot rank")
}

// LatestHotRankDay is the newest day with a hot rank, on or before
// onOrBefore (0: any). None is a not-found error.
func (s *Store) LatestHotRankDay(ctx context.Context, onOrBefore market.Day) (market.Day, error) {
	if onOrBefore == 0 {
		onOrBefore = 99991231
	}
	var day sql.NullInt64
	if err := s.r.QueryRowContext(ctx, `SELECT max(trade_date) FROM hot_rank WHERE trade_date <= ?`, int(onOrBefore)).Scan(&day); err != nil {
		return 0, classify(err, "read latest hot rank day")
	}
	if !day.Valid {
		return 0, market.E(market.KindNotFound, "hot rank not found")
	}
	return market.Day(day.Int64), nil
}

// InfoImport is one run of a hot-rank, news or report import.
type InfoImport struct {
	ID       int64
	Kind     string // hot_rank, news, finance
	Source   string
	Scope    string // what was imported: the date, the feeds, the period
	Started  time.Time
	Finished time.Time
	Pages    int // pages asked
	Failed   int // pages that failed (nothing of them stored)
	Fetched  int // rows received
	InfoCounts
	Complete bool // every page asked was stored and the walk reached its end
	Error    string
}

// RecordImport stores a finished run.
func (s *Store) RecordImport(ctx context.Context, r InfoImport) (int64, error) {
	var id int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `INSERT INTO info_imports(kind, source, scope, started_at, finished_at, pages, failed,
			fetched, inserted, updated, unchanged, removed, complete, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			RETURNING id`,
			r.Kind, r.Source, r.Scope, r.Started.UnixMilli(), r.Finished.UnixMilli(), r.Pages, r.Failed, r.Fetched,
			r.Inserted, r.Updated, r.Unchanged, r.Removed, flag(r.Complete), r.Error).Scan(&id)
		return classify(err, "record import")
	})
	return id, err
}

// LastImport is the newest run of kind for scope (any scope when ""),
// complete ones only when complete is set. None is a not-found error.
func (s *Store) LastImport(ctx context.Context, kind, scope string, complete bool) (InfoImport, error) {
	q := `SELECT id, kind, source, scope, started_at, finished_at, pages, failed, fetched, inserted, updated, unchanged, removed,
		complete, error FROM info_imports WHERE kind = ?`
	args := []any{kind}
	if scope != "" {
		q, args = q+` AND scope = ?`, append(args, scope)
	}
	if complete {
		q += ` AND complete = 1`
	}
	q += ` ORDER BY finished_at DESC, id DESC LIMIT 1`
	var r InfoImport
	var started, finished int64
	err := s.r.QueryRowContext(ctx, q, args...).Scan(&r.ID, &r.Kind, &r.Source, &r.Scope, &started, &finished, &r.Pages, &r.Failed,
		&r.Fetched, &r.Inserted, &r.Updated, &r.Unchanged, &r.Removed, &r.Complete, &r.Error)
	if err == sql.ErrNoRows {
		return InfoImport{}, market.Errorf(market.KindNotFound, "no %s import of %q", kind, scope)
	}
	if err != nil {
		return InfoImport{}, classify(err, "read last import")
	}
	r.Started, r.Finished = time.UnixMilli(started).In(market.Shanghai()), time.UnixMilli(finished).In(market.Shanghai())
	return r, nil
}

// PruneImports deletes the run records of kind that finished before t.
func (s *Store) PruneImports(ctx context.Context, kind string, before time.Time) (int, error) {
	var n int64
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM info_imports WHERE kind = ? AND finished_at < ?`, kind, before.UnixMilli())
		if err != nil {
			return classify(err, "prune imports")
		}
		n, _ = res.RowsAffected()
		return nil
	})
	return int(n), err
}
