package mcpserver

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
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

// encode writes the result as JSON, the rows' values as they are: the SDK
// takes it as the structured content without encoding the Result again
// (it passes over its messages several times; each pass over a K-line's
// 20 KB costs about 0.2 ms here).
func (res *Result) encode() ([]byte, error) {
	units, err := json.Marshal(res.Units)
	if err != nil {
		return nil, err
	}
	cols, _ := json.Marshal(res.Columns)
	src, _ := json.Marshal(res.Source)
	asOf, _ := json.Marshal(res.AsOf)
	from, _ := json.Marshal(res.AsOfFrom)
	rows, _ := res.Rows.MarshalJSON()
	b := make([]byte, 0, len(rows)+len(units)+len(cols)+256)
	b = append(b, `{"source":`...)
	b = append(b, src...)
	b = append(b, `,"as_of":`...)
	b = append(b, asOf...)
	b = append(b, `,"as_of_from":`...)
	b = append(b, from...)
	if len(res.Units) > 0 {
		b = append(b, `,"units":`...)
		b = append(b, units...)
	}
	b = append(b, `,"columns":`...)
	b = append(b, cols...)
	b = append(b, `,"rows":`...)
	b = append(b, rows...)
	b = append(b, `,"count":`...)
	b = strconv.AppendInt(b, int64(res.Count), 10)
	b = append(b, `,"total":`...)
	b = strconv.AppendInt(b, int64(res.Total), 10)
	if res.Note != "" {
		note, _ := json.Marshal(res.Note)
		b = append(b, `,"note":`...)
		b = append(b, note...)
	}
	if len(res.Meta) > 0 {
		meta, err := json.Marshal(res.Meta)
		if err != nil {
			return nil, err
		}
		b = append(b, `,"meta":`...)
		b = append(b, meta...)
	}
	return append(b, '}'), nil
}

// unitsOf are the units of the fields the rows have (a dotted field by
// its first part).
func unitsOf(units map[string]string, cols []string) map[string]string {
	out := map[string]string{}
	for k, u := range units {
		head, _, _ := strings.Cut(k, ".")
		if slices.Contains(cols, head) {
			out[k] = u
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// matrix is the rows' values, written as the API wrote them.
type matrix [][]json.RawMessage

// MarshalJSON writes the values as they are, once: encoding/json would
// compact each of them on its own.
func (m matrix) MarshalJSON() ([]byte, error) {
	n := 2
	for _, r := range m {
		for _, v := range r {
			n += len(v) + 1
		}
		n += 2
	}
	b := make([]byte, 0, n)
	b = append(b, '[')
	for i, r := range m {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		for j, v := range r {
			if j > 0 {
				b = append(b, ',')
			}
			b = append(b, v...)
		}
		b = append(b, ']')
	}
	return append(b, ']'), nil
}

var jsonNull = json.RawMessage("null")

// tabulate turns rows (objects) into the names of their fields, in the
// order first met, and each row's values in that order.
func tabulate(rows []json.RawMessage) ([]string, matrix) {
	cols := []string{}
	index := map[string]int{}
	out := make(matrix, 0, len(rows))
	var ms []member
	for _, r := range rows {
		var err error
		ms, err = appendMembers(ms[:0], r)
		if err != nil { // not an object: a row of one value
			ms = append(ms[:0], member{key: []byte("value"), value: r})
		}
		vals := make([]json.RawMessage, len(cols), len(cols)+len(ms))
		for i := range vals {
			vals[i] = jsonNull
		}
		for j, m := range ms {
			// The API writes every row's fields in one order: the j-th
			// is most often the j-th column, and a comparison is cheaper
			// than a lookup.
			i, ok := j, j < len(cols) && string(m.key) == cols[j]
			if !ok {
				i, ok = index[string(m.key)]
			}
			if !ok {
				i = len(cols)
				index[string(m.key)] = i
				cols = append(cols, string(m.key))
				vals = append(vals, jsonNull)
			}
			vals[i] = m.value
		}
		out = append(out, vals)
	}
	for i := range out { // rows before a column first appeared lack it
		for len(out[i]) < len(cols) {
			out[i] = append(out[i], jsonNull)
		}
	}
	return cols, out
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

// table is the result as a short text: a line of provenance and units,
// then one line per row with the shape's columns, then the note.
func (res *Result) table(tool string, sh shape) string {
	var b strings.Builder
	b.Grow(64 * (len(res.Rows) + 4))
	fmt.Fprintf(&b, "%s · source %s · as_of %s", tool, cmp.Or(res.Source, "-"), res.AsOf)
	if res.AsOfFrom == "read" {
		b.WriteString(" (read time: the answer carries no time of its own)")
	}
	fmt.Fprintf(&b, " · %d rows", res.Count)
	if res.Total > res.Count {
		fmt.Fprintf(&b, " of %d", res.Total)
	}
	b.WriteByte('\n')
	var units []string
	scaled := false
	for _, c := range sh.columns {
		if u, ok := sh.units[c]; ok {
			units = append(units, c+" "+u)
			scaled = scaled || u == "元" || u == "股"
		}
	}
	if len(units) > 0 {
		b.WriteString("units: " + strings.Join(units, ", "))
		if scaled {
			b.WriteString(" (元 and 股 of 1e4 and more written here in 万 = 1e4 or 亿 = 1e8; the structured rows are exact)")
		}
		b.WriteByte('\n')
	}
	// A cell is cut at 80 characters, so that a row stays a line; the
	// one row of an item read in full (a news item's body) is whole.
	width := 80
	if sh.single {
		width = 1 << 20
	}
	if len(res.Rows) > 0 && len(sh.columns) > 0 {
		b.WriteString(strings.Join(sh.columns, " | "))
		b.WriteByte('\n')
		for _, r := range res.Rows {
			for i, c := range sh.columns {
				if i > 0 {
					b.WriteString(" | ")
				}
				writeCell(&b, res.value(r, c), sh.units[c], width)
			}
			b.WriteByte('\n')
		}
	} else if len(res.Rows) == 0 {
		b.WriteString("no rows\n")
	}
	if res.Note != "" {
		b.WriteString("note: " + res.Note + "\n")
	}
	return b.String()
}

// writeCell writes one value: text unquoted, null as -, lists of text
// joined, amounts and share counts of 1e4 and more in 万 or 亿.
func writeCell(b *strings.Builder, raw []byte, unit string, width int) {
	t := bytes.TrimSpace(raw)
	switch {
	case len(t) == 0 || isNull(t):
		b.WriteByte('-')
		return
	case t[0] == '"':
		s, _ := str(t)
		b.WriteString(cut(strings.ReplaceAll(s, "|", "/"), width))
		return
	case t[0] == '[':
		var list []string
		if json.Unmarshal(t, &list) == nil {
			b.WriteString(cut(strings.Join(list, ","), width))
			return
		}
		b.WriteString(cut(string(t), width))
		return
	case t[0] == '{':
		b.WriteString(cut(string(t), width))
		return
	}
	if unit == "元" || unit == "股" {
		if x, err := strconv.ParseFloat(string(t), 64); err == nil {
			var buf [32]byte
			switch a := math.Abs(x); {
			case a >= 1e8:
				b.Write(strconv.AppendFloat(buf[:0], x/1e8, 'f', 2, 64))
				b.WriteString("亿")
				return
			case a >= 1e4:
				b.Write(strconv.AppendFloat(buf[:0], x/1e4, 'f', 2, 64))
				b.WriteString("万")
				return
			}
		}
	}
	b.Write(t)
}

// sortRows orders rows by a numeric field, unknown values last whatever
// the order, ties in their order before.
func sortRows(rows []json.RawMessage, name string, asc bool) {
	type keyed struct {
		row json.RawMessage
		v   float64
		ok  bool
	}
	ks := make([]keyed, len(rows))
	for i, r := range rows {
		v, ok := number(field(r, name))
		ks[i] = keyed{r, v, ok}
	}
	slices.SortStableFunc(ks, func(a, b keyed) int {
		switch {
		case a.ok != b.ok:
			if a.ok {
				return -1
			}
			return 1
		case !a.ok || a.v == b.v:
			return 0
		case (a.v < b.v) == asc:
			return -1
		}
		return 1
	})
	for i, k := range ks {
		rows[i] = k.row
	}
}

// lookup follows a dotted path from the answer's fields through objects
// and lists.
func lookup(fields map[string]json.RawMessage, p string) json.RawMessage {
	head, rest, more := strings.Cut(p, ".")
	if !more {
		return fields[head]
	}
	return path(fields[head], rest)
}

// path follows a dotted path through objects and lists ("0.reason").
func path(raw []byte, p string) []byte {
	for p != "" && raw != nil {
		var head string
		head, p, _ = strings.Cut(p, ".")
		if i, err := strconv.Atoi(head); err == nil {
			list, err := items(raw)
			if err != nil || i >= len(list) {
				return nil
			}
			raw = list[i]
			continue
		}
		raw = field(raw, head)
	}
	return raw
}

func firstString(fields map[string]json.RawMessage, paths ...string) string {
	for _, p := range paths {
		if s, ok := str(lookup(fields, p)); ok && s != "" {
			return s
		}
	}
	return ""
}

// rowsString is the rows' field when they agree, else their values
// joined (the quotes of two sources).
func rowsString(rows []json.RawMessage, name string) string {
	var seen []string
	for _, r := range rows {
		if s, ok := str(field(r, name)); ok && s != "" && !slices.Contains(seen, s) {
			seen = append(seen, s)
		}
	}
	return strings.Join(seen, ",")
}

// rowsLatest is the latest of the rows' times in field (text in the API's
// YYYY-MM-DD HH:MM:SS, which sorts as it reads).
func rowsLatest(rows []json.RawMessage, name string) string {
	latest := ""
	for _, r := range rows {
		if s, ok := str(field(r, name)); ok && s > latest {
			latest = s
		}
	}
	return latest
}

func str(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1]), true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

func number(raw []byte) (float64, bool) {
	if len(raw) == 0 || isNull(raw) || raw[0] == '"' {
		return 0, false
	}
	x, err := strconv.ParseFloat(string(bytes.TrimSpace(raw)), 64)
	return x, err == nil
}

func isNull(raw []byte) bool { return string(bytes.TrimSpace(raw)) == "null" }

func cut(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
