package api

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"runtime"
	"runtime/debug"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"

	"mdqs/db"
	"mdqs/internal/auth"
	"mdqs/internal/upstream"
)

// handleMetrics is GET /metrics in the Prometheus exposition format.
func (s *Server) handleMetrics() http.Handler {
	return s.localOrAdmin(promhttp.HandlerFor(s.registry, promhttp.HandlerOpts{
		// One family that cannot be gathered must not blank the others:
		// a scrape is how an operator finds out what is wrong.
		ErrorHandling: promhttp.ContinueOnError,
		ErrorLog:      promLog{s.log},
	}))
}

// localOrAdmin is the access rule of the operator's endpoints (/metrics,
// /debug/pprof/): a caller on this machine needs no credentials; from
// anywhere else it is a signed request with the admin scope, like
// /v1/api/refresh. Loopback is the only trust given: behind a reverse
// proxy on the same machine every caller would look local, so do not put
// one in front of mdqs. A loopback caller is trusted only when its Host is
// this machine's too (HostCheck.Local): whatever the listener, a web page
// that rebinds its name to 127.0.0.1 arrives from loopback.
func (s *Server) localOrAdmin(h http.Handler) http.Handler {
	guarded := s.authenticate(auth.ScopeAdmin, h)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if fromLoopback(r) && s.Hosts.Local(r) {
			h.ServeHTTP(w, r)
			return
		}
		guarded.ServeHTTP(w, r)
	})
}

func fromLoopback(r *http.Request) bool {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	return err == nil && ap.Addr().Unmap().IsLoopback()
}

// promLog sends promhttp's gathering errors to the server's log.
type promLog struct{ log *slog.Logger }

func (l promLog) Println(v ...any) { l.log.Error("metrics: " + fmt.Sprint(v...)) }

// newRegistry is the server's own registry (never the global default one,
// so servers in one process, as in the tests, keep their figures apart):
// the Go runtime and process collectors, the request figures, and one
// collector that reads the other packages' stats at scrape time.
func (s *Server) newRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		s.http.requests, s.http.duration, s.http.bytes,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "mdqs_http_requests_in_flight", Help: "Requests being served now."},
			func() float64 { return float64(s.http.inFlight.Load()) }),
		newSnapshotCollector(s),
	)
	for limit, b := range map[string]*buckets{"client": s.clientLimits, "token": s.tokenLimits,
		"failed_secret": s.badSecrets, "failed_secret_addr": s.badSecretsAt, "bad_token": s.badTokens} {
		reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "mdqs_rate_limited_total",
			Help: "Requests refused with 429 by a rate limit: limit=client (per client), token (token endpoints, per address), " +
				"failed_secret (wrong secrets, per client id, refused only to addresses that have been failing), " +
				"failed_secret_addr (wrong secrets, per address) or bad_token (unknown or expired tokens, per address).",
			ConstLabels: prometheus.Labels{"limit": limit},
		}, func() float64 { return float64(b.rejected.Load()) }))
	}
	return reg
}

// family is one metric family whose samples are copied from a stats
// snapshot at scrape time.
type family struct {
	desc *prometheus.Desc
	typ  prometheus.ValueType
}

// snapshotCollector turns the stats the other packages keep (caches,
// upstreams, jobs, SQLite pools, the GC) into samples when /metrics is
// scraped, so none of them records into Prometheus types on its hot path.
type snapshotCollector struct {
	s         *Server
	goVersion string
	fams      map[string]family
	latency   *prometheus.Desc // upstream call latency, a histogram
}

func newSnapshotCollector(s *Server) *snapshotCollector {
	c := &snapshotCollector{s: s, goVersion: runtime.Version(), fams: map[string]family{}}
	if bi, ok := debug.ReadBuildInfo(); ok {
		c.goVersion = bi.GoVersion
	}
	for _, f := range []struct {
		name   string
		typ    prometheus.ValueType
		help   string
		labels []string
	}{
		{"mdqs_build_info", prometheus.GaugeValue, "Always 1; the labels say which build is running.", []string{"version", "goversion"}},
		{"mdqs_start_time_seconds", prometheus.GaugeValue, "When the server started, Unix seconds.", nil},
		{"mdqs_instance_info", prometheus.GaugeValue, "Always 1; the label names the instance that answered (server.instance).", []string{"instance"}},
		{"mdqs_leader", prometheus.GaugeValue, "1 while this instance leads (runs the background jobs), 0 while it follows.", nil},
		{"mdqs_redis_up", prometheus.GaugeValue, "1 while the shared state (cache.redis) answers; absent without it.", nil},
		{"mdqs_redis_failures_total", prometheus.CounterValue, "Calls to the shared state that failed (the instance served from its own memory).", nil},
		{"mdqs_stream_relay_up", prometheus.GaugeValue, "1 while the stream relay reads and appends through Redis; absent without cache.redis.", nil},
		{"mdqs_stream_relay_delivered_total", prometheus.CounterValue, "Relayed stream events delivered to this instance's streams.", nil},
		{"mdqs_stream_relay_published_total", prometheus.CounterValue, "Stream events this instance appended to the relay as the leader.", nil},
		{"mdqs_stream_relay_local_total", prometheus.CounterValue, "Stream events the leader published to its own streams alone, Redis being away.", nil},
		{"mdqs_stream_relay_gaps_total", prometheus.CounterValue, "Resyncs sent to this instance's streams because relayed events were lost.", nil},
		{"go_gc_cycles_total", prometheus.CounterValue, "Completed GC cycles.", nil},
		{"go_gc_pause_seconds_total", prometheus.CounterValue, "Total GC stop-the-world pause.", nil},

		{"mdqs_cache_hits_total", prometheus.CounterValue, "Cache lookups that found their key.", []string{"cache"}},
		{"mdqs_cache_misses_total", prometheus.CounterValue, "Cache lookups that did not.", []string{"cache"}},
		{"mdqs_cache_evictions_total", prometheus.CounterValue, "Keys evicted to stay within the cache's cost.", []string{"cache"}},
		{"mdqs_cache_cost_bytes", prometheus.GaugeValue, "Cost (bytes, or entries for the token cache) in use.", []string{"cache"}},
		{"mdqs_cache_cost_max_bytes", prometheus.GaugeValue, "The cache's cost limit.", []string{"cache"}},
		{"mdqs_auth_live_nonces", prometheus.GaugeValue, "Nonces remembered for replay protection.", nil},

		{"mdqs_upstream_calls_total", prometheus.CounterValue, "Client calls to the upstream (one snapshot, one K-line fetch), whatever their pages and retries.", []string{"source"}},
		{"mdqs_upstream_requests_total", prometheus.CounterValue, "HTTP requests sent to the upstream, retries and pages included.", []string{"source"}},
		{"mdqs_upstream_failures_total", prometheus.CounterValue, "Failed upstream calls, by error kind (timeout, http_status, html, schema, ...).", []string{"source", "kind"}},
		{"mdqs_upstream_breaker_state", prometheus.GaugeValue, "1 for the circuit breaker's current state (closed, open, half_open), 0 for the others.", []string{"source", "state"}},
		{"mdqs_upstream_breaker_trips_total", prometheus.CounterValue, "Times the circuit breaker opened.", []string{"source"}},
		{"mdqs_upstream_rejected_total", prometheus.CounterValue, "Calls refused by an open circuit, without a request.", []string{"source"}},
		{"mdqs_upstream_last_success_timestamp_seconds", prometheus.GaugeValue, "When the upstream last answered a call, Unix seconds.", []string{"source"}},
		// The host is a label on its own family only: it can be one of the
		// source's configured hosts and nothing else, and the call counters
		// stay one series per source.
		{"mdqs_upstream_host_info", prometheus.GaugeValue, "Always 1; the label names the host in use (the one that last answered), of base_url and fallback_urls.", []string{"source", "host"}},
		{"mdqs_upstream_failovers_total", prometheus.CounterValue, "Requests that moved on to the source's next host after a failure, and bans reported by callers.", []string{"source"}},
		{"mdqs_upstream_ban_signs_total", prometheus.CounterValue, "Failures that looked like a ban (a reset or dropped connection, an HTML page) and bans reported by callers.", []string{"source"}},

		{"mdqs_job_runs_total", prometheus.CounterValue, "Background job runs started.", []string{"job"}},
		{"mdqs_job_failures_total", prometheus.CounterValue, "Background job runs that failed.", []string{"job"}},
		{"mdqs_job_skipped_total", prometheus.CounterValue, "Ticks skipped (outside the job's window, or the last run still going).", []string{"job"}},
		{"mdqs_job_running", prometheus.GaugeValue, "1 while the job runs.", []string{"job"}},
		{"mdqs_job_last_duration_seconds", prometheus.GaugeValue, "How long the last finished run took.", []string{"job"}},
		{"mdqs_job_last_end_timestamp_seconds", prometheus.GaugeValue, "When the last run ended, Unix seconds.", []string{"job"}},

		{"mdqs_db_connections_max", prometheus.GaugeValue, "The pool's connection limit.", []string{"pool"}},
		{"mdqs_db_connections_open", prometheus.GaugeValue, "Connections open.", []string{"pool"}},
		{"mdqs_db_connections_in_use", prometheus.GaugeValue, "Connections in use.", []string{"pool"}},
		{"mdqs_db_wait_total", prometheus.CounterValue, "Times a caller waited for a connection.", []string{"pool"}},
		{"mdqs_db_wait_seconds_total", prometheus.CounterValue, "Time spent waiting for a connection.", []string{"pool"}},
	} {
		c.fams[f.name] = family{prometheus.NewDesc(f.name, f.help, f.labels, nil), f.typ}
	}
	c.latency = prometheus.NewDesc("mdqs_upstream_call_duration_seconds", "Upstream call latency, retries and backoff included.", []string{"source"}, nil)
	return c
}

func (c *snapshotCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, f := range c.fams {
		ch <- f.desc
	}
	ch <- c.latency
}

func (c *snapshotCollector) Collect(ch chan<- prometheus.Metric) {
	emit := func(name string, v float64, labels ...string) {
		f := c.fams[name]
		ch <- prometheus.MustNewConstMetric(f.desc, f.typ, v, labels...)
	}
	s := c.s
	emit("mdqs_build_info", 1, s.Version, c.goVersion)
	emit("mdqs_start_time_seconds", float64(s.started.UnixMilli())/1000)
	emit("mdqs_instance_info", 1, s.Instance.Name)
	emit("mdqs_leader", boolGauge(s.isLeader()))
	if s.Instance.Redis != nil {
		st := s.Instance.Redis()
		emit("mdqs_redis_up", boolGauge(st.Up))
		emit("mdqs_redis_failures_total", float64(st.Failures))
	}
	if s.Instance.Relay != nil {
		st := s.Instance.Relay()
		emit("mdqs_stream_relay_up", boolGauge(st.Up))
		emit("mdqs_stream_relay_delivered_total", float64(st.Delivered))
		emit("mdqs_stream_relay_published_total", float64(st.Published))
		emit("mdqs_stream_relay_local_total", float64(st.Local))
		emit("mdqs_stream_relay_gaps_total", float64(st.Gaps))
	}
	// The Go collector has no exact GC pause total (the runtime's metrics
	// give a histogram of pauses), and these two series are older than it.
	var gc debug.GCStats
	debug.ReadGCStats(&gc)
	emit("go_gc_cycles_total", float64(gc.NumGC))
	emit("go_gc_pause_seconds_total", gc.PauseTotal.Seconds())

	h := s.cacheHealth()
	for _, cs := range h.Caches {
		emit("mdqs_cache_hits_total", float64(cs.Hits), cs.Name)
		emit("mdqs_cache_misses_total", float64(cs.Misses), cs.Name)
		emit("mdqs_cache_evictions_total", float64(cs.KeysEvicted), cs.Name)
		emit("mdqs_cache_cost_bytes", float64(cs.CostUsed), cs.Name)
		emit("mdqs_cache_cost_max_bytes", float64(cs.CostMax), cs.Name)
	}
	emit("mdqs_auth_live_nonces", float64(h.LiveNonces))

	if s.Sources != nil {
		c.collectUpstreams(ch, emit, s.Sources())
	}
	if s.Jobs != nil {
		for _, st := range s.Jobs.Statuses() {
			emit("mdqs_job_runs_total", float64(st.Runs), st.Name)
			emit("mdqs_job_failures_total", float64(st.Failures), st.Name)
			emit("mdqs_job_skipped_total", float64(st.Skipped), st.Name)
			running := 0.0
			if st.Running {
				running = 1
			}
			emit("mdqs_job_running", running, st.Name)
			if !st.LastEnd.IsZero() && !st.LastEnd.Before(st.LastStart) {
				emit("mdqs_job_last_duration_seconds", st.LastEnd.Sub(st.LastStart).Seconds(), st.Name)
			}
			if !st.LastEnd.IsZero() {
				emit("mdqs_job_last_end_timestamp_seconds", float64(st.LastEnd.UnixMilli())/1000, st.Name)
			}
		}
	}
	if s.Store != nil {
		readers, writer := s.Store.Pools()
		for pool, p := range map[string]db.PoolStats{"readers": readers, "writer": writer} {
			emit("mdqs_db_connections_max", float64(p.MaxOpen), pool)
			emit("mdqs_db_connections_open", float64(p.Open), pool)
			emit("mdqs_db_connections_in_use", float64(p.InUse), pool)
			emit("mdqs_db_wait_total", float64(p.WaitCount), pool)
			emit("mdqs_db_wait_seconds_total", p.WaitMS/1000, pool)
		}
	}
}

func (c *snapshotCollector) collectUpstreams(ch chan<- prometheus.Metric, emit func(string, float64, ...string), sts []upstream.Status) {
	seen := map[string]bool{}
	for _, st := range sts {
		// Two series with one label set fail the whole family; a source
		// listed twice would be a wiring mistake, not worth a broken scrape.
		if seen[st.Source] {
			continue
		}
		seen[st.Source] = true
		emit("mdqs_upstream_calls_total", float64(st.Calls), st.Source)
		emit("mdqs_upstream_requests_total", float64(st.Requests), st.Source)
		for k, n := range st.FailuresByKind {
			emit("mdqs_upstream_failures_total", float64(n), st.Source, k.String())
		}
		for _, state := range []upstream.BreakerState{upstream.BreakerClosed, upstream.BreakerOpen, upstream.BreakerHalfOpen} {
			v := 0.0
			if st.Breaker == state {
				v = 1
			}
			emit("mdqs_upstream_breaker_state", v, st.Source, state.String())
		}
		emit("mdqs_upstream_breaker_trips_total", float64(st.BreakerTrips), st.Source)
		emit("mdqs_upstream_rejected_total", float64(st.Rejected), st.Source)
		if !st.LastSuccess.IsZero() {
			emit("mdqs_upstream_last_success_timestamp_seconds", float64(st.LastSuccess.UnixMilli())/1000, st.Source)
		}
		if st.Host != "" {
			emit("mdqs_upstream_host_info", 1, st.Source, st.Host)
		}
		emit("mdqs_upstream_failovers_total", float64(st.Failovers), st.Source)
		emit("mdqs_upstream_ban_signs_total", float64(st.BanSigns), st.Source)
		if st.Latency == nil {
			continue
		}
		var m dto.Metric
		if err := st.Latency.Write(&m); err != nil || m.Histogram == nil {
			continue
		}
		buckets := make(map[float64]uint64, len(m.Histogram.Bucket))
		for _, b := range m.Histogram.Bucket {
			buckets[b.GetUpperBound()] = b.GetCumulativeCount()
		}
		ch <- prometheus.MustNewConstHistogram(c.latency, m.Histogram.GetSampleCount(), m.Histogram.GetSampleSum(), buckets, st.Source)
	}
}

func boolGauge(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
