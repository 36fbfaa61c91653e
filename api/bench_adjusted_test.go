package api

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"testing"
	"time"
)

// BenchmarkKlineAdjusted compares one year of daily bars with indicators
// through the whole stack, unadjusted (/v1/api/kline) and 前复权
// (/v1/api/kline/adjusted, four events), in one run; each reports its p50
// beside the mean:
//
//	go test -run '^$' -bench KlineAdjusted -benchmem ./api
func BenchmarkKlineAdjusted(b *testing.B) {
	h := newHarness(b, func(c *harnessConfig) { c.auth.NonceCapacity = 20_000_000 })
	h.addClient("c", "secret-c", clientOpts{scopes: "kline"})
	tok := h.token("c", "secret-c")
	putTestActions(b, h)
	full := h.api.Handler()
	ts := strconv.FormatInt(h.clock.Now().Unix(), 10)
	rng := "code=600519.SH&freq=D&start=2025-11-21&end=2026-11-20&indicators=ma5,ma20,macd"
	for _, tt := range []struct{ name, path string }{
		{"unadjusted", "/v1/api/kline?" + rng},
		{"qfq", "/v1/api/kline/adjusted?" + rng + "&mode=qfq"},
	} {
		// Warm the store's coverage so both read the same stored year.
		if r := h.signed(http.MethodGet, tt.path, tok, nil); r.status != 200 {
			b.Fatalf("%s: %d %s", tt.path, r.status, r.raw)
		}
		b.Run(tt.name, func(b *testing.B) {
			nonces, sigs := presign(b, tok, ts)
			took := make([]time.Duration, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				req := signedRequest(tt.path, tok, ts, nonces[i], sigs[i])
				rec := httptest.NewRecorder()
				start := time.Now()
				full.ServeHTTP(rec, req)
				took[i] = time.Since(start)
				if rec.Code != http.StatusOK {
					b.Fatalf("status %d: %.200s", rec.Code, rec.Body.Bytes())
				}
			}
			b.StopTimer()
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds()), "p50-µs")
		})
	}
}
