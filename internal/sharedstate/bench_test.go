package sharedstate_test

// Benchmarks against the server MDQS_TEST_REDIS names:
//
//	MDQS_TEST_REDIS=redis://127.0.0.1:56379 go test -run '^$' -bench . -benchmem ./sharedstate
//
// Limiter keys and blobs expire by themselves; nothing is flushed.

import (
	"context"
	"testing"
	"time"

	"mdqs/internal/sharedstate/redistest"
)

// benchTTL keeps the keys a benchmark makes (hundreds of thousands of
// nonces) only briefly on the shared server.
const benchTTL = 10 * time.Second

// One Take per request, on one client's bucket (a rate no call is refused
// at, so every call writes).
func BenchmarkTake(b *testing.B) {
	c := open(b, redistest.Prefix(b))
	ctx := context.Background()
	b.Run("serial", func(b *testing.B) {
		for b.Loop() {
			if _, ok, err := c.Take(ctx, "k", 1e9, 1000); err != nil || !ok {
				b.Fatal(ok, err)
			}
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.SetParallelism(32)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, ok, err := c.Take(ctx, "k", 1e9, 1000); err != nil || !ok {
					b.Error(ok, err)
					return
				}
			}
		})
	})
}

// Version is the readers' hot path: after the first call, the client-side
// cache answers.
func BenchmarkVersion(b *testing.B) {
	c := open(b, redistest.Prefix(b))
	ctx := context.Background()
	if _, err := c.PutIfNewer(ctx, "top50", 1, []byte("ranking"), time.Minute); err != nil {
		b.Fatal(err)
	}
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if v, _, err := c.Version(ctx, "top50"); err != nil || v != 1 {
				b.Error(v, err)
				return
			}
		}
	})
}
