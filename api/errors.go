package api

import (
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

// statusOf is the one table from error kinds to HTTP statuses.
func statusOf(k market.Kind) int {
	switch k {
	case market.KindInvalid:
		return http.StatusBadRequest
	case market.KindUnauthorized:
		return http.StatusUnauthorized
	case market.KindForbidden:
		return http.StatusForbidden
	case market.KindNotFound:
		return http.StatusNotFound
	case market.KindMethodNotAllowed:
		return http.StatusMethodNotAllowed
	case market.KindConflict:
		return http.StatusConflict
	case market.KindTooLarge:
		return http.StatusRequestEntityTooLarge
	case market.KindRateLimited:
		return http.StatusTooManyRequests
	case market.KindUnavailable:
		return http.StatusServiceUnavailable
	case market.KindHeaderTooLarge:
		return http.StatusRequestHeaderFieldsTooLarge
	case market.KindURITooLong:
		return http.StatusRequestURITooLong
	case market.KindMisdirected:
		return http.StatusMisdirectedRequest
	default:
		return http.StatusInternalServerError
	}
}

// failure is the spec's failure envelope: code 0, a message, no data.
// Detail is our addition: what exactly was wrong, for the script author.
type failure struct {
	Code       int    `json:"code"`
	Message    string `json:"message"`
	Detail     string `json:"detail,omitempty"`
	RetryAfter int    `json:"retry_after,omitempty"`
}

// writeError is the one place an error becomes a response. Internal errors
// are logged with their cause and shown to the client only as a generic
// message.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var e *market.Error
	if !errors.As(err, &e) {
		e = &market.Error{Kind: market.KindInternal, Err: err}
	}
	status := statusOf(e.Kind)
	body := failure{Code: 0, Message: e.Message, Detail: e.Detail}
	if body.Message == "" {
		body.Message = market.DefaultMessage(e.Kind)
	}
	switch e.Kind {
	case market.KindInternal:
		body.Detail = ""
		s.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	case market.KindUnavailable:
		if e.Err != nil {
			s.log.Warn("request unavailable", "method", r.Method, "path", r.URL.Path, "err", err)
		}
	case market.KindUnauthorized:
		w.Header().Set("WWW-Authenticate", `Bearer realm="mdqs"`)
	}
	if (e.Kind == market.KindRateLimited || e.Kind == market.KindUnavailable) && e.RetryAfter != market.NoRetry {
		wait := e.RetryAfter
		if wait == 0 {
			// An upstream whose circuit is open is not asked again before
			// its next probe, so an earlier retry would only be refused.
			wait = upstream.RetryIn(err)
		}
		// Whole seconds, rounded up: Retry-After has no finer unit, and
		// rounding down would send the client back too early.
		body.RetryAfter = max(1, int((wait+time.Second-1)/time.Second))
		w.Header().Set("Retry-After", strconv.Itoa(body.RetryAfter))
	}
	writeJSON(w, status, body)
}

func (s *Server) logPanic(r *http.Request, v any) {
	s.log.Error("handler panicked", slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.Any("panic", v))
}

// fedBy marks an endpoint whose answers come from data the named start-up
// jobs provide. While one of them has yet to complete a run, the data may
// be on its way: a not-found, or an unavailable without an outage behind
// it (such as "no corporate actions imported"), is then that job's 503 with Retry-After ("starting
// up: the end-of-day derivation has not run yet", or the failure of its
// first run), never a 404 saying the data does not exist. Once they have
// run, a not-found is one again.
// outage says err is an unavailable with a cause (an upstream's failure or
// timeout), not a state still to be reached ("no corporate actions
// imported").
func outage(err error) bool {
	var e *market.Error
	return errors.As(err, &e) && e.Kind == market.KindUnavailable && e.Err != nil
}

func (s *Server) fedBy(h handlerFunc, jobNames ...string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		err := h(w, r)
		if k := market.KindOf(err); err == nil || (k != market.KindNotFound && k != market.KindUnavailable) || s.Jobs == nil {
			return err
		}
		for _, name := range jobNames {
			pending := s.Jobs.Pending(name)
			if pending == nil {
				continue
			}
			if market.KindOf(err) == market.KindUnavailable && (s.Jobs.Failed(name) || outage(err)) {
				// The job failed, or the answer met an outage of its own
				// (an upstream that hangs also keeps the job from running):
				// the handler's own 503 names the source.
				return err
			}
			return pending
		}
		return err
	}
}
