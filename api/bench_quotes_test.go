package api

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"mdqs/internal/market"
)

// BenchmarkQuotes is GET /v1/api/quotes through the whole stack (signed
// request, auth, the quote service's snapshot lookup, encoding) for 50
// codes (47 stocks and the three indices of the issue) against one code,
// in one run; each reports its p50 beside the mean. The snapshot is warm,
// as it is for every request but one per quote_age:
//
//	go test -run '^$' -bench Quotes -benchmem ./api
func BenchmarkQuotes(b *testing.B) {
	h := newHarness(b, func(c *harnessConfig) { c.auth.NonceCapacity = 20_000_000 })
	h.addClient("c", "secret-c", clientOpts{scopes: "market"})
	tok := h.token("c", "secret-c")
	full := h.api.Handler()
	ts := strconv.FormatInt(h.clock.Now().Unix(), 10)
	var codes []string
	for _, s := range h.demo.Stocks() {
		if s.Listed <= market.DayOf(h.clock.Now()) && len(codes) < 47 {
			codes = append(codes, s.Code.String())
		}
	}
	codes = append(codes, "000001.SH", "399001.SZ", "399006.SZ")
	for _, tt := range []struct{ name, path string }{
		{"50codes", "/v1/api/quotes?codes=" + strings.Join(codes, ",")},
		{"1code", "/v1/api/quotes?codes=600519.SH"},
	} {
		if r := h.signed(http.MethodGet, tt.path, tok, nil); r.status != 200 {
			b.Fatalf("%s: %d %.300s", tt.path, r.status, r.raw)
		}
		b.Run(tt.name, func(b *testing.B) { benchSignedGet(b, full, tt.path, tok, ts) })
	}
}
