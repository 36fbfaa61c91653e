package cache_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"mdqs/cache"
	"mdqs/cache/cachetest"
)

type build struct {
	Value float64
	Note  string
}

func TestTierNewestBuildWins(t *testing.T) {
	ctx := context.Background()
	shared := cachetest.NewShared()
	var logs bytes.Buffer
	tier := cache.NewTier[build](shared, "t:", slog.New(slog.NewTextHandler(&logs, nil)))

	if _, ok := tier.Newer(ctx, "k", 0); ok {
		t.Fatal("an empty store has something newer")
	}
	if _, ok := tier.Publish(ctx, "k", 200, build{Value: 2}, time.Minute); ok {
		t.Fatal("publishing into an empty store returned another build")
	}
	if got, ok := tier.Newer(ctx, "k", 100); !ok || got.Value != 2 {
		t.Fatalf("Newer than 100: %v %v; want the build of 200", got, ok)
	}
	if _, ok := tier.Newer(ctx, "k", 200); ok {
		t.Fatal("the same version counted as newer")
	}
	// An older or equal build is not stored; the caller gets the newer one.
	for _, v := range []int64{100, 200} {
		if got, ok := tier.Publish(ctx, "k", v, build{Value: 1}, time.Minute); !ok || got.Value != 2 {
			t.Fatalf("publishing version %d over 200: %v %v; want the stored build back", v, got, ok)
		}
	}
	// No time left to live: nothing is shared.
	if _, ok := tier.Publish(ctx, "other", 300, build{}, 0); ok || len(shared.Keys()) != 1 {
		t.Fatalf("a build without ttl was shared: %v", shared.Keys())
	}
	// Keys are namespaced by the tier's prefix.
	if keys := shared.Keys(); keys[0] != "t:k" {
		t.Fatalf("keys %v, want t:k", keys)
	}
	// An entry that does not decode is ignored and logged, never served.
	shared.PutIfNewer(ctx, "t:bad", 5, []byte("not gob"), time.Minute)
	if _, ok := tier.Newer(ctx, "bad", 0); ok || !strings.Contains(logs.String(), "unreadable") {
		t.Fatalf("an unreadable entry: ok %v, log %q", ok, logs.String())
	}
	// An outage is no newer build, and a publish during one returns none.
	shared.SetDown(true)
	if _, ok := tier.Newer(ctx, "k", 0); ok {
		t.Fatal("Newer during an outage")
	}
	if _, ok := tier.Publish(ctx, "k", 900, build{}, time.Minute); ok {
		t.Fatal("Publish during an outage returned a build")
	}
}

func TestNilTierSharesNothing(t *testing.T) {
	tier := cache.NewTier[build](nil, "t:", slog.Default())
	if tier != nil {
		t.Fatal("a tier over no store is not nil")
	}
	if _, ok := tier.Newer(context.Background(), "k", 0); ok {
		t.Fatal("nil tier: Newer")
	}
	if _, ok := tier.Publish(context.Background(), "k", 1, build{}, time.Minute); ok {
		t.Fatal("nil tier: Publish")
	}
}
