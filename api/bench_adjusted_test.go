package api

import (
	"net/http"
	"strconv"
	"testing"
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
		b.Run(tt.name, func(b *testing.B) { benchSignedGet(b, full, tt.path, tok, ts) })
	}
}
