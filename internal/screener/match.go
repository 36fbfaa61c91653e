package screener

import (
	"context"
)

// Match is a row an expression matched: its code and name, and the values
// of the fields the expression used.
type Match struct {
	Code   string
	Name   string
	Values map[string]any
}

// CheckUniverse says what is wrong with a universe, for requests that
// store one (screens, alerts).
func CheckUniverse(u Universe) error { return checkUniverse(u) }

// Match evaluates prog over the frame's current rows within u, all of
// them (no sort, no limit): what a standing screen sees at a quote
// refresh. The frame reloads what is due first.
func (f *Frame) Match(ctx context.Context, prog *Program, u Universe) ([]Match, error) {
	rows, err := f.Rows(ctx)
	if err != nil {
		return nil, err
	}
	rows = u.filter(rows)
	matched, _, err := evaluate(ctx, prog, rows, "", len(rows), nil)
	if err != nil {
		return nil, err
	}
	out := make([]Match, len(matched))
	for i, r := range matched {
		vals := make(map[string]any, len(prog.Fields))
		for _, name := range prog.Fields {
			if fd, ok := field(name); ok {
				vals[name] = r.value(fd)
			}
		}
		out[i] = Match{Code: r.Code, Name: r.Name, Values: vals}
	}
	return out, nil
}
