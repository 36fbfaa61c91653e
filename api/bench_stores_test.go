package api

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"mdqs/db/dbtest"
	"mdqs/internal/auth"
	"mdqs/internal/market"
	"mdqs/internal/upstream/upstreamtest"
)

// BenchmarkStores runs the requests whose cost a store could change on
// SQLite and, when MDQS_TEST_POSTGRES names a server, on PostgreSQL, in
// one run:
//
//		MDQS_TEST_POSTGRES=postgres://... go test -run '^$' -bench Stores -benchmem ./api
//
//	  - top50: the cached ranking through the whole stack (it reads no
//	    store: the same on both);
//	  - token-issue: POST /v1/auth/token with the shipped argon2id cost,
//	    what a script's login costs;
//	  - token-issue-store: the same with a cheap hash, which leaves the
//	    store's part (read the client, insert the token, cap the client's
//	    tokens) standing out;
//	  - token-verify: a token's first use (the token cache misses, the store
//	    reads token and client) and a later one (the cache answers).
func BenchmarkStores(b *testing.B) {
	targets := []struct{ name, target string }{{"sqlite", filepath.Join(b.TempDir(), "mdqs.db")}}
	if os.Getenv(dbtest.PostgresEnv) != "" {
		targets = append(targets, struct{ name, target string }{"postgres", dbtest.NewSchema(b, os.Getenv(dbtest.PostgresEnv))})
	} else {
		b.Logf("%s not set: SQLite only (%s)", dbtest.PostgresEnv, dbtest.HowToPostgres)
	}
	for _, st := range targets {
		h := newHarness(b, withStore(st.target), func(c *harnessConfig) {
			c.auth.NonceCapacity = 20_000_000
			c.auth.TokenCacheSize = 1_000_000
		})
		h.push2.SetSectors(market.Industry, t0, upstreamtest.Sectors("行业", 90))
		h.push2.SetSectors(market.Concept, t0, upstreamtest.Sectors("概念", 450))
		h.addClient("c", "secret-c", clientOpts{})
		putCheapClient(b, h, "cheap", "secret-cheap")
		tok := h.token("c", "secret-c")
		full := h.api.Handler()
		ts := strconv.FormatInt(h.clock.Now().Unix(), 10)

		b.Run(st.name+"/top50", func(b *testing.B) {
			nonces, sigs := presign(b, tok, ts)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				req := signedRequest("/v1/api/boards/top50", tok, ts, nonces[i], sigs[i])
				rec := httptest.NewRecorder()
				full.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("status %d: %.200s", rec.Code, rec.Body.Bytes())
				}
			}
		})
		issue := func(id, secret string) func(b *testing.B) {
			body := `{"client_id":"` + id + `","client_secret":"` + secret + `"}`
			return func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					req := httptest.NewRequest(http.MethodPost, "/v1/auth/token", strings.NewReader(body))
					req.RemoteAddr = "127.0.0.1:" + strconv.Itoa(1024+i%60000) // the token limit is per address
					rec := httptest.NewRecorder()
					full.ServeHTTP(rec, req)
					if rec.Code != http.StatusOK {
						b.Fatalf("status %d: %.200s", rec.Code, rec.Body.Bytes())
					}
				}
			}
		}
		b.Run(st.name+"/token-issue", issue("c", "secret-c"))
		b.Run(st.name+"/token-issue-store", issue("cheap", "secret-cheap"))
		b.Run(st.name+"/token-verify/first-use", func(b *testing.B) {
			// Tokens issued before the clock starts, each used once: the
			// cache has not seen any of them. A client keeps its 20 newest
			// live tokens, so they come from clients of 20 tokens each.
			toks := make([]string, b.N)
			for i := range toks {
				id := "v" + strconv.Itoa(i/20)
				if i%20 == 0 {
					putCheapClient(b, h, id, "secret-"+id)
				}
				iss, err := h.auth.IssueToken(context.Background(), id, "secret-"+id)
				if err != nil {
					b.Fatal(err)
				}
				toks[i] = iss.Token
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := h.auth.Authenticate(context.Background(), toks[i]); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(st.name+"/token-verify/cached", func(b *testing.B) {
			putCheapClient(b, h, "reader", "secret-reader")
			iss, err := h.auth.IssueToken(context.Background(), "reader", "secret-reader")
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := h.auth.Authenticate(context.Background(), iss.Token); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// putCheapClient stores a client whose secret hashes at argon2id's least
// cost.
func putCheapClient(b *testing.B, h *harness, id, secret string) {
	hash, err := auth.HashSecret(secret, auth.KDFParams{MemoryKiB: 64, Time: 1, Threads: 1})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := h.store.PutClient(context.Background(), auth.Client{ID: id, SecretHash: hash, Scopes: auth.DefaultScopes(),
		Enabled: true, CreatedAt: t0, UpdatedAt: t0}); err != nil {
		b.Fatal(err)
	}
}
