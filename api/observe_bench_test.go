package api

import (
	"net/http"
	"testing"
	"time"
)

// BenchmarkRecord is what the instrumentation adds to every request: one
// latency observation, the bytes and the status counter.
//
//	go test -run '^$' -bench Record -benchmem ./api
func BenchmarkRecord(b *testing.B) {
	rs := newHTTPMetrics().route("/v1/api/boards/top50")
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			rs.record(http.MethodGet, http.StatusOK, 1500*time.Microsecond, 382_000)
		}
	})
}
