package api

import (
	"net/http"
	"net/http/pprof"
	"strings"
	"sync"
	"time"

	"mdqs/internal/market"
)

// maxProfileSeconds bounds ?seconds=: a longer look is a job for a
// continuous profiler, not for a request held open.
const maxProfileSeconds = 300

// pprofRoutes serves the Go profiler (net/http/pprof) under /debug/pprof/,
// behind the access rule of /metrics. They are operator routes like
// /metrics, not part of the API's contract: net/http/pprof's handlers
// answer in the runtime's own formats, documented by Go.
//
// Importing net/http/pprof also registers its handlers on
// http.DefaultServeMux; mdqs never serves that mux, so they stay
// unreachable there.
func (s *Server) pprofRoutes() {
	cpu := &exclusive{what: "a CPU profile"}
	trace := &exclusive{what: "an execution trace"}
	s.pprofRoute(http.MethodGet, "/debug/pprof/", pprof.Index, nil, 0)
	s.pprofRoute(http.MethodGet, "/debug/pprof/cmdline", pprof.Cmdline, nil, 0)
	s.pprofRoute(http.MethodGet, "/debug/pprof/profile", pprof.Profile, cpu, 30) // pprof's defaults
	s.pprofRoute(http.MethodGet, "/debug/pprof/trace", pprof.Trace, trace, 1)
	s.pprofRoute(http.MethodGet, "/debug/pprof/symbol", pprof.Symbol, nil, 0)
	s.pprofRoute(http.MethodPost, "/debug/pprof/symbol", pprof.Symbol, nil, 0)
	// The profiles runtime/pprof keeps; fixed routes rather than a
	// wildcard, so an unknown name is the router's 404 envelope (a test
	// checks that the runtime offers no profile missing here).
	for _, name := range pprofProfiles() {
		s.pprofRoute(http.MethodGet, "/debug/pprof/"+name, pprof.Handler(name).ServeHTTP, nil, 0)
	}
}

func pprofProfiles() []string {
	return []string{"allocs", "block", "goroutine", "heap", "mutex", "threadcreate"}
}

// isPprof says whether a path is one of the profiler's.
func isPprof(path string) bool { return strings.HasPrefix(path, "/debug/pprof/") }

// pprofRoute registers one profiler handler. Its parameters are checked
// first, like every endpoint's, so that bad input is a 400 envelope rather
// than pprof's plain text; defSeconds is how long the handler runs when
// ?seconds= is absent (0: it answers at once unless asked for a delta).
func (s *Server) pprofRoute(method, path string, h http.HandlerFunc, one *exclusive, defSeconds int) {
	serve := s.adapt(func(w http.ResponseWriter, r *http.Request) error {
		q := newQuery(r)
		q.intIn("debug", 0, 0, 2)
		q.intIn("gc", 0, 0, 1)
		secs := q.intIn("seconds", defSeconds, 1, maxProfileSeconds)
		if err := q.Err(); err != nil {
			return err
		}
		d := time.Duration(secs) * time.Second
		// pprof refuses this too, but in plain text: the answer could not
		// be written after the server's write deadline.
		if srv, ok := r.Context().Value(http.ServerContextKey).(*http.Server); ok && srv.WriteTimeout > 0 && d >= srv.WriteTimeout {
			return market.Errorf(market.KindInvalid, "seconds must be less than the server's write timeout (%s; server.write_timeout)", srv.WriteTimeout)
		}
		if one != nil {
			release, err := one.acquire(d)
			if err != nil {
				return err
			}
			defer release()
		}
		if r.Method == http.MethodPost {
			// From loopback nothing else bounds the body (authenticate
			// does for other callers).
			r.Body = http.MaxBytesReader(w, r.Body, s.MaxBodyBytes)
		}
		h(w, r)
		return nil
	})
	s.register(method, path, s.localOrAdmin(serve))
}

// exclusive lets one request at a time take a CPU profile or an execution
// trace: the runtime has one of each, and pprof would answer a second
// caller with a 500.
type exclusive struct {
	what  string
	mu    sync.Mutex
	busy  bool
	until time.Time // when the running one should end
}

// acquire takes the slot for d or says when to try again. It reads the
// wall clock, not the server's: a profile lasts real seconds, whatever
// time the server is told it is.
func (e *exclusive) acquire(d time.Duration) (release func(), err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	now := time.Now()
	if e.busy {
		return nil, &market.Error{Kind: market.KindRateLimited, Message: "too many requests",
			Detail:     e.what + " is being taken, and the runtime takes one at a time; retry after the time in retry_after (seconds)",
			RetryAfter: max(e.until.Sub(now), time.Second)}
	}
	e.busy, e.until = true, now.Add(d)
	return func() {
		e.mu.Lock()
		e.busy = false
		e.mu.Unlock()
	}, nil
}
