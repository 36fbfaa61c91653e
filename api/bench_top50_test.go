package api

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"mdqs/internal/market"
	"mdqs/internal/ranking"
	"mdqs/internal/upstream/upstreamtest"
)

// BenchmarkTop50 compares GET /v1/api/boards/top50 served from the cache
// through the whole stack (signed request, token cache, nonce set, scope,
// parameter parsing, cache lookup, pre-encoded write) with a bare handler
// that writes the same bytes. The ranking has real-market size (90
// industries, 450 concepts, about 100 KB of JSON).
//
//	go test -run '^$' -bench Top50 -benchmem ./api
//
// "inproc" calls the handlers directly; "loopback" goes through net/http
// over 127.0.0.1 as a script would; "inproc/top=50" is the stack on a
// small answer (?top=50) into a writer that keeps nothing, against a bare
// handler writing the same bytes: the server's own work per request.
func BenchmarkTop50(b *testing.B) {
	h, tok, e := top50Bench(b)
	body := e.Full.JSON
	full := h.api.Handler()
	bare := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeBytes(w, http.StatusOK, "application/json; charset=utf-8", body)
	})
	ts := strconv.FormatInt(h.clock.Now().Unix(), 10)
	b.Run("inproc/top50", func(b *testing.B) {
		nonces, sigs := presign(b, tok, ts)
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			req := signedRequest("/v1/api/boards/top50", tok, ts, nonces[i], sigs[i])
			rec := httptest.NewRecorder()
			full.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK || rec.Body.Len() != len(body) {
				b.Fatalf("status %d, %d bytes", rec.Code, rec.Body.Len())
			}
		}
	})
	b.Run("inproc/bare", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			req := httptest.NewRequest(http.MethodGet, "/v1/api/boards/top50", nil)
			rec := httptest.NewRecorder()
			bare.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				b.Fatal(rec.Code)
			}
		}
	})
	// The stack's own cost on a small answer, with a writer that discards
	// (no recorder copying 50 KB): what mdqs adds to each request, beside
	// the bare handler's.
	small := e.Top(50)
	smallBare := bareEncoded(small, false)
	for _, c := range []struct {
		name string
		h    http.Handler
	}{{"inproc/top=50", full}, {"inproc/top=50-bare", smallBare}} {
		b.Run(c.name, func(b *testing.B) {
			nonces, sigs := presign(b, tok, ts)
			reqs := make([]*http.Request, b.N)
			for i := range reqs {
				reqs[i] = signedRequest("/v1/api/boards/top50?top=50", tok, ts, nonces[i], sigs[i])
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				w := &discardWriter{h: http.Header{}}
				c.h.ServeHTTP(w, reqs[i])
				if w.n != len(small.JSON) {
					b.Fatalf("%d bytes, want %d", w.n, len(small.JSON))
				}
			}
		})
	}
	loopback := func(b *testing.B, handler http.Handler, sign bool) {
		base, stop := serveLoopback(b, handler)
		defer stop()
		url := base + "/v1/api/boards/top50"
		hc := &http.Client{Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 4}}
		var nonces, sigs []string
		if sign {
			nonces, sigs = presign(b, tok, ts)
		}
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			req, _ := http.NewRequest(http.MethodGet, url, nil)
			if sign {
				req.Header.Set("Authorization", "Bearer "+tok)
				req.Header.Set("X-Timestamp", ts)
				req.Header.Set("X-Nonce", nonces[i])
				req.Header.Set("X-Signature", sigs[i])
			}
			res, err := hc.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			n, _ := io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusOK || n != int64(len(body)) {
				b.Fatalf("status %d, %d bytes", res.StatusCode, n)
			}
		}
	}
	b.Run("loopback/top50", func(b *testing.B) { loopback(b, full, true) })
	b.Run("loopback/bare", func(b *testing.B) { loopback(b, bare, false) })
}

// bareEncoded is the baseline of the top50 benchmarks: plain net/http
// writing a pre-encoded answer (gzipped when gz) with the headers mdqs's
// answer carries for it, and nothing else.
func bareEncoded(enc *ranking.Encoded, gz bool) http.HandlerFunc {
	body := enc.JSON
	if gz {
		body = enc.Gzip
	}
	return func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Vary", "Accept-Encoding")
		hd.Set("ETag", enc.ETag)
		if gz {
			hd.Set("Content-Encoding", "gzip")
		}
		writeBytes(w, http.StatusOK, jsonType, body)
	}
}

// discardWriter counts what is written and keeps nothing.
type discardWriter struct {
	h http.Header
	n int
}

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) Write(b []byte) (int, error) { w.n += len(b); return len(b), nil }
func (w *discardWriter) WriteHeader(int)             {}

// top50Bench is a harness with a real-market-size ranking cached (90
// industries, 450 concepts), a client's token, and the cached entry.
func top50Bench(b *testing.B) (*harness, string, *ranking.Entry) {
	h := newHarness(b, func(c *harnessConfig) {
		c.auth.NonceCapacity = 20_000_000
		c.deps.UpstreamWait = 20 * time.Second // as served: config.toml's server.upstream_wait
	})
	h.push2.SetSectors(market.Industry, t0, upstreamtest.Sectors("行业", 90))
	h.push2.SetSectors(market.Concept, t0, upstreamtest.Sectors("概念", 450))
	h.addClient("c", "secret-c", clientOpts{})
	tok := h.token("c", "secret-c")
	e, _, err := h.api.Rankings.Get(context.Background(), 20261123, false)
	if err != nil {
		b.Fatal(err)
	}
	return h, tok, e
}
