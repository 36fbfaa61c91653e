package db

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"mdqs/internal/market"
)

// IndexObservation is an index's member list as one source showed it on
// one day.
type IndexObservation struct {
	Index   market.Code
	Day     market.Day
	Source  string // the store's source: tdx, demo
	File    string // what listed it: spblock.dat, infoharbor_block.dat, block_zs.dat, demo market
	Block   string // the block's name in that file
	Capped  bool   // the file caps its lists (block_zs.dat's 400)
	Members []market.Code
}

// IndexObserved is a recorded observation, without its members.
type IndexObserved struct {
	Index      market.Code
	Day        market.Day
	Source     string
	File       string
	Block      string
	Capped     bool
	Members    int
	RecordedAt time.Time
}

// IndexSkip is an observation RecordIndexObservations left out, and why.
type IndexSkip struct {
	Index  market.Code
	Day    market.Day
	File   string
	Reason string
}

// IndexRecording says what RecordIndexObservations did.
type IndexRecording struct {
	Recorded int         // new observed days
	Replaced int         // latest days observed again, their lists replaced
	Skipped  []IndexSkip // left out
}

// RecordIndexObservations records index member lists, all in one
// transaction, each index's in day order. A member seen on an index's
// previous observation and on this one goes on; one no longer listed
// leaves (its span ends on the previous observation); one newly listed
// starts a span on this day. An observation of an index's latest recorded
// day replaces that day's list (the terminal refreshed its file the same
// day). Left out, and said so in Skipped: a day before the index's latest
// (days go in order), and a capped list (block_zs.dat) of an index whose
// latest list came from an uncapped file, since a list cut at 400 or
// emptied would read as members leaving.
func (s *Store) RecordIndexObservations(ctx context.Context, obs []IndexObservation, now time.Time) (IndexRecording, error) {
	sorted := slices.Clone(obs)
	slices.SortStableFunc(sorted, func(a, b IndexObservation) int {
		if c := strings.Compare(a.Index.String(), b.Index.String()); c != 0 {
			return c
		}
		return int(a.Day) - int(b.Day)
	})
	var rec IndexRecording
	err := s.write(ctx, func(tx *sql.Tx) error {
		rec = IndexRecording{}
		// Each index's open members, read once a batch: a backfill of
		// months of a composite's thousands of members would read them
		// again for every day.
		opens := map[market.Code]map[string]bool{}
		for _, o := range sorted {
			if o.Index.IsZero() || o.Day == 0 || o.Source == "" {
				return market.Errorf(market.KindInvalid, "index observation: no index, day or source (%+v)", o.Index)
			}
			last, lastCapped, err := lastIndexDay(ctx, tx, o.Index, 0)
			if err != nil {
				return err
			}
			skip := func(why string, args ...any) {
				rec.Skipped = append(rec.Skipped, IndexSkip{Index: o.Index, Day: o.Day, File: o.File, Reason: fmt.Sprintf(why, args...)})
			}
			switch {
			case o.Day < last:
				skip("%s is recorded already; days are recorded in order", last)
				continue
			case o.Capped && last != 0 && !lastCapped:
				skip("%s caps its lists and %s was observed from an uncapped file: a capped list never follows an uncapped one", o.File, o.Index)
				continue
			}
			prev := last
			if o.Day == last {
				if prev, _, err = lastIndexDay(ctx, tx, o.Index, last); err != nil {
					return err
				}
				if err := undoIndexDay(ctx, tx, o.Index, last, prev); err != nil {
					return err
				}
				delete(opens, o.Index)
				rec.Replaced++
			} else {
				rec.Recorded++
			}
			if opens[o.Index] == nil {
				if opens[o.Index], err = openMembers(ctx, tx, o.Index); err != nil {
					return err
				}
			}
			n, err := applyIndexDay(ctx, tx, o, prev, opens[o.Index])
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO index_observations(index_code, day, source, file, block, members, capped, recorded_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, o.Index.String(), int(o.Day), o.Source, o.File, o.Block, n, flag(o.Capped), now.UnixMilli()); err != nil {
				return classify(err, "record index observation")
			}
		}
		return nil
	})
	if err != nil {
		return IndexRecording{}, err
	}
	return rec, nil
}

// lastIndexDay is an index's latest observed day before before (0: any),
// and whether its list was capped; 0 when there is none.
func lastIndexDay(ctx context.Context, tx *sql.Tx, index market.Code, before market.Day) (market.Day, bool, error) {
	q, args := `SELECT day, capped FROM index_observations WHERE index_code = ?`, []any{index.String()}
	if before != 0 {
		q += ` AND day < ?`
		args = append(args, int(before))
	}
	var day int64
	var capped bool
	err := tx.QueryRowContext(ctx, q+` ORDER BY day DESC LIMIT 1`, args...).Scan(&day, &capped)
	if err == sql.ErrNoRows {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, classify(err, "read index observations")
	}
	return market.Day(day), capped, nil
}

// undoIndexDay takes back the latest observation day of an index, whose
// previous observation is prev: spans it started go, spans it ended go on
// again.
func undoIndexDay(ctx context.Context, tx *sql.Tx, index market.Code, day, prev market.Day) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM index_member_spans WHERE index_code = ? AND first_day = ?`, index.String(), int(day)); err != nil {
		return classify(err, "replace index observation")
	}
	if prev != 0 {
		if _, err := tx.ExecContext(ctx, `UPDATE index_member_spans SET last_day = NULL WHERE index_code = ? AND last_day = ?`,
			index.String(), int(prev)); err != nil {
			return classify(err, "replace index observation")
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM index_observations WHERE index_code = ? AND day = ?`, index.String(), int(day)); err != nil {
		return classify(err, "replace index observation")
	}
	return nil
}

// openMembers are the members of an index's open spans.
func openMembers(ctx context.Context, tx *sql.Tx, index market.Code) (map[string]bool, error) {
	rows, err := tx.QueryContext(ctx, `SELECT code FROM index_member_spans WHERE index_code = ? AND last_day IS NULL`, index.String())
	if err != nil {
		return nil, classify(err, "record index observation")
	}
	defer rows.Close()
	open := map[string]bool{}
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, classify(err, "record index observation")
		}
		open[c] = true
	}
	return open, classify(rows.Err(), "record index observation")
}

// applyIndexDay applies an observation to the open spans of its index
// (open, which it updates), whose latest observation before it is prev,
// and returns its member count. Only changes write.
func applyIndexDay(ctx context.Context, tx *sql.Tx, o IndexObservation, prev market.Day, open map[string]bool) (int, error) {
	idx := o.Index.String()
	now := map[string]bool{}
	for _, c := range o.Members {
		now[c.String()] = true
	}
	for c := range open {
		if now[c] {
			continue
		}
		if _, err := tx.ExecContext(ctx, `UPDATE index_member_spans SET last_day = ? WHERE index_code = ? AND code = ? AND last_day IS NULL`,
			int(prev), idx, c); err != nil {
			return 0, classify(err, "record index observation")
		}
		delete(open, c)
	}
	for c := range now {
		if open[c] {
			continue
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO index_member_spans(index_code, code, first_day, last_day) VALUES (?, ?, ?, NULL)`,
			idx, c, int(o.Day)); err != nil {
			return 0, classify(err, "record index observation")
		}
		open[c] = true
	}
	return len(now), nil
}

// IndexObservations lists an index's observed days, oldest first; an
// index never observed is a not-found error.
func (s *Store) IndexObservations(ctx context.Context, index market.Code) ([]IndexObserved, error) {
	out, err := s.queryObserved(ctx, `WHERE index_code = ? ORDER BY day`, index.String())
	if err == nil && len(out) == 0 {
		err = market.Errorf(market.KindNotFound, "no member list of %s was recorded", index)
	}
	return out, err
}

// IndexesObserved is the latest observation of every index observed, by
// code.
func (s *Store) IndexesObserved(ctx context.Context) ([]IndexObserved, error) {
	return s.queryObserved(ctx, `o WHERE day = (SELECT max(day) FROM index_observations m WHERE m.index_code = o.index_code) ORDER BY index_code`)
}

func (s *Store) queryObserved(ctx context.Context, where string, args ...any) ([]IndexObserved, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT index_code, day, source, file, block, members, capped, recorded_at FROM index_observations `+where, args...)
	if err != nil {
		return nil, classify(err, "read index observations")
	}
	defer rows.Close()
	out := []IndexObserved{}
	for rows.Next() {
		var o IndexObserved
		var code string
		var day, at int64
		if err := rows.Scan(&code, &day, &o.Source, &o.File, &o.Block, &o.Members, &o.Capped, &at); err != nil {
			return nil, classify(err, "read index observations")
		}
		c, err := market.ParseCode(code)
		if err != nil {
			return nil, market.Wrap(market.KindInternal, err, "a stored index code %q", code)
		}
		o.Index, o.Day, o.RecordedAt = c, market.Day(day), time.UnixMilli(at)
		out = append(out, o)
	}
	return out, classify(rows.Err(), "read index observations")
}

// IndexMember is one member of an index on an observed day.
type IndexMember struct {
	Code  market.Code
	Name  string     // from the stock list; "" when it has none
	Since market.Day // the first observed day of its current span
}

// IndexMembersOn lists an index's members on day, an observed day of it
// (an unobserved day lists what the spans say about it, which between
// two observations is the earlier one's list only if nothing changed).
func (s *Store) IndexMembersOn(ctx context.Context, index market.Code, day market.Day) ([]IndexMember, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT m.code, coalesce(s.name, ''), m.first_day FROM index_member_spans m
		LEFT JOIN stocks s ON s.code = m.code
		WHERE m.index_code = ? AND m.first_day <= ? AND (m.last_day IS NULL OR m.last_day >= ?) ORDER BY m.code`,
		index.String(), int(day), int(day))
	if err != nil {
		return nil, classify(err, "read index members")
	}
	defer rows.Close()
	out := []IndexMember{}
	for rows.Next() {
		var m IndexMember
		var code string
		var first int64
		if err := rows.Scan(&code, &m.Name, &first); err != nil {
			return nil, classify(err, "read index members")
		}
		c, err := market.ParseCode(code)
		if err != nil {
			return nil, market.Wrap(market.KindInternal, err, "a stored member code %q", code)
		}
		m.Code, m.Since = c, market.Day(first)
		out = append(out, m)
	}
	return out, classify(rows.Err(), "read index members")
}

// IndexSpan is a run of observed days on which code was a member; Last is
// 0 while it goes on.
type IndexSpan struct {
	Code        market.Code
	Name        string
	First, Last market.Day
}

// IndexSpans lists every span of an index, by first day then code.
func (s *Store) IndexSpans(ctx context.Context, index market.Code) ([]IndexSpan, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT m.code, coalesce(s.name, ''), m.first_day, coalesce(m.last_day, 0) FROM index_member_spans m
		LEFT JOIN stocks s ON s.code = m.code WHERE m.index_code = ? ORDER BY m.first_day, m.code`, index.String())
	if err != nil {
		return nil, classify(err, "read index spans")
	}
	defer rows.Close()
	out := []IndexSpan{}
	for rows.Next() {
		var sp IndexSpan
		var code string
		var first, last int64
		if err := rows.Scan(&code, &sp.Name, &first, &last); err != nil {
			return nil, classify(err, "read index spans")
		}
		c, err := market.ParseCode(code)
		if err != nil {
			return nil, market.Wrap(market.KindInternal, err, "a stored member code %q", code)
		}
		sp.Code, sp.First, sp.Last = c, market.Day(first), market.Day(last)
		out = append(out, sp)
	}
	return out, classify(rows.Err(), "read index spans")
}
