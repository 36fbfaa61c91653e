package api

import (
	"net/http"
	"net/netip"
	"runtime"
	"runtime/debug"
	"strconv"

	"mdqs/auth"
	"mdqs/db"
	"mdqs/metrics"
	"mdqs/upstream"
)

// handleMetrics is GET /metrics in the Prometheus text format. A scraper on
// this machine needs no credentials; from anywhere else it is a signed
// request with the admin scope, like /v1/api/refresh. Loopback is the only
// trust given: behind a reverse proxy on the same machine every caller
// would look local, so do not put one in front of mdqs.
func (s *Server) handleMetrics() http.Handler {
	serve := s.adapt(s.writeMetrics)
	guarded := s.authenticate(auth.ScopeAdmin, serve)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if fromLoopback(r) {
			serve.ServeHTTP(w, r)
			return
		}
		guarded.ServeHTTP(w, r)
	})
}

func fromLoopback(r *http.Request) bool {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	return err == nil && ap.Addr().Unmap().IsLoopback()
}

func (s *Server) writeMetrics(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Content-Type", metrics.ContentType)
	m := metrics.NewWriter(w)
	s.writeProcessMetrics(m)
	s.writeHTTPMetrics(m)
	s.writeCacheMetrics(m)
	if s.Sources != nil {
		writeUpstreamMetrics(m, s.Sources())
	}
	if s.Jobs != nil {
		s.writeJobMetrics(m)
	}
	if s.Store != nil {
		readers, writer := s.Store.Pools()
		writePoolMetrics(m, map[string]db.PoolStats{"readers": readers, "writer": writer})
	}
	return m.Flush()
}

func (s *Server) writeProcessMetrics(m *metrics.Writer) {
	goVersion := runtime.Version()
	if bi, ok := debug.ReadBuildInfo(); ok {
		goVersion = bi.GoVersion
	}
	m.Family("mdqs_build_info", metrics.Gauge, "Always 1; the labels say which build is running.")
	m.Sample("mdqs_build_info", metrics.Labels{"version": s.Version, "goversion": goVersion}, 1)
	m.Family("mdqs_start_time_seconds", metrics.Gauge, "When the server started, Unix seconds.")
	m.Sample("mdqs_start_time_seconds", nil, float64(s.started.UnixMilli())/1000)

	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	for _, g := range []struct {
		name, help string
		typ        metrics.Type
		v          float64
	}{
		{"go_goroutines", "Goroutines that currently exist.", metrics.Gauge, float64(runtime.NumGoroutine())},
		{"go_memstats_heap_alloc_bytes", "Heap bytes allocated and still in use.", metrics.Gauge, float64(ms.HeapAlloc)},
		{"go_memstats_heap_inuse_bytes", "Heap bytes in in-use spans.", metrics.Gauge, float64(ms.HeapInuse)},
		{"go_memstats_sys_bytes", "Bytes obtained from the system.", metrics.Gauge, float64(ms.Sys)},
		{"go_gc_cycles_total", "Completed GC cycles.", metrics.Counter, float64(ms.NumGC)},
		{"go_gc_pause_seconds_total", "Total GC stop-the-world pause.", metrics.Counter, float64(ms.PauseTotalNs) / 1e9},
	} {
		m.Family(g.name, g.typ, g.help)
		m.Sample(g.name, nil, g.v)
	}
}

func (s *Server) writeHTTPMetrics(m *metrics.Writer) {
	all := append(append([]*routeStats(nil), s.routeStats...), s.unmatched)
	m.Family("mdqs_http_requests_total", metrics.Counter, "HTTP requests answered, by route pattern, method and status code. Paths no route matches count under route=\"unmatched\".")
	for _, rs := range all {
		rs.mu.RLock()
		for k, c := range rs.count {
			m.Sample("mdqs_http_requests_total", metrics.Labels{"route": rs.route, "method": k.method, "code": strconv.Itoa(k.status)}, float64(c.Load()))
		}
		rs.mu.RUnlock()
	}
	m.Family("mdqs_http_request_duration_seconds", metrics.HistogramT, "Time from the request's arrival at its route to the handler's return, by route.")
	for _, rs := range all {
		if snap := rs.latency.Snapshot(); snap.Count > 0 {
			m.Histogram("mdqs_http_request_duration_seconds", metrics.Labels{"route": rs.route}, snap)
		}
	}
	m.Family("mdqs_http_response_bytes_total", metrics.Counter, "Response body bytes written, by route.")
	for _, rs := range all {
		if n := rs.bytes.Load(); n > 0 {
			m.Sample("mdqs_http_response_bytes_total", metrics.Labels{"route": rs.route}, float64(n))
		}
	}
	m.Family("mdqs_http_requests_in_flight", metrics.Gauge, "Requests being served now.")
	m.Sample("mdqs_http_requests_in_flight", nil, float64(s.inFlight.Load()))
	m.Family("mdqs_rate_limited_total", metrics.Counter, "Requests refused with 429 by a rate limit: limit=client (per client) or token (token endpoints, per address).")
	m.Sample("mdqs_rate_limited_total", metrics.Labels{"limit": "client"}, float64(s.clientLimits.rejected.Load()))
	m.Sample("mdqs_rate_limited_total", metrics.Labels{"limit": "token"}, float64(s.tokenLimits.rejected.Load()))
}

func (s *Server) writeCacheMetrics(m *metrics.Writer) {
	h := s.cacheHealth()
	for _, f := range []struct {
		name, help string
		typ        metrics.Type
		v          func(i int) float64
	}{
		{"mdqs_cache_hits_total", "Cache lookups that found their key.", metrics.Counter, func(i int) float64 { return float64(h.Caches[i].Hits) }},
		{"mdqs_cache_misses_total", "Cache lookups that did not.", metrics.Counter, func(i int) float64 { return float64(h.Caches[i].Misses) }},
		{"mdqs_cache_evictions_total", "Keys evicted to stay within the cache's cost.", metrics.Counter, func(i int) float64 { return float64(h.Caches[i].KeysEvicted) }},
		{"mdqs_cache_cost_bytes", "Cost (bytes, or entries for the token cache) in use.", metrics.Gauge, func(i int) float64 { return float64(h.Caches[i].CostUsed) }},
		{"mdqs_cache_cost_max_bytes", "The cache's cost limit.", metrics.Gauge, func(i int) float64 { return float64(h.Caches[i].CostMax) }},
	} {
		m.Family(f.name, f.typ, f.help)
		for i, c := range h.Caches {
			m.Sample(f.name, metrics.Labels{"cache": c.Name}, f.v(i))
		}
	}
	m.Family("mdqs_auth_live_nonces", metrics.Gauge, "Nonces remembered for replay protection.")
	m.Sample("mdqs_auth_live_nonces", nil, float64(h.LiveNonces))
}

func writeUpstreamMetrics(m *metrics.Writer, sts []upstream.Status) {
	per := func(name, help string, typ metrics.Type, v func(st upstream.Status) float64) {
		m.Family(name, typ, help)
		for _, st := range sts {
			m.Sample(name, metrics.Labels{"source": st.Source}, v(st))
		}
	}
	per("mdqs_upstream_calls_total", "Client calls to the upstream (one snapshot, one K-line fetch), whatever their pages and retries.", metrics.Counter,
		func(st upstream.Status) float64 { return float64(st.Calls) })
	per("mdqs_upstream_requests_total", "HTTP requests sent to the upstream, retries and pages included.", metrics.Counter,
		func(st upstream.Status) float64 { return float64(st.Requests) })
	m.Family("mdqs_upstream_failures_total", metrics.Counter, "Failed upstream calls, by error kind (timeout, http_status, html, schema, ...).")
	for _, st := range sts {
		for k, n := range st.FailuresByKind {
			m.Sample("mdqs_upstream_failures_total", metrics.Labels{"source": st.Source, "kind": k.String()}, float64(n))
		}
	}
	m.Family("mdqs_upstream_call_duration_seconds", metrics.HistogramT, "Upstream call latency, retries and backoff included.")
	for _, st := range sts {
		if st.Latency.Count > 0 {
			m.Histogram("mdqs_upstream_call_duration_seconds", metrics.Labels{"source": st.Source}, st.Latency)
		}
	}
	m.Family("mdqs_upstream_breaker_state", metrics.Gauge, "1 for the circuit breaker's current state (closed, open, half_open), 0 for the others.")
	for _, st := range sts {
		for _, state := range []upstream.BreakerState{upstream.BreakerClosed, upstream.BreakerOpen, upstream.BreakerHalfOpen} {
			v := 0.0
			if st.Breaker == state {
				v = 1
			}
			m.Sample("mdqs_upstream_breaker_state", metrics.Labels{"source": st.Source, "state": state.String()}, v)
		}
	}
	per("mdqs_upstream_breaker_trips_total", "Times the circuit breaker opened.", metrics.Counter,
		func(st upstream.Status) float64 { return float64(st.BreakerTrips) })
	per("mdqs_upstream_rejected_total", "Calls refused by an open circuit, without a request.", metrics.Counter,
		func(st upstream.Status) float64 { return float64(st.Rejected) })
	m.Family("mdqs_upstream_last_success_timestamp_seconds", metrics.Gauge, "When the upstream last answered a call, Unix seconds.")
	for _, st := range sts {
		if !st.LastSuccess.IsZero() {
			m.Sample("mdqs_upstream_last_success_timestamp_seconds", metrics.Labels{"source": st.Source}, float64(st.LastSuccess.UnixMilli())/1000)
		}
	}
}

func (s *Server) writeJobMetrics(m *metrics.Writer) {
	sts := s.Jobs.Statuses()
	per := func(name, help string, typ metrics.Type, v func(i int) (float64, bool)) {
		m.Family(name, typ, help)
		for i, st := range sts {
			if x, ok := v(i); ok {
				m.Sample(name, metrics.Labels{"job": st.Name}, x)
			}
		}
	}
	per("mdqs_job_runs_total", "Background job runs started.", metrics.Counter, func(i int) (float64, bool) { return float64(sts[i].Runs), true })
	per("mdqs_job_failures_total", "Background job runs that failed.", metrics.Counter, func(i int) (float64, bool) { return float64(sts[i].Failures), true })
	per("mdqs_job_skipped_total", "Ticks skipped (outside the job's window, or the last run still going).", metrics.Counter,
		func(i int) (float64, bool) { return float64(sts[i].Skipped), true })
	per("mdqs_job_running", "1 while the job runs.", metrics.Gauge, func(i int) (float64, bool) {
		if sts[i].Running {
			return 1, true
		}
		return 0, true
	})
	per("mdqs_job_last_duration_seconds", "How long the last finished run took.", metrics.Gauge, func(i int) (float64, bool) {
		st := sts[i]
		if st.LastEnd.IsZero() || st.LastEnd.Before(st.LastStart) {
			return 0, false
		}
		return st.LastEnd.Sub(st.LastStart).Seconds(), true
	})
	per("mdqs_job_last_end_timestamp_seconds", "When the last run ended, Unix seconds.", metrics.Gauge, func(i int) (float64, bool) {
		return float64(sts[i].LastEnd.UnixMilli()) / 1000, !sts[i].LastEnd.IsZero()
	})
}

func writePoolMetrics(m *metrics.Writer, pools map[string]db.PoolStats) {
	names := []string{"readers", "writer"}
	per := func(name, help string, typ metrics.Type, v func(p db.PoolStats) float64) {
		m.Family(name, typ, help)
		for _, n := range names {
			m.Sample(name, metrics.Labels{"pool": n}, v(pools[n]))
		}
	}
	per("mdqs_db_connections_max", "The pool's connection limit.", metrics.Gauge, func(p db.PoolStats) float64 { return float64(p.MaxOpen) })
	per("mdqs_db_connections_open", "Connections open.", metrics.Gauge, func(p db.PoolStats) float64 { return float64(p.Open) })
	per("mdqs_db_connections_in_use", "Connections in use.", metrics.Gauge, func(p db.PoolStats) float64 { return float64(p.InUse) })
	per("mdqs_db_wait_total", "Times a caller waited for a connection.", metrics.Counter, func(p db.PoolStats) float64 { return float64(p.WaitCount) })
	per("mdqs_db_wait_seconds_total", "Time spent waiting for a connection.", metrics.Counter, func(p db.PoolStats) float64 { return p.WaitMS / 1000 })
}
