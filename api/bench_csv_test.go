package api

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"mdqs/internal/client"
)

// BenchmarkFormCheck is what the CSV form costs a JSON request (issue 35):
// every GET now passes withForm, which must look at the query string and
// the Accept header before the handler. bare calls the handler itself,
// form the same handler through withForm, on a signed-looking request of
// the K-line's shape, in one run:
//
//	go test -run '^$' -bench FormCheck -benchmem ./api
func BenchmarkFormCheck(b *testing.B) {
	s := &Server{}
	h := func(w http.ResponseWriter, r *http.Request) error { return nil }
	wrapped := s.withForm("/v1/api/kline", h)
	req := httptest.NewRequest(http.MethodGet, "/v1/api/kline?code=600519.SH&freq=D&start=2026-01-05&end=2026-11-20&indicators=ma5", nil)
	req.Header.Set("Accept", "application/json")
	w := httptest.NewRecorder()
	b.Run("bare", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			h(w, req)
		}
	})
	b.Run("form", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			wrapped(w, req)
		}
	})
}

// BenchmarkKlineCSV is a year of one code's daily K-line with two
// indicators answered as JSON (the baseline) and as CSV made from it,
// through the whole stack, in one run:
//
//	go test -run '^$' -bench KlineCSV -benchmem ./api
func BenchmarkKlineCSV(b *testing.B) {
	h := newHarness(b, func(c *harnessConfig) { c.auth.NonceCapacity = 20_000_000 })
	h.addClient("c", "secret-c", clientOpts{})
	tok := h.token("c", "secret-c")
	handler := h.api.Handler()
	const target = "/v1/api/kline?code=600519.SH&freq=D&start=2025-11-21&end=2026-11-20&indicators=ma5,macd"
	ts := strconvItoa(h.clock.Now().Unix())
	warm := httptest.NewRecorder()
	handler.ServeHTTP(warm, signedRequest(target, tok, ts, "warm", client.Signature(tok, ts, "warm", nil)))
	if warm.Code != 200 {
		b.Fatalf("%d %s", warm.Code, warm.Body)
	}
	for _, tc := range []struct{ name, target string }{{"json", target}, {"csv", target + "&format=csv"}} {
		b.Run(tc.name, func(b *testing.B) {
			nonces, sigs := presign(b, tok, ts)
			b.ReportAllocs()
			b.ResetTimer()
			var n int
			for i := range b.N {
				rec := httptest.NewRecorder()
				handler.ServeHTTP(rec, signedRequest(tc.target, tok, ts, nonces[i], sigs[i]))
				if rec.Code != 200 {
					b.Fatalf("%d %s", rec.Code, rec.Body)
				}
				n = rec.Body.Len()
			}
			b.ReportMetric(float64(n), "bytes/answer")
		})
	}
}
