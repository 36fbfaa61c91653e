package mcpserver

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

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
