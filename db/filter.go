package db

import (
	"context"
	"strings"

	"mdqs/internal/market"
)

// filter builds a WHERE clause of ANDed conditions with their bound
// arguments; the condition texts are ours, only the arguments come from
// requests.
type filter struct {
	conds []string
	args  []any
}

// and adds one condition with its arguments, one per placeholder.
func (f *filter) and(cond string, args ...any) {
	f.conds = append(f.conds, cond)
	f.args = append(f.args, args...)
}

// codes restricts column to the codes, when there are any.
func (f *filter) codes(column string, codes []market.Code) {
	if len(codes) == 0 {
		return
	}
	args := make([]any, len(codes))
	for i, c := range codes {
		args[i] = c.String()
	}
	f.and(column+" IN ("+qmarks(len(codes))+")", args...)
}

// where is the condition text; every row when there is none.
func (f *filter) where() string {
	if len(f.conds) == 0 {
		return "1 = 1"
	}
	return strings.Join(f.conds, " AND ")
}

// count is how many rows of from (a table, or a join) the filter selects.
func (s *Store) count(ctx context.Context, from string, f filter, op string) (int, error) {
	var n int
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM `+from+` WHERE `+f.where(), f.args...).Scan(&n); err != nil {
		return 0, classify(err, op)
	}
	return n, nil
}

// likePattern is a LIKE pattern matching keyword as a case-insensitive
// substring: its own % and _ are text, not wildcards (with ESCAPE '\').
func likePattern(keyword string) string {
	esc := strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(strings.ToLower(keyword))
	return "%" + esc + "%"
}
