package db

import (
	"cmp"
	"context"
	"database/sql"
	"math"
	"slices"
	"strings"

	"mdqs/internal/market"
)

// Action is one corporate action as a source gives it (a gbbq record:
// category 1 is 除权除息, the others share-capital changes).
type Action struct {
	Code     market.Code
	Day      market.Day
	Category int
	F        [4]float64 // the four values: the decimals of the gbbq's float32s (tdx.Decimal32), never rounded
	Source   string     // "tdx" (a terminal's gbbq) or "demo"
}

// ActionChanges says what a ReplaceActions changed.
type ActionChanges struct {
	Codes []market.Code // codes whose actions changed (added, altered or removed), sorted
	Rows  int           // rows of the source held now
}

// actionRow is an action as one code's rows hold it. seq tells apart
// records sharing (day, category), in the order the source gave them.
type actionRow struct {
	day      market.Day
	category int
	seq      int
	f        [4]float64
}

func compareActionRows(a, b actionRow) int {
	if c := cmp.Compare(a.day, b.day); c != 0 {
		return c
	}
	if c := cmp.Compare(a.category, b.category); c != 0 {
		return c
	}
	return cmp.Compare(a.seq, b.seq)
}

// actionBatch is how many rows one INSERT carries: 9,000 parameters, under
// both SQLite's 32,766 and PostgreSQL's 65,535, and enough that a 200k-row
// file takes 200 statements rather than 200k.
const actionBatch = 1000

// ReplaceActions makes the store's actions of source exactly all (one
// whole file's worth), in one transaction: codes whose rows are unchanged
// are not rewritten; a code absent from all loses its rows. When anything
// changed the actions revision moves.
//
// A gbbq changes a few codes a day, so the stored rows are read and
// compared per code rather than the source being rewritten: a no-op
// re-import writes nothing, and the revision, which invalidates every
// adjusted series, moves only for a real change.
func (s *Store) ReplaceActions(ctx context.Context, source string, all []Action) (ActionChanges, error) {
	if source == "" {
		return ActionChanges{}, market.Errorf(market.KindInvalid, "actions: no source")
	}
	type slot struct {
		code     string
		day      market.Day
		category int
	}
	next := map[string][]actionRow{}
	seqs := map[slot]int{}
	for _, a := range all {
		if a.Source != "" && a.Source != source {
			return ActionChanges{}, market.Errorf(market.KindInvalid, "actions: a row of source %q in a replace of %q", a.Source, source)
		}
		if a.Code.IsZero() {
			return ActionChanges{}, market.Errorf(market.KindInvalid, "actions: a row without a code")
		}
		code := a.Code.String()
		k := slot{code, a.Day, a.Category}
		seq := seqs[k]
		seqs[k] = seq + 1
		next[code] = append(next[code], actionRow{day: a.Day, category: a.Category, seq: seq, f: a.F})
	}
	for _, rows := range next {
		slices.SortStableFunc(rows, compareActionRows)
	}
	var out ActionChanges
	err := s.write(ctx, func(tx *sql.Tx) error {
		held, err := heldActions(ctx, tx, source)
		if err != nil {
			return err
		}
		var changed []string
		for code, rows := range next {
			if !slices.Equal(rows, held[code]) {
				changed = append(changed, code)
			}
		}
		for code := range held {
			if _, ok := next[code]; !ok {
				changed = append(changed, code)
			}
		}
		if len(changed) == 0 {
			return nil
		}
		slices.Sort(changed)
		// Every changed code's old rows go first, so a row that fails
		// below fails after writes: the rollback is what keeps them.
		if err := deleteActions(ctx, tx, source, changed); err != nil {
			return err
		}
		if err := insertActions(ctx, tx, source, changed, next); err != nil {
			return err
		}
		out.Codes = make([]market.Code, 0, len(changed))
		for _, code := range changed {
			c, err := market.ParseCode(code)
			if err != nil {
				return market.Wrap(market.KindInternal, err, "actions: stored code %q", code)
			}
			out.Codes = append(out.Codes, c)
		}
		_, err = tx.ExecContext(ctx, `UPDATE counters SET value = value + 1 WHERE name = 'actions_revision'`)
		return classify(err, "bump actions revision")
	})
	if err != nil {
		return ActionChanges{}, err
	}
	out.Rows = len(all)
	return out, nil
}

// heldActions reads a source's stored rows by code, each code's in key
// order.
func heldActions(ctx context.Context, tx *sql.Tx, source string) (map[string][]actionRow, error) {
	rows, err := tx.QueryContext(ctx, `SELECT code, day, category, seq, f1, f2, f3, f4 FROM corporate_actions
		WHERE source = ? ORDER BY code, day, category, seq`, source)
	if err != nil {
		return nil, classify(err, "read actions")
	}
	defer rows.Close()
	out := map[string][]actionRow{}
	for rows.Next() {
		var code string
		var r actionRow
		if err := rows.Scan(&code, &r.day, &r.category, &r.seq, &r.f[0], &r.f[1], &r.f[2], &r.f[3]); err != nil {
			return nil, classify(err, "read actions")
		}
		out[code] = append(out[code], r)
	}
	return out, classify(rows.Err(), "read actions")
}

func deleteActions(ctx context.Context, tx *sql.Tx, source string, codes []string) error {
	for chunk := range slices.Chunk(codes, actionBatch) {
		args := make([]any, 0, len(chunk)+1)
		args = append(args, source)
		for _, c := range chunk {
			args = append(args, c)
		}
		q := `DELETE FROM corporate_actions WHERE source = ? AND code IN (` + placeholders(len(chunk), 1) + `)`
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return classify(err, "delete actions")
		}
	}
	return nil
}

// insertActions writes the new rows of the changed codes that still have
// rows, actionBatch rows a statement.
func insertActions(ctx context.Context, tx *sql.Tx, source string, codes []string, next map[string][]actionRow) error {
	const cols = 9
	args := make([]any, 0, actionBatch*cols)
	flush := func() error {
		if len(args) == 0 {
			return nil
		}
		q := `INSERT INTO corporate_actions(code, source, day, category, seq, f1, f2, f3, f4) VALUES ` +
			placeholders(len(args)/cols, cols)
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return classify(err, "insert actions")
		}
		args = args[:0]
		return nil
	}
	for _, code := range codes {
		for _, r := range next[code] {
			if err := validAction(code, r); err != nil {
				return err
			}
			args = append(args, code, source, int64(r.day), r.category, r.seq, r.f[0], r.f[1], r.f[2], r.f[3])
			if len(args) == actionBatch*cols {
				if err := flush(); err != nil {
					return err
				}
			}
		}
	}
	return flush()
}

// validAction refuses what the store could not give back as it was given:
// SQLite keeps a NaN as NULL, and a day or category out of a gbbq's range
// is not a record of one.
func validAction(code string, r actionRow) error {
	if _, err := market.ParseDay(r.day.String()); err != nil {
		return market.Errorf(market.KindInvalid, "actions: %s: day %d is not a date", code, int(r.day))
	}
	if r.category < 1 || r.category > 255 {
		return market.Errorf(market.KindInvalid, "actions: %s %v: category %d is not 1..255", code, r.day, r.category)
	}
	for i, v := range r.f {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return market.Errorf(market.KindInvalid, "actions: %s %v: value %d is %v", code, r.day, i+1, v)
		}
	}
	return nil
}

// placeholders is n groups of width ?s: "(?, ?), (?, ?)", or for width 1
// the bare list "?, ?".
func placeholders(n, width int) string {
	one := strings.TrimSuffix(strings.Repeat("?, ", width), ", ")
	if width == 1 {
		return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
	}
	return strings.TrimSuffix(strings.Repeat("("+one+"), ", n), ", ")
}

// Actions lists a code's actions (every source the store holds), by day,
// then category, then source.
func (s *Store) Actions(ctx context.Context, code market.Code) ([]Action, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT source, day, category, f1, f2, f3, f4 FROM corporate_actions
		WHERE code = ? ORDER BY day, category, source, seq`, code.String())
	if err != nil {
		return nil, classify(err, "read actions")
	}
	defer rows.Close()
	var out []Action
	for rows.Next() {
		a := Action{Code: code}
		if err := rows.Scan(&a.Source, &a.Day, &a.Category, &a.F[0], &a.F[1], &a.F[2], &a.F[3]); err != nil {
			return nil, classify(err, "read actions")
		}
		out = append(out, a)
	}
	return out, classify(rows.Err(), "read actions")
}

// ActionsRevision moves whenever ReplaceActions changes anything (0: never).
func (s *Store) ActionsRevision(ctx context.Context) (int64, error) {
	var v int64
	err := s.r.QueryRowContext(ctx, `SELECT value FROM counters WHERE name = 'actions_revision'`).Scan(&v)
	return v, classify(err, "read actions revision")
}

// ActionsBetween are every code's price-moving actions (category 1,
// 除权除息) with an ex-date after from and on or before to, in code and
// day order: the events a day's limit prices start from (one scan; the
// table is keyed by code).
func (s *Store) ActionsBetween(ctx context.Context, from, to market.Day) ([]Action, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT code, source, day, category, f1, f2, f3, f4 FROM corporate_actions
		WHERE day > ? AND day <= ? AND category = 1 ORDER BY code, day, category, source, seq`, int(from), int(to))
	if err != nil {
		return nil, classify(err, "read actions")
	}
	defer rows.Close()
	var out []Action
	for rows.Next() {
		var a Action
		var code string
		if err := rows.Scan(&code, &a.Source, &a.Day, &a.Category, &a.F[0], &a.F[1], &a.F[2], &a.F[3]); err != nil {
			return nil, classify(err, "read actions")
		}
		if a.Code, err = market.ParseCode(code); err != nil {
			return nil, market.Wrap(market.KindInternal, err, "corporate_actions holds code %q", code)
		}
		out = append(out, a)
	}
	return out, classify(rows.Err(), "read actions")
}
