package upstream

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// unwrapJSONP returns the JSON text of a body that is either plain JSON or a
// JSONP call "cb(...)" / "cb(...);". EastMoney answers JSONP whenever a cb
// parameter is present (mirrors and caches have been seen adding it), so
// both forms are accepted. closed is false when a JSONP body lacks its
// closing parenthesis: it was cut short.
func unwrapJSONP(b []byte) (inner []byte, closed bool) {
	b = bytes.TrimPrefix(bytes.TrimSpace(b), []byte("\xef\xbb\xbf"))
	b = bytes.TrimSpace(b)
	i := 0
	for i < len(b) && isIdentByte(b[i]) {
		i++
	}
	if i == 0 || i == len(b) {
		return b, true
	}
	j := i
	for j < len(b) && isSpace(b[j]) {
		j++
	}
	if j == len(b) || b[j] != '(' {
		return b, true
	}
	inner = bytes.TrimSpace(b[j+1:])
	inner = bytes.TrimSpace(bytes.TrimSuffix(inner, []byte(";")))
	if !bytes.HasSuffix(inner, []byte(")")) {
		return inner, false
	}
	return bytes.TrimSpace(inner[:len(inner)-1]), true
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// endsMidValue reports JSON text that stops inside a string or an open
// object/array (or holds nothing): the mark of a body cut short, as opposed
// to one broken in the middle (a closer that does not match its opener, as
// in a hand-abridged capture). It needs no valid JSON, only bracket and
// string state, so a truncated body is recognised wherever it stops.
func endsMidValue(b []byte) bool {
	var open []byte // expected closers
	inStr, esc, seen := false, false, false
	for _, c := range b {
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr, seen = true, true
		case '{':
			open, seen = append(open, '}'), true
		case '[':
			open, seen = append(open, ']'), true
		case '}', ']':
			if len(open) == 0 || open[len(open)-1] != c {
				return false
			}
			open = open[:len(open)-1]
		case ' ', '\t', '\n', '\r':
		default:
			seen = true
		}
	}
	return inStr || len(open) > 0 || !seen
}

// decodeJSON unmarshals a JSON or JSONP body into v and classifies failure:
// Truncated (retried), Schema (valid JSON of another shape) or Malformed.
func decodeJSON(body []byte, v any) error {
	inner, closed := unwrapJSONP(body)
	if err := json.Unmarshal(inner, v); err != nil {
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &te):
			field := te.Field
			if field == "" {
				field = "(top level)"
			}
			return schemaErr(field, "want %s, got JSON %s", te.Type, te.Value)
		case endsMidValue(inner):
			return &Error{Kind: KindTruncated, Detail: fmt.Sprintf("body ends mid-JSON after %d bytes", len(body))}
		}
		return &Error{Kind: KindMalformed, Detail: "invalid JSON", Err: err}
	}
	if !closed {
		return &Error{Kind: KindTruncated, Detail: "JSONP body lacks its closing parenthesis"}
	}
	return nil
}

// state is how a field arrived.
type state uint8

const (
	absent state = iota // key not in the row: schema drift
	na                  // "-", "", null: the upstream says "not applicable"
	ok
	bad // a type the field never has
)

// numOf reads a numeric field that EastMoney and AKTools may send as a JSON
// number, a numeric string, "-" or null.
func numOf(raw json.RawMessage) (float64, state) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return math.NaN(), absent
	}
	switch c := raw[0]; {
	case c == 'n' && string(raw) == "null":
		return math.NaN(), na
	case c == '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return math.NaN(), bad
		}
		return parseNumText(s)
	case c == '-' || c >= '0' && c <= '9':
		return parseNumText(string(raw))
	}
	return math.NaN(), bad
}

// parseNumText parses the text of a number the way both the JSON and the
// CSV rows of EastMoney write them. strconv.ParseFloat alone would also take
// "NaN", "Inf", hex floats and underscores, none of which an upstream means.
func parseNumText(s string) (float64, state) {
	s = strings.TrimSpace(s)
	switch s {
	case "-", "--", "":
		return math.NaN(), na
	}
	if !isDecimal(s) {
		return math.NaN(), bad
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) {
		return math.NaN(), bad
	}
	return v, ok
}

// isDecimal: [+-] digits [. digits] [e [+-] digits], with a digit on at
// least one side of the point.
func isDecimal(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			exp++
		}
		if exp == 0 {
			return false
		}
	}
	return i == len(s)
}

// strOf reads a text field; "-" and null mean not applicable. A number where
// text belongs is a type change, not a value: codes such as "000001" lose
// their zeros as numbers.
func strOf(raw json.RawMessage) (string, state) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", absent
	}
	if string(raw) == "null" {
		return "", na
	}
	if raw[0] != '"' {
		return "", bad
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", bad
	}
	s = strings.TrimSpace(s)
	if s == "-" || s == "--" || s == "" {
		return "", na
	}
	return s, ok
}

// check gathers the schema verdict over all rows of one reply. A required
// field that is absent, of the wrong type or (for identifiers) "-" fails the
// call; an optional one degrades to NaN / -1 and is noted as drift for the
// health endpoint.
type check struct {
	err   *Error
	drift map[string]*driftNote
}

type driftNote struct {
	why  string
	rows int
}

func (c *check) fail(field, format string, args ...any) {
	if c.err == nil {
		c.err = schemaErr(field, format, args...)
	}
}

func (c *check) note(field, why string) {
	if c.drift == nil {
		c.drift = map[string]*driftNote{}
	}
	n := c.drift[field]
	if n == nil {
		n = &driftNote{why: why}
		c.drift[field] = n
	}
	n.rows++
}

// driftText summarises optional-field drift, "" when there was none.
func (c *check) driftText() string {
	if len(c.drift) == 0 {
		return ""
	}
	fields := make([]string, 0, len(c.drift))
	for f := range c.drift {
		fields = append(fields, f)
	}
	sort.Strings(fields)
	parts := make([]string, len(fields))
	for i, f := range fields {
		n := c.drift[f]
		parts[i] = fmt.Sprintf("%s %s in %d rows", f, n.why, n.rows)
	}
	return "optional fields: " + strings.Join(parts, "; ")
}

type row struct {
	m     map[string]json.RawMessage
	where string // "row 12", for error texts
	c     *check
}

func (r row) reqStr(key string) string {
	s, st := strOf(r.m[key])
	switch st {
	case absent:
		r.c.fail(key, "missing in %s", r.where)
	case na:
		r.c.fail(key, "empty or \"-\" in %s", r.where)
	case bad:
		r.c.fail(key, "not a string in %s: %s", r.where, clip(string(r.m[key]), 40))
	}
	return s
}

func (r row) optStr(key string) string {
	s, st := strOf(r.m[key])
	switch st {
	case absent:
		r.c.note(key, "absent")
	case bad:
		r.c.note(key, "not a string")
	}
	return s
}

// reqNum: the key must be there; "-" is still a legitimate NaN (a board
// listed today has no pct yet).
func (r row) reqNum(key string) float64 {
	v, st := numOf(r.m[key])
	switch st {
	case absent:
		r.c.fail(key, "missing in %s", r.where)
	case bad:
		r.c.fail(key, "not a number in %s: %s", r.where, clip(string(r.m[key]), 40))
	}
	return v
}

func (r row) optNum(key string) float64 {
	v, st := numOf(r.m[key])
	switch st {
	case absent:
		r.c.note(key, "absent")
	case bad:
		r.c.note(key, "not a number")
		return math.NaN()
	}
	return v
}

// optCount is a member count; -1 when unknown, as market.Sector documents.
func (r row) optCount(key string) int {
	v := r.optNum(key)
	if math.IsNaN(v) || v < math.MinInt32 || v > math.MaxInt32 {
		return -1
	}
	return int(math.Round(v))
}

// objects decodes each element of a JSON array or of an object keyed
// "0","1",... (push2 without np=1) into a field map, in index order.
func objects(raw json.RawMessage, field string) ([]map[string]json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var elems []json.RawMessage
	switch raw[0] {
	case '[':
		if err := json.Unmarshal(raw, &elems); err != nil {
			return nil, schemaErr(field, "not an array of rows")
		}
	case '{':
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil {
			return nil, schemaErr(field, "not an object of rows")
		}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return indexLess(keys[i], keys[j]) })
		for _, k := range keys {
			elems = append(elems, obj[k])
		}
	default:
		return nil, schemaErr(field, "want an array or object of rows, got %s", clip(string(raw), 20))
	}
	out := make([]map[string]json.RawMessage, 0, len(elems))
	for i, e := range elems {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(e, &m); err != nil || m == nil {
			return nil, schemaErr(fmt.Sprintf("%s[%d]", field, i), "row is not an object")
		}
		out = append(out, m)
	}
	return out, nil
}

// indexLess orders "2" before "10"; keys that are not numbers go last.
func indexLess(a, b string) bool {
	x, ea := strconv.Atoi(a)
	y, eb := strconv.Atoi(b)
	switch {
	case ea == nil && eb == nil:
		return x < y
	case ea == nil:
		return true
	case eb == nil:
		return false
	}
	return a < b
}

func isNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}

// clip shortens upstream text for error details, on a rune boundary.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
