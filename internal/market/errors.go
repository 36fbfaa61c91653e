// Package market holds the service's domain: market types, the trading
// calendar, security codes, the clock and the one error type every layer
// returns. It imports nothing of ours, so every other package can depend on it.
package market

import (
	"errors"
	"fmt"
	"time"
)

// Kind classifies an error once, where it happens; the API layer maps each
// kind to an HTTP status in one table.
type Kind uint8

const (
	KindInternal Kind = iota
	KindInvalid
	KindUnauthorized
	KindForbidden
	KindNotFound
	KindMethodNotAllowed
	KindConflict
	KindTooLarge
	KindRateLimited
	KindUnavailable
	KindHeaderTooLarge // the request's header fields are over the server's bound
	KindURITooLong     // the request target (path and query) is over the server's bound
	KindMisdirected    // the request's Host names a server this one is not (421)
)

var kindNames = [...]string{
	KindInternal:         "internal",
	KindInvalid:          "invalid",
	KindUnauthorized:     "unauthorized",
	KindForbidden:        "forbidden",
	KindNotFound:         "not_found",
	KindMethodNotAllowed: "method_not_allowed",
	KindConflict:         "conflict",
	KindTooLarge:         "too_large",
	KindRateLimited:      "rate_limited",
	KindUnavailable:      "unavailable",
	KindHeaderTooLarge:   "header_too_large",
	KindURITooLong:       "uri_too_long",
	KindMisdirected:      "misdirected",
}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// Error is the service's error. Message is what a client may read (the spec's
// texts, such as "board not found"); Detail says precisely what was wrong with
// the request and is also safe to show; Err is the cause, for logs only.
type Error struct {
	Kind    Kind
	Message string
	Detail  string
	Err     error
	// RetryAfter, when set on a rate_limited or unavailable error, is how
	// long the client should wait before asking again; NoRetry says that
	// asking again will not help.
	RetryAfter time.Duration
}

// NoRetry as an unavailable error's RetryAfter marks a service this server
// is not configured to give (no terminal folder, no news feed): only a
// change of configuration cures it, so the answer claims no retry time.
const NoRetry time.Duration = -1

// NotConfigured is the unavailable error of a service the configuration
// leaves out; detail says which setting turns it on.
func NotConfigured(format string, args ...any) error {
	return &Error{Kind: KindUnavailable, Message: DefaultMessage(KindUnavailable), Detail: fmt.Sprintf(format, args...), RetryAfter: NoRetry}
}

func (e *Error) Error() string {
	s := e.Message
	if s == "" {
		s = e.Kind.String()
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf builds an error of a kind whose message is the spec's text for that
// kind and whose detail is formatted from the arguments.
func Errorf(kind Kind, format string, args ...any) error {
	return &Error{Kind: kind, Message: DefaultMessage(kind), Detail: fmt.Sprintf(format, args...)}
}

// E builds an error with an explicit client-facing message, for the spec's
// endpoint-specific texts ("invalid sort field", "board not found").
func E(kind Kind, message string) error {
	return &Error{Kind: kind, Message: message}
}

// Wrap classifies a cause. The cause's text goes to logs, never to clients.
func Wrap(kind Kind, err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	return &Error{Kind: kind, Message: DefaultMessage(kind), Detail: fmt.Sprintf(format, args...), Err: err}
}

// KindOf reports the kind of the first *Error in err's chain; anything
// unclassified is internal.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return KindInternal
}

// DefaultMessage is the spec's message for a kind (section 7).
func DefaultMessage(k Kind) string {
	switch k {
	case KindInvalid:
		return "missing or invalid params"
	case KindUnauthorized:
		return "unauthorized"
	case KindForbidden:
		return "forbidden"
	case KindNotFound:
		return "not found"
	case KindMethodNotAllowed:
		return "method not allowed"
	case KindConflict:
		return "conflict"
	case KindTooLarge:
		return "request body too large"
	case KindRateLimited:
		return "too many requests"
	case KindUnavailable:
		return "service unavailable"
	case KindHeaderTooLarge:
		return "request header fields too large"
	case KindURITooLong:
		return "request URI too long"
	case KindMisdirected:
		return "misdirected request"
	default:
		return "internal error"
	}
}
