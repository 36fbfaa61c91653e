package sharedstate_test

import (
	"context"
	"testing"
	"time"

	"mdqs/internal/sharedstate/redistest"
)

func TestNonceIsFreshOnceAcrossInstances(t *testing.T) {
	prefix := redistest.Prefix(t)
	a, b := open(t, prefix), open(t, prefix)
	ctx := context.Background()
	steps := []struct {
		who   string
		nonce string
		fresh bool
	}{
		{"a", "n1", true},
		{"b", "n1", false}, // the other instance sees the replay
		{"a", "n1", false},
		{"b", "n2", true},
		{"a", "n2", false},
	}
	clients := map[string]interface {
		AddNonce(context.Context, string, time.Duration) (bool, error)
	}{"a": a, "b": b}
	for i, s := range steps {
		fresh, err := clients[s.who].AddNonce(ctx, s.nonce, time.Minute)
		if err != nil {
			t.Fatalf("step %d: %s.AddNonce(%q): %v", i, s.who, s.nonce, err)
		}
		if fresh != s.fresh {
			t.Errorf("step %d: %s.AddNonce(%q) = %v, want %v", i, s.who, s.nonce, fresh, s.fresh)
		}
	}
	// Another deployment (prefix) has nonces of its own.
	if fresh, err := open(t, redistest.Prefix(t)).AddNonce(ctx, "n1", time.Minute); err != nil || !fresh {
		t.Errorf("AddNonce(n1) under another prefix = %v, %v, want true, nil", fresh, err)
	}
}

func TestNonceExpiresAfterTTL(t *testing.T) {
	c := open(t, redistest.Prefix(t))
	ctx := context.Background()
	const ttl = 200 * time.Millisecond
	if fresh, err := c.AddNonce(ctx, "n", ttl); err != nil || !fresh {
		t.Fatalf("AddNonce = %v, %v, want true, nil", fresh, err)
	}
	if fresh, err := c.AddNonce(ctx, "n", ttl); err != nil || fresh {
		t.Fatalf("AddNonce again = %v, %v, want false, nil", fresh, err)
	}
	time.Sleep(ttl + 50*time.Millisecond)
	if fresh, err := c.AddNonce(ctx, "n", ttl); err != nil || !fresh {
		t.Errorf("AddNonce after the ttl = %v, %v, want true, nil", fresh, err)
	}
}

func TestNonceRefusesANonPositiveTTL(t *testing.T) {
	c := open(t, redistest.Prefix(t))
	for _, ttl := range []time.Duration{0, -time.Second} {
		if _, err := c.AddNonce(context.Background(), "n", ttl); err == nil {
			t.Errorf("AddNonce(ttl %v) = nil error, want one", ttl)
		}
	}
}
