package mcpserver

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"mdqs/internal/client"
	"mdqs/internal/market"
)

// MaxRows bounds the rows of any result: an agent's context is the scarce
// thing, and a longer list is better narrowed than read (each result says
// how).
const MaxRows = 200

// Result is every tool's structured content: the rows the API answered
// (at most MaxRows), where they come from and as of when, and their units.
type Result struct {
	// Source names where the numbers come from, as the API says it
	// (demo, store, push2, tdx, ...).
	Source string `json:"source"`
	// AsOf is the time the rows are of (Asia/Shanghai), AsOfFrom the field
	// of the API's answer it comes from; "read" when the answer has no
	// time of its own: then AsOf is when the tool read it.
	AsOf     string `json:"as_of"`
	AsOfFrom string `json:"as_of_from"`
	// Units are the rows' units by field: 元 (yuan), 股 (shares; 1 手 =
	// 100 股), % (1.5 is 1.5 %).
	Units map[string]string `json:"units,omitempty"`
	// Columns name the rows' fields, as the API names them, in its order;
	// Rows are the API's rows as lists of their values in that order
	// (null where a row lacks the field). Each field's name is written
	// once rather than in every row: a K-line's structured content is
	// half the size, and so is what an agent reads and the SDK encodes.
	Columns []string `json:"columns"`
	Rows    matrix   `json:"rows"`
	// Count is len(Rows); Total the rows the API had (all its pages).
	Count int `json:"count"`
	Total int `json:"total"`
	// Note says how to narrow a result cut to its limit, or anything else
	// a reader must know.
	Note string `json:"note,omitempty"`
	// Meta are the answer's other fields (its lists other than the rows
	// left out).
	Meta map[string]json.RawMessage `json:"meta,omitempty"`
}

// shape says how a tool's API answer becomes a Result.
type shape struct {
	// rows is the field of data holding the rows; "" when data is the
	// list itself. flatten, when set, is a field of each of those whose
	// items are the rows (the ladder's levels[].items).
	rows, flatten string
	// columns are the fields of the text table, in order; a dotted path
	// reaches into an object or a list ("reasons.0.reason").
	columns []string
	units   map[string]string
	// asOf are data's fields (or meta.FIELD) that may date the answer,
	// first present wins; then the rows' own as_of, then the read time.
	asOf []string
	// limit cuts the rows (at most MaxRows). tail keeps the last rows
	// instead of the first (a time series: the latest bars).
	limit int
	tail  bool
	// sortBy orders the rows by a numeric field before the cut, largest
	// first unless asc (unknown values last).
	sortBy string
	asc    bool
	// narrow tells how to ask for less when the rows were cut.
	narrow string
	// total is the field counting the API's rows before its own cut
	// ("total" by default); source names the answer's source when it
	// names none itself (the terminal's blocks); rowsAsOf is the rows'
	// field that dates them ("as_of" by default).
	total, source, rowsAsOf string
	// single: data is one object, the only row (a news item).
	single bool
	// keep are lists of objects of the answer that meta keeps (the
	// ladder's promotion); the others are left out (the ranking's other
	// families: rows of their own, not about these).
	keep []string
}

// apiError is an answer of the API that is not a success: the tool's
// error, with the API's own message and detail.
type apiError struct {
	Status     int
	Message    string
	Detail     string
	RetryAfter int
}

func (e *apiError) Error() string {
	s := fmt.Sprintf("mdqs answered HTTP %d %s", e.Status, e.Message)
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	if e.RetryAfter > 0 {
		s += fmt.Sprintf(" (retry after %d s)", e.RetryAfter)
	}
	return s
}

// errorOf reads a failure answer; a body that is not the envelope (a
// proxy's page, say) keeps its status and a line of its text.
func errorOf(r *client.Response) *apiError {
	var env struct {
		Message    string `json:"message"`
		Detail     string `json:"detail"`
		RetryAfter int    `json:"retry_after"`
	}
	if json.Unmarshal(r.Body, &env) != nil || env.Message == "" {
		line, _, _ := strings.Cut(strings.TrimSpace(string(r.Body)), "\n")
		return &apiError{Status: r.Status, Message: http.StatusText(r.Status), Detail: cut(line, 300)}
	}
	return &apiError{Status: r.Status, Message: env.Message, Detail: env.Detail, RetryAfter: env.RetryAfter}
}

// result shapes a successful answer. now is the read time.
func (sh shape) result(body []byte, now time.Time) (*Result, error) {
	top, err := members(body)
	if err != nil {
		return nil, fmt.Errorf("mdqs answered something that is not a JSON object: %w", err)
	}
	env := map[string]json.RawMessage{}
	for _, m := range top {
		env[string(m.key)] = m.value
	}
	data := json.RawMessage(body) // the sector ranking is its own object, not the envelope
	if _, ok := env["code"]; ok {
		data = env["data"]
	}
	fields := map[string]json.RawMessage{}
	var rows []json.RawMessage
	switch t := bytes.TrimSpace(data); {
	case len(t) > 0 && t[0] == '[':
		if rows, err = items(t); err != nil {
			return nil, err
		}
		for _, k := range []string{"meta", "analysis"} {
			if v, ok := env[k]; ok {
				fields[k] = v
			}
		}
	case sh.single:
		rows = []json.RawMessage{t}
	default:
		ms, err := members(t)
		if err != nil {
			return nil, fmt.Errorf("mdqs answered data that is not an object: %w", err)
		}
		for _, m := range ms {
			if sh.rows != "" && string(m.key) == sh.rows {
				if !isNull(m.value) {
					if rows, err = items(m.value); err != nil {
						return nil, fmt.Errorf("%s is not a list: %w", sh.rows, err)
					}
				}
				continue
			}
			fields[string(m.key)] = m.value
		}
	}
	if sh.flatten != "" {
		var flat []json.RawMessage
		for _, r := range rows {
			if inner, err := items(field(r, sh.flatten)); err == nil {
				flat = append(flat, inner...)
			}
		}
		rows = flat
	}
	if rows == nil {
		rows = []json.RawMessage{}
	}
	res := &Result{}
	res.Source = firstString(fields, "source", "meta.source")
	if res.Source == "" {
		res.Source = cmp.Or(rowsString(rows, "source"), sh.source)
	}
	res.AsOf, res.AsOfFrom = sh.dated(fields, rows, now)
	res.Total = len(rows)
	if n, ok := number(lookup(fields, cmp.Or(sh.total, "total"))); ok && int(n) > res.Total {
		res.Total = int(n) // the API had more than it sent (pages, top)
	}
	if sh.sortBy != "" {
		sortRows(rows, sh.sortBy, sh.asc)
	}
	limit := min(cmp.Or(sh.limit, MaxRows), MaxRows)
	if len(rows) > limit {
		if sh.tail {
			rows = rows[len(rows)-limit:]
		} else {
			rows = rows[:limit]
		}
	}
	if res.Total > len(rows) {
		which := "first"
		if sh.tail {
			which = "last"
		}
		res.Note = fmt.Sprintf("%d of %d rows (the %s %d); to see others, %s", len(rows), res.Total, which, len(rows), sh.narrow)
	}
	res.Columns, res.Rows = tabulate(rows)
	res.Units = unitsOf(sh.units, res.Columns)
	res.Count = len(rows)
	res.Meta = metaOf(fields, sh.keep)
	return res, nil
}

// value is a row's field by a dotted path ("reasons.0.reason").
func (res *Result) value(row []json.RawMessage, col string) []byte {
	head, rest, deep := strings.Cut(col, ".")
	i := slices.Index(res.Columns, head)
	if i < 0 || i >= len(row) {
		return nil
	}
	if deep {
		return path(row[i], rest)
	}
	return row[i]
}

// dated finds the answer's time: the first of the shape's fields present,
// the latest as_of of the rows, else the read time.
func (sh shape) dated(fields map[string]json.RawMessage, rows []json.RawMessage, now time.Time) (string, string) {
	for _, name := range sh.asOf {
		raw := lookup(fields, name)
		if s, ok := str(raw); ok && s != "" {
			return s, name
		}
		if n, ok := number(raw); ok && n > 0 { // epoch seconds (the ranking's ts)
			return market.FormatTime(time.Unix(int64(n), 0)), name
		}
	}
	field := cmp.Or(sh.rowsAsOf, "as_of")
	if s := rowsLatest(rows, field); s != "" {
		return s, "rows." + field
	}
	return market.FormatTime(now), "read"
}

// metaOf keeps the answer's other fields an agent may need (scalars,
// objects, lists of values) and leaves out its lists of objects, the
// rows of other lists (the ranking's other families), but those of keep.
func metaOf(fields map[string]json.RawMessage, keep []string) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	for k, v := range fields {
		if t := bytes.TrimSpace(v); len(t) > 0 && t[0] == '[' && !slices.Contains(keep, k) {
			list, err := items(t)
			if err != nil || len(list) > 50 || (len(list) > 0 && bytes.HasPrefix(list[0], []byte("{"))) {
				continue
			}
		}
		out[k] = v
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
