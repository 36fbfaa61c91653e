package upstream

import (
	"maps"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// LatencyBuckets are the upper bounds, in seconds, of the call latency
// histogram, and of the API's request latency histogram too, so the two
// compare bucket by bucket: sub-millisecond cache hits up to upstream
// timeouts. Dashboards name them in le="...": do not change them.
var LatencyBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}

// Status is one source's health as the health endpoint shows it. Calls are
// client method calls (one snapshot, one K-line fetch), whatever the pages
// and retries they took; Requests counts HTTP attempts.
type Status struct {
	Source              string        `json:"source"`
	Calls               int64         `json:"calls"`
	Failures            int64         `json:"failures"`
	ConsecutiveFailures int64         `json:"consecutive_failures"`
	Requests            int64         `json:"requests"`
	LastErrorKind       Kind          `json:"last_error_kind"`
	LastError           string        `json:"last_error,omitempty"`
	LastErrorAt         time.Time     `json:"last_error_at,omitzero"`
	LastSuccess         time.Time     `json:"last_success,omitzero"`
	LastLatency         time.Duration `json:"last_latency_ns"`
	// Drift is the last schema change seen that did not fail a call (an
	// optional field gone or of a new type, rows that failed to join), kept
	// with its time: the early warning before a required field goes too.
	Drift   string    `json:"drift,omitempty"`
	DriftAt time.Time `json:"drift_at,omitzero"`
	// Breaker is the circuit breaker's state; while it is not closed,
	// BreakerOpenedAt says since when and BreakerProbeAt when the next call
	// may try the network. Rejected counts calls refused without a request,
	// BreakerTrips how often the circuit opened.
	Breaker         BreakerState `json:"breaker"`
	BreakerOpenedAt time.Time    `json:"breaker_opened_at,omitzero"`
	BreakerProbeAt  time.Time    `json:"breaker_probe_at,omitzero"`
	BreakerTrips    int64        `json:"breaker_trips"`
	Rejected        int64        `json:"rejected"`
	// Host is the host (host[:port]) that last answered, or was last
	// tried: the one in use when a source has fallbacks. Failovers counts
	// requests that moved on to the next host after a failure, and the
	// bans callers reported; BanSigns the failures that looked like a ban
	// (a reset or dropped connection, an HTML page) and those reports.
	Host      string `json:"host,omitempty"`
	Failovers int64  `json:"failovers"`
	BanSigns  int64  `json:"ban_signs"`
	// FailuresByKind splits Failures by error kind.
	FailuresByKind map[Kind]int64 `json:"failures_by_kind,omitempty"`
	// Latency is every counted call's duration, for /metrics: the live
	// histogram (safe for concurrent use), not a copy, since /metrics
	// reads its buckets once per scrape anyway.
	Latency prometheus.Histogram `json:"-"`
}

type tracker struct {
	mu      sync.Mutex
	s       Status
	latency prometheus.Histogram
}

func newTracker(source string) *tracker {
	return &tracker{s: Status{Source: source}, latency: prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:        "mdqs_upstream_call_duration_seconds",
		Help:        "Upstream call latency, retries and backoff included.",
		ConstLabels: prometheus.Labels{"source": source},
		Buckets:     LatencyBuckets,
	})}
}

func (t *tracker) snapshot() Status {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.s
	s.FailuresByKind = maps.Clone(t.s.FailuresByKind)
	s.Latency = t.latency
	return s
}

func (t *tracker) request() {
	t.mu.Lock()
	t.s.Requests++
	t.mu.Unlock()
}

func (t *tracker) drift(at time.Time, text string) {
	t.mu.Lock()
	t.s.Drift, t.s.DriftAt = text, at
	t.mu.Unlock()
}

// done records the outcome of one method call. A canceled call says nothing
// about the upstream, nor does one the breaker refused (the breaker counts
// those), so neither changes a failure or success figure.
func (t *tracker) done(start, end time.Time, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.s.Calls++
	if k := KindOf(err); k == KindCanceled || k == KindCircuitOpen {
		return
	}
	t.s.LastLatency = end.Sub(start)
	t.latency.Observe(t.s.LastLatency.Seconds())
	if err == nil {
		t.s.ConsecutiveFailures = 0
		t.s.LastSuccess = end
		return
	}
	t.s.Failures++
	t.s.ConsecutiveFailures++
	t.s.LastError, t.s.LastErrorAt = err.Error(), end
	t.s.LastErrorKind = KindOf(err)
	if t.s.FailuresByKind == nil {
		t.s.FailuresByKind = map[Kind]int64{}
	}
	t.s.FailuresByKind[t.s.LastErrorKind]++
}
