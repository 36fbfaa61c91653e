package api

import (
	"context"
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"mdqs/internal/market"
	"mdqs/jobs"
)

// metricsBefore is every family /metrics served before it moved to
// client_golang (issue 13), with its type and label names: dashboards and
// alerts are written against these, so none may go, change type or change
// its labels.
var metricsBefore = map[string]struct {
	typ    dto.MetricType
	labels string // sorted, comma-separated
}{
	"mdqs_build_info":                              {dto.MetricType_GAUGE, "goversion,version"},
	"mdqs_start_time_seconds":                      {dto.MetricType_GAUGE, ""},
	"go_goroutines":                                {dto.MetricType_GAUGE, ""},
	"go_memstats_heap_alloc_bytes":                 {dto.MetricType_GAUGE, ""},
	"go_memstats_heap_inuse_bytes":                 {dto.MetricType_GAUGE, ""},
	"go_memstats_sys_bytes":                        {dto.MetricType_GAUGE, ""},
	"go_gc_cycles_total":                           {dto.MetricType_COUNTER, ""},
	"go_gc_pause_seconds_total":                    {dto.MetricType_COUNTER, ""},
	"mdqs_http_requests_total":                     {dto.MetricType_COUNTER, "code,method,route"},
	"mdqs_http_request_duration_seconds":           {dto.MetricType_HISTOGRAM, "route"},
	"mdqs_http_response_bytes_total":               {dto.MetricType_COUNTER, "route"},
	"mdqs_http_requests_in_flight":                 {dto.MetricType_GAUGE, ""},
	"mdqs_rate_limited_total":                      {dto.MetricType_COUNTER, "limit"},
	"mdqs_cache_hits_total":                        {dto.MetricType_COUNTER, "cache"},
	"mdqs_cache_misses_total":                      {dto.MetricType_COUNTER, "cache"},
	"mdqs_cache_evictions_total":                   {dto.MetricType_COUNTER, "cache"},
	"mdqs_cache_cost_bytes":                        {dto.MetricType_GAUGE, "cache"},
	"mdqs_cache_cost_max_bytes":                    {dto.MetricType_GAUGE, "cache"},
	"mdqs_auth_live_nonces":                        {dto.MetricType_GAUGE, ""},
	"mdqs_upstream_calls_total":                    {dto.MetricType_COUNTER, "source"},
	"mdqs_upstream_requests_total":                 {dto.MetricType_COUNTER, "source"},
	"mdqs_upstream_failures_total":                 {dto.MetricType_COUNTER, "kind,source"},
	"mdqs_upstream_call_duration_seconds":          {dto.MetricType_HISTOGRAM, "source"},
	"mdqs_upstream_breaker_state":                  {dto.MetricType_GAUGE, "source,state"},
	"mdqs_upstream_breaker_trips_total":            {dto.MetricType_COUNTER, "source"},
	"mdqs_upstream_rejected_total":                 {dto.MetricType_COUNTER, "source"},
	"mdqs_upstream_last_success_timestamp_seconds": {dto.MetricType_GAUGE, "source"},
	"mdqs_job_runs_total":                          {dto.MetricType_COUNTER, "job"},
	"mdqs_job_failures_total":                      {dto.MetricType_COUNTER, "job"},
	"mdqs_job_skipped_total":                       {dto.MetricType_COUNTER, "job"},
	"mdqs_job_running":                             {dto.MetricType_GAUGE, "job"},
	"mdqs_job_last_duration_seconds":               {dto.MetricType_GAUGE, "job"},
	"mdqs_job_last_end_timestamp_seconds":          {dto.MetricType_GAUGE, "job"},
	"mdqs_db_connections_max":                      {dto.MetricType_GAUGE, "pool"},
	"mdqs_db_connections_open":                     {dto.MetricType_GAUGE, "pool"},
	"mdqs_db_connections_in_use":                   {dto.MetricType_GAUGE, "pool"},
	"mdqs_db_wait_total":                           {dto.MetricType_COUNTER, "pool"},
	"mdqs_db_wait_seconds_total":                   {dto.MetricType_COUNTER, "pool"},
}

// latencyBuckets are the upper bounds the two latency histograms have
// always had; recording rules and alerts name them in le="...".
var latencyBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}

func withJobs(r *jobs.Runner) harnessOpt {
	return func(c *harnessConfig) { c.deps.Jobs = r }
}

// Every family that /metrics served before is still served, with the same
// type, the same label names and, for histograms, the same buckets.
func TestMetricsKeepTheirNamesTypesAndLabels(t *testing.T) {
	runner := jobs.NewRunner(nil, market.NewFixedClock(t0))
	runner.Add(jobs.Job{Name: "probe", Interval: time.Hour, Run: func(context.Context) error { return nil }})
	if err := runner.RunNow(context.Background(), "probe"); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, withJobs(runner))
	h.addClient("c", "secret-c", clientOpts{})
	tok := h.token("c", "secret-c")
	// One family fails and the other answers, so that failures_total and
	// last_success both have samples.
	h.push2.Fail(market.Concept, http.StatusBadGateway)
	h.signed(http.MethodGet, "/v1/api/boards/top50", tok, nil)

	fams := h.scrape()
	for name, want := range metricsBefore {
		f := fams[name]
		if f == nil {
			t.Errorf("%s is gone from /metrics", name)
			continue
		}
		if f.GetType() != want.typ {
			t.Errorf("%s is a %s, was a %s", name, f.GetType(), want.typ)
		}
		for _, m := range f.Metric {
			var names []string
			for _, l := range m.Label {
				names = append(names, l.GetName())
			}
			slices.Sort(names)
			if got := strings.Join(names, ","); got != want.labels {
				t.Errorf("%s has labels {%s}, had {%s}", name, got, want.labels)
				break
			}
			if h := m.GetHistogram(); h != nil {
				var bounds []float64
				for _, b := range h.Bucket {
					if !math.IsInf(b.GetUpperBound(), 1) {
						bounds = append(bounds, b.GetUpperBound())
					}
				}
				if !slices.Equal(bounds, latencyBuckets) {
					t.Errorf("%s has buckets %v, had %v", name, bounds, latencyBuckets)
					break
				}
			}
		}
	}
}
