package upstream

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Kind classifies what went wrong with an upstream call, once, where it is
// detected. The health endpoint shows it and the retry loop decides on it.
//
// Kind implements error so that errors.Is(err, upstream.KindSchema) works on
// any error chain that holds an *Error, without mutable sentinel variables.
type Kind uint8

const (
	KindNone        Kind = iota
	KindTransport        // connection refused/reset, DNS, TLS, proxy: nothing usable arrived
	KindTimeout          // the per-attempt timeout of the source passed
	KindHTTPStatus       // a non-2xx HTTP status (Status holds it)
	KindRC               // the envelope's rc was not 0 (RC holds it); rc=100 is "no data / bad secid"
	KindHTML             // an HTML page (ban page, proxy portal, nginx error) instead of JSON
	KindTruncated        // the body stops mid-JSON or short of its Content-Length
	KindMalformed        // not JSON at all, or broken inside (not merely cut short)
	KindSchema           // a required field is missing, renamed or of the wrong type (Field names it)
	KindEmpty            // the upstream answered OK with no rows where rows are always expected
	KindPartial          // paging stopped before data.total rows arrived; the rows that did are returned too
	KindCanceled         // the caller's context ended (canceled or past its deadline); not an upstream failure
	KindCircuitOpen      // not sent: the source's circuit breaker is open after repeated failures
)

var kindNames = [...]string{
	KindNone:        "none",
	KindTransport:   "transport",
	KindTimeout:     "timeout",
	KindHTTPStatus:  "http_status",
	KindRC:          "rc",
	KindHTML:        "html",
	KindTruncated:   "truncated",
	KindMalformed:   "malformed",
	KindSchema:      "schema",
	KindEmpty:       "empty",
	KindPartial:     "partial",
	KindCanceled:    "canceled",
	KindCircuitOpen: "circuit_open",
}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Error makes a Kind usable as an errors.Is target.
func (k Kind) Error() string { return "upstream: " + k.String() }

// MarshalText lets Status serialise kinds as their names.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// retryable: failures that another attempt may cure. rc != 0, schema drift,
// HTML (usually a ban or portal page) and 4xx are answers, and asking again
// only adds load on a host that may already be counting us.
func (e *Error) retryable() bool {
	switch e.Kind {
	case KindTransport, KindTimeout, KindTruncated:
		return true
	case KindHTTPStatus:
		return e.Status >= 500 || e.Status == 429
	}
	return false
}

// Error is every failure the upstream clients return. It carries the URL path
// only: queries and proxy URLs never reach error texts or logs.
type Error struct {
	Kind     Kind
	Source   string // "push2", "push2his", "akshare"
	Path     string // URL path of the request, e.g. /api/qt/clist/get
	Field    string // KindSchema: the field at fault (f62, data.total, klines[3], 今日涨跌幅)
	Status   int    // KindHTTPStatus: the HTTP status
	RC       int    // KindRC: the envelope's rc
	Detail   string // upstream-supplied or diagnostic text (AKTools error, page title), short
	Attempts int    // HTTP attempts made, retries included
	Err      error  // the cause, if any

	retryAfter time.Duration // from a Retry-After header
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("upstream")
	if e.Source != "" {
		b.WriteString(" " + e.Source)
	}
	if e.Path != "" {
		b.WriteString(" " + e.Path)
	}
	b.WriteString(": " + e.Kind.String())
	switch e.Kind {
	case KindHTTPStatus:
		fmt.Fprintf(&b, " %d", e.Status)
	case KindRC:
		fmt.Fprintf(&b, " %d", e.RC)
	}
	if e.Field != "" {
		fmt.Fprintf(&b, " field %q", e.Field)
	}
	if e.Detail != "" {
		b.WriteString(": " + e.Detail)
	}
	if e.Err != nil {
		b.WriteString(": " + e.Err.Error())
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " (after %d attempts)", e.Attempts)
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Is matches a Kind target: errors.Is(err, upstream.KindTimeout).
func (e *Error) Is(target error) bool {
	k, ok := target.(Kind)
	return ok && e.Kind == k
}

// RetryIn is how long until asking the source again can help, as far as
// the failure in err's chain says: for a call the circuit breaker refused,
// the time to its next probe; for an upstream that answered with a
// Retry-After, that wait. 0 is unknown.
func RetryIn(err error) time.Duration {
	var e *Error
	if !errors.As(err, &e) || e.retryAfter < 0 {
		return 0
	}
	return e.retryAfter
}

// KindOf is the kind of the first *Error in err's chain, KindNone if there is
// none.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return KindNone
}

func schemaErr(field, format string, args ...any) *Error {
	return &Error{Kind: KindSchema, Field: field, Detail: fmt.Sprintf(format, args...)}
}
