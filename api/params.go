package api

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"mdqs/internal/market"
)

// query collects typed query parameters and keeps the first problem, so a
// handler reads every parameter and then checks once. The problem becomes a
// 400 whose message is the spec's text for the parameter (by default
// "missing or invalid params") and whose detail names the parameter.
//
// The parameters are a list in the order sent, searched by name, not a
// url.Values: a query string has a handful of them, and the map with a
// slice per name was five allocations and most of a microsecond on every
// request, a fifth of what mdqs adds to a small cached answer (issue 19).
type query struct {
	params []param
	inline [8]param // params' storage for the usual short query
	err    error
}

type param struct{ name, value string }

// The bounds every query string meets before a handler reads it. The
// longest legitimate value is a list of 50 codes (about 500 bytes); past
// these a value is a mistake or an attack, and passing it on would reach
// SQLite (whose LIKE refuses patterns over 50,000 bytes with an error that
// would surface as a 500) or the logs.
const (
	maxQueryBytes = 8 << 10 // the whole query string, escaped
	maxValueBytes = 1 << 10 // one value, unescaped
	maxNameBytes  = 64      // one parameter name
)

// newQuery parses the request's query string and checks its shape once,
// for every endpoint: at most maxQueryBytes, well-formed escapes, and
// names and values of bounded length that are UTF-8 text without control
// characters. A query that fails is a 400 naming the parameter, and its
// values are dropped, so nothing of it reaches a handler's later steps.
func newQuery(r *http.Request) *query {
	q := &query{}
	raw := r.URL.RawQuery
	if len(raw) > maxQueryBytes {
		q.fail("", "the query string is %d bytes; at most %d are accepted", len(raw), maxQueryBytes)
		return q
	}
	ps, err := parseParams(q.inline[:0], raw)
	if err != nil {
		q.fail("", "the query string is malformed (%v): escape %% as %%25 and separate parameters with &", err)
		return q
	}
	for _, p := range ps {
		if badText(p.name, maxNameBytes) != "" || badText(p.value, maxValueBytes) != "" {
			q.failShape(ps)
			return q
		}
	}
	q.params = ps
	return q
}

// parseParams splits a query string as url.ParseQuery does (the same
// escapes, the same refusal of ";") into dst, keeping the order sent.
func parseParams(dst []param, raw string) ([]param, error) {
	var first error
	for raw != "" {
		var part string
		part, raw, _ = strings.Cut(raw, "&")
		if strings.Contains(part, ";") {
			if first == nil {
				first = errors.New("invalid semicolon separator in query")
			}
			continue
		}
		if part == "" {
			continue
		}
		name, value, _ := strings.Cut(part, "=")
		name, err := url.QueryUnescape(name) // returns its argument, no copy, when nothing is escaped
		if err == nil {
			value, err = url.QueryUnescape(value)
		}
		if err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		dst = append(dst, param{name, value})
	}
	return dst, first
}

// failShape reports the query's first bad name or value, looking at names
// in sorted order so the answer does not depend on the order sent.
func (q *query) failShape(ps []param) {
	sorted := slices.Clone(ps)
	slices.SortStableFunc(sorted, func(a, b param) int { return strings.Compare(a.name, b.name) })
	for i, p := range sorted {
		if i == 0 || p.name != sorted[i-1].name {
			if why := badText(p.name, maxNameBytes); why != "" {
				q.fail("", "a parameter name %s", why)
				return
			}
		}
		if why := badText(p.value, maxValueBytes); why != "" {
			q.fail("", "%s %s", p.name, why)
			return
		}
	}
}

// badText says what is wrong with a parameter name or value, "" if
// nothing.
func badText(s string, limit int) string {
	if len(s) > limit {
		return fmt.Sprintf("is %d bytes long; at most %d are accepted", len(s), limit)
	}
	if !utf8.ValidString(s) {
		return "is not valid UTF-8 text"
	}
	for _, c := range s {
		if c < 0x20 || c == 0x7f {
			return fmt.Sprintf("contains the control character %U; send text only", c)
		}
	}
	return ""
}

func (q *query) fail(message, format string, args ...any) {
	if q.err == nil {
		e := market.Errorf(market.KindInvalid, format, args...).(*market.Error)
		if message != "" {
			e.Message = message
		}
		q.err = e
	}
}

// Err is the first problem found, if any.
func (q *query) Err() error { return q.err }

// get is the first value sent for name.
func (q *query) get(name string) (string, bool) {
	for _, p := range q.params {
		if p.name == name {
			return p.value, true
		}
	}
	return "", false
}

// has reports whether the parameter was sent (even empty).
func (q *query) has(name string) bool { _, ok := q.get(name); return ok }

// str is the trimmed value of the first of names that was sent.
func (q *query) str(names ...string) string {
	for _, n := range names {
		if v, ok := q.get(n); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// day reads YYYYMMDD or YYYY-MM-DD; absent gives ok = false. message is the
// spec's text for a bad date at this endpoint ("" for the default).
func (q *query) day(name, message string) (market.Day, bool) {
	s := q.str(name)
	if s == "" {
		if q.has(name) {
			q.fail(message, "%s must be a date YYYYMMDD or YYYY-MM-DD", name)
		}
		return 0, false
	}
	d, err := market.ParseDay(s)
	if err != nil {
		q.fail(message, "%s: %v", name, err)
		return 0, false
	}
	return d, true
}

// span reads the optional dates start and end (0 where absent); start
// after end is a bad request.
func (q *query) span() (from, to market.Day) {
	from, _ = q.day("start", "")
	to, _ = q.day("end", "")
	if from != 0 && to != 0 && from > to {
		q.fail("", "start %s is after end %s", from, to)
	}
	return from, to
}

// clock reads a time of day HH:MM; absent gives ok = false. what says
// which times are meant, for the message of a malformed one.
func (q *query) clock(name, what string) (market.TimeOfDay, bool) {
	s := q.str(name)
	if s == "" {
		if q.has(name) {
			q.fail("", "%s must be HH:MM, %s", name, what)
		}
		return 0, false
	}
	t, err := market.ParseTimeOfDay(s)
	if err != nil {
		q.fail("", "%s must be HH:MM, %s; got %q", name, what, s)
		return 0, false
	}
	return t, true
}

// intIn reads an integer in [lo, hi]; absent gives def.
func (q *query) intIn(name string, def, lo, hi int) int {
	s := q.str(name)
	if s == "" {
		if q.has(name) {
			q.fail("", "%s must be an integer from %d to %d", name, lo, hi)
		}
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		q.fail("", "%s must be an integer from %d to %d, got %q", name, lo, hi, s)
		return def
	}
	return n
}

// flag reads a boolean: 1/true/yes or 0/false/no (any case); absent is
// false.
func (q *query) flag(name string) bool {
	s := strings.ToLower(q.str(name))
	switch s {
	case "1", "true", "yes":
		return true
	case "", "0", "false", "no":
		if v, _ := q.get(name); s == "" && v != "" {
			break
		}
		return false
	}
	q.fail("", "%s must be 1, true, 0 or false, got %q", name, q.str(name))
	return false
}

// oneOf reads one of the allowed values; absent gives def.
func (q *query) oneOf(name, message, def string, allowed ...string) string {
	s := q.str(name)
	if s == "" {
		return def
	}
	for _, a := range allowed {
		if s == a {
			return s
		}
	}
	q.fail(message, "%s must be one of %s, got %q", name, strings.Join(allowed, ", "), s)
	return def
}

// float reads a finite number; absent gives ok = false.
func (q *query) float(name string) (float64, bool) {
	s := q.str(name)
	if s == "" {
		if q.has(name) {
			q.fail("", "%s must be a number", name)
		}
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != f || f > 1e300 || f < -1e300 {
		q.fail("", "%s must be a finite number, got %q", name, s)
		return 0, false
	}
	return f, true
}

// instant reads a time bound: YYYY-MM-DD, YYYYMMDD, "YYYY-MM-DD HH:MM" or
// "YYYY-MM-DD HH:MM:SS", Asia/Shanghai. A bare date means the start of the
// day, or its last second when endOfDay is set (so end=2026-11-20 includes
// that day). Absent gives ok = false.
func (q *query) instant(name string, endOfDay bool) (time.Time, bool) {
	s := q.str(name)
	if s == "" {
		if q.has(name) {
			q.fail("", "%s must be YYYY-MM-DD, YYYYMMDD or YYYY-MM-DD HH:MM:SS", name)
		}
		return time.Time{}, false
	}
	if d, err := market.ParseDay(s); err == nil {
		if endOfDay {
			return d.At(23, 59, 59), true
		}
		return d.Start(), true
	}
	for _, layout := range []string{time.DateTime, "2006-01-02 15:04"} {
		if t, err := time.ParseInLocation(layout, s, market.Shanghai()); err == nil {
			return t, true
		}
	}
	q.fail("", "%s must be YYYY-MM-DD, YYYYMMDD or YYYY-MM-DD HH:MM:SS, got %q", name, s)
	return time.Time{}, false
}

// code reads a security code in any form market.ParseCode accepts;
// required reports a missing one.
func (q *query) code(name string, required bool) (market.Code, bool) {
	s := q.str(name)
	if s == "" {
		if required || q.has(name) {
			q.fail("", "%s is required: a security code such as 600519.SH, sh600519 or 600519", name)
		}
		return market.Code{}, false
	}
	c, err := market.ParseCode(s)
	if err != nil {
		q.fail("", "%s: %v", name, err)
		return market.Code{}, false
	}
	return c, true
}

// freq reads D, 1m or 5m (required when def is "").
func (q *query) freq(name string, def market.Freq) market.Freq {
	s := q.str(name)
	if s == "" {
		if def == "" {
			q.fail("", "%s is required: D, 1m or 5m", name)
		}
		return def
	}
	f, err := market.ParseFreq(s)
	if err != nil {
		q.fail("", "%s: %v", name, err)
		return def
	}
	return f
}
