package api

import (
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"mdqs/internal/auth"
	"mdqs/internal/upstream"
)

// httpMetrics are the request figures of every route, for /metrics.
type httpMetrics struct {
	requests *prometheus.CounterVec   // route, method, code
	duration *prometheus.HistogramVec // route
	bytes    *prometheus.CounterVec   // route
	inFlight atomic.Int64
}

func newHTTPMetrics() *httpMetrics {
	return &httpMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mdqs_http_requests_total",
			Help: "HTTP requests answered, by route pattern, method and status code. Paths no route matches count under route=\"unmatched\".",
		}, []string{"route", "method", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "mdqs_http_request_duration_seconds",
			Help:    "Time from the request's arrival at its route to the handler's return, by route.",
			Buckets: upstream.LatencyBuckets,
		}, []string{"route"}),
		bytes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mdqs_http_response_bytes_total",
			Help: "Response body bytes written, by route.",
		}, []string{"route"}),
	}
}

// routeStats are one registered route's request figures. Their series are
// looked up when the route is registered, so the hot path only finds its
// status counter in a small map (a vector's label lookup hashes the labels
// on every call).
type routeStats struct {
	route    string
	latency  prometheus.Observer
	bytes    prometheus.Counter
	requests *prometheus.CounterVec // curried with the route

	mu    sync.RWMutex
	count map[methodStatus]prometheus.Counter
}

type methodStatus struct {
	method string
	status int
}

func (m *httpMetrics) route(route string) *routeStats {
	return &routeStats{
		route:    route,
		latency:  m.duration.WithLabelValues(route),
		bytes:    m.bytes.WithLabelValues(route),
		requests: m.requests.MustCurryWith(prometheus.Labels{"route": route}),
		count:    map[methodStatus]prometheus.Counter{},
	}
}

func (rs *routeStats) record(method string, status int, d time.Duration, n int64) {
	rs.latency.Observe(d.Seconds())
	rs.bytes.Add(float64(n))
	k := methodStatus{methodLabel(method), status}
	rs.mu.RLock()
	c := rs.count[k]
	rs.mu.RUnlock()
	if c == nil {
		rs.mu.Lock()
		if c = rs.count[k]; c == nil {
			c = rs.requests.WithLabelValues(k.method, strconv.Itoa(status))
			rs.count[k] = c
		}
		rs.mu.Unlock()
	}
	c.Inc()
}

// methodLabel keeps the method label's values few: a client can send any
// token as a method, and each would become a time series.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions:
		return m
	}
	return "OTHER"
}

// statusWriter remembers the status and counts the bytes of a response,
// and carries who the caller turned out to be: authentication runs inside
// the instrumented handler and finds it as its ResponseWriter, which costs
// no allocation (a context value would cost three per request).
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
	caller auth.Principal // set once authenticated
}

// identify records the authenticated caller, for the handler and the
// request log.
func identify(w http.ResponseWriter, p auth.Principal) {
	if sw, ok := w.(*statusWriter); ok {
		sw.caller = p
	}
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// instrument wraps a route's handler: request counts by method and status,
// latency and bytes for /metrics, and a log line for clients that have
// enable_log.
func (s *Server) instrument(rs *routeStats, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now() // wall time: the pinned test clock must not make durations zero
		s.http.inFlight.Add(1)
		sw := &statusWriter{ResponseWriter: w}
		completed := false
		defer func() {
			s.http.inFlight.Add(-1)
			status := sw.status
			switch {
			case !completed:
				status = http.StatusInternalServerError // a panic on its way to the router's PanicHandler
			case status == 0:
				status = http.StatusOK
			}
			d := time.Since(start)
			rs.record(r.Method, status, d, sw.bytes)
			if sw.caller.EnableLog {
				s.log.LogAttrs(r.Context(), slog.LevelInfo, "request",
					slog.String("client_id", sw.caller.ClientID),
					slog.String("method", r.Method),
					slog.String("route", rs.route),
					slog.String("path", r.URL.Path),
					slog.String("query", logQuery(r.URL.RawQuery)),
					slog.Int("status", status),
					slog.Float64("duration_ms", float64(d.Microseconds())/1000),
					slog.Int64("bytes", sw.bytes),
					slog.String("remote", r.RemoteAddr))
			}
		}()
		h.ServeHTTP(sw, r)
		completed = true
	})
}

// logQuery is a query string as the request log writes it: the values of
// parameters named like credentials redacted (redactQuery), and bounded: a
// query string over the limit is refused with 400 anyway, and its bulk
// says nothing more. Header fields are never logged, so neither is an
// Authorization, an api-key or a signature sent where they belong.
func logQuery(raw string) string {
	raw = redactQuery(raw)
	if len(raw) <= maxQueryBytes {
		return raw
	}
	return raw[:maxQueryBytes] + "…(" + strconv.Itoa(len(raw)) + " bytes)"
}

// redacted replaces the value of a credential-like parameter in the log.
const redacted = "REDACTED"

// redactQuery is raw with the value of every parameter whose name looks
// like a credential (sensitiveParam) replaced by REDACTED, names and
// order kept: a client that puts its token or secret in the query string
// (where mdqs never reads one) must not find it in the server's log. Both
// "&" and ";" separate (the query helper refuses ";", but the log sees
// the query as sent). raw itself, without allocating, when nothing is.
func redactQuery(raw string) string {
	var b []byte // nil until a value is redacted
	for start := 0; start <= len(raw); {
		end := strings.IndexAny(raw[start:], "&;")
		if end < 0 {
			end = len(raw)
		} else {
			end += start
		}
		part := raw[start:end]
		name, _, hasValue := strings.Cut(part, "=")
		switch {
		case hasValue && sensitiveParam(name):
			if b == nil {
				b = append(make([]byte, 0, len(raw)), raw[:start]...)
			}
			b = append(b, name...)
			b = append(b, '=')
			b = append(b, redacted...)
		case b != nil:
			b = append(b, part...)
		}
		if b != nil && end < len(raw) {
			b = append(b, raw[end])
		}
		start = end + 1
	}
	if b == nil {
		return raw
	}
	return string(b)
}

// credentialWords are the words of a parameter name that make it a
// credential: "api_key", "apiKey", "X-Signature", "auth" are; "keyword",
// "signal", "author" are not (a word is a run of letters and digits, also
// split where a lower-case letter meets an upper-case one).
var credentialWords = map[string]bool{
	"token": true, "tokens": true, "secret": true, "secrets": true, "password": true, "passwd": true, "pwd": true,
	"key": true, "keys": true, "apikey": true, "signature": true, "sig": true, "auth": true, "authorization": true,
	"credential": true, "credentials": true, "bearer": true, "jwt": true,
}

// credentialParts are pieces that make a name a credential wherever they
// stand in it: long enough never to be part of an innocent word
// ("accesstoken", "clientsecret", "mypassword", "xsignature").
var credentialParts = []string{"token", "secret", "passw", "signature", "apikey", "credential"}

// sensitiveParam reports whether a query parameter's name (as sent,
// escapes and all) looks like it carries a credential. None of the API's
// own parameters does (TestNoAPIParameterIsRedacted).
func sensitiveParam(name string) bool {
	if strings.ContainsAny(name, "%+") {
		if n, err := url.QueryUnescape(name); err == nil {
			name = n
		}
	}
	lower := strings.ToLower(name)
	for _, p := range credentialParts {
		if strings.Contains(lower, p) {
			return true
		}
	}
	word := 0 // start of the current word in name
	for i := 0; i <= len(name); i++ {
		var c, prev byte
		if i < len(name) {
			c = name[i]
		}
		if i > 0 {
			prev = name[i-1]
		}
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		camel := c >= 'A' && c <= 'Z' && (prev >= 'a' && prev <= 'z' || prev >= '0' && prev <= '9')
		if i == len(name) || !alnum || camel {
			if i > word && credentialWords[strings.ToLower(name[word:i])] {
				return true
			}
			word = i
			if !alnum {
				word = i + 1
			}
		}
	}
	return false
}
