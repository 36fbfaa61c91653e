package api

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"mdqs/market"
)

// query collects typed query parameters and keeps the first problem, so a
// handler reads every parameter and then checks once. The problem becomes a
// 400 whose message is the spec's text for the parameter (by default
// "missing or invalid params") and whose detail names the parameter.
type query struct {
	v   url.Values
	err error
}

func newQuery(r *http.Request) *query { return &query{v: r.URL.Query()} }

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

// has reports whether the parameter was sent (even empty).
func (q *query) has(name string) bool { _, ok := q.v[name]; return ok }

// str is the trimmed value of the first of names that was sent.
func (q *query) str(names ...string) string {
	for _, n := range names {
		if v, ok := q.v[n]; ok && len(v) > 0 {
			return strings.TrimSpace(v[0])
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
		if s == "" && q.has(name) && q.v.Get(name) != "" {
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
