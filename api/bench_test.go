package api

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"testing"
	"time"

	"mdqs/internal/client"
)

// presign prepares b.N distinct nonces and their signatures of an empty
// body before the clock starts: signing is the client's work, not the
// server's.
// signedRequest is a GET the middleware accepts, with a nonce and
// signature presign made.
func signedRequest(path, tok, ts, nonce, sig string) *http.Request {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("X-Timestamp", ts)
	req.Header.Set("X-Nonce", nonce)
	req.Header.Set("X-Signature", sig)
	return req
}

func presign(b *testing.B, tok, ts string) (nonces, sigs []string) {
	nonces, sigs = make([]string, b.N), make([]string, b.N)
	// A random prefix per call: -count repeats b.N values, and a repeated
	// nonce is refused.
	run := client.NewNonce()[:8]
	for i := range nonces {
		nonces[i] = run + "-" + strconv.Itoa(i)
		sigs[i] = client.Signature(tok, ts, nonces[i], nil)
	}
	return nonces, sigs
}

// BenchmarkAuthOverhead measures one authenticated, signed GET of a trivial
// handler (GET /v1/api/whoami through the whole stack: router, bearer
// lookup in the token cache, signature, nonce set, scope) against the same
// handler called bare with its principal already in place. Both run
// in-process in the same benchmark, so the reported ratio compares like with
// like on whatever machine runs it:
//
//	go test -run '^$' -bench AuthOverhead -benchmem ./api
func BenchmarkAuthOverhead(b *testing.B) {
	// Every iteration leaves a live nonce; size the replay set for the
	// largest b.N so the benchmark measures signing, not a full set.
	h := newHarness(b, func(c *harnessConfig) { c.auth.NonceCapacity = 20_000_000 })
	h.addClient("c", "secret-c", clientOpts{})
	tok := h.token("c", "secret-c")
	full := h.api.Handler()
	p, err := h.auth.Authenticate(context.Background(), tok)
	if err != nil {
		b.Fatal(err)
	}
	bare := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: w, caller: p}
		if err := h.api.handleWhoami(sw, r); err != nil {
			b.Fatal(err)
		}
	})
	ts := strconv.FormatInt(h.clock.Now().Unix(), 10)

	b.Run("signed", func(b *testing.B) {
		nonces, sigs := presign(b, tok, ts)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			req := signedRequest("/v1/api/whoami", tok, ts, nonces[i], sigs[i])
			rec := httptest.NewRecorder()
			full.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				b.Fatalf("status %d: %s", rec.Code, rec.Body.Bytes())
			}
		}
	})
	b.Run("bare", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			req := httptest.NewRequest(http.MethodGet, "/v1/api/whoami", nil)
			rec := httptest.NewRecorder()
			bare.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				b.Fatalf("status %d", rec.Code)
			}
		}
	})
}

// benchSignedGet sends b.N signed GETs of path through the whole stack,
// each with its own nonce, timing each one, and reports their p50 beside
// the mean: a latency goal is about the typical request.
func benchSignedGet(b *testing.B, full http.Handler, path, tok, ts string) {
	nonces, sigs := presign(b, tok, ts)
	took := make([]time.Duration, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		req := signedRequest(path, tok, ts, nonces[i], sigs[i])
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
}
