package sharedstate_test

import (
	"context"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"mdqs/internal/sharedstate"
	"mdqs/internal/sharedstate/redistest"
)

// On an instant of the test's choosing (TakeAt), so that a loaded machine
// cannot refill a token between two calls: with Redis's own clock this
// test failed in CI once, 100 ms having passed between the last two takes.
func TestTakeBurstThenRefusalThenRefill(t *testing.T) {
	c := open(t, redistest.Prefix(t))
	ctx := context.Background()
	const r, burst = 10.0, 3 // a token every 100ms
	t0 := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	for i := range burst {
		if wait, ok, err := c.TakeAt(ctx, "k", r, burst, t0); err != nil || !ok || wait != 0 {
			t.Fatalf("Take %d = %v, %v, %v, want 0, true, nil (the burst)", i+1, wait, ok, err)
		}
	}
	wait, ok, err := c.TakeAt(ctx, "k", r, burst, t0)
	if err != nil || ok || wait != 100*time.Millisecond {
		t.Fatalf("Take past the burst = %v, %v, %v, want 100ms, false, nil", wait, ok, err)
	}
	// A refusal spends nothing: asking again a little later says less.
	again, ok, err := c.TakeAt(ctx, "k", r, burst, t0.Add(30*time.Millisecond))
	if err != nil || ok || again != 70*time.Millisecond {
		t.Fatalf("Take refused again = %v, %v, %v, want 70ms, false, nil", again, ok, err)
	}
	at := t0.Add(30*time.Millisecond + again)
	if wait, ok, err := c.TakeAt(ctx, "k", r, burst, at); err != nil || !ok {
		t.Fatalf("Take after waiting %v = %v, %v, %v, want ok", again, wait, ok, err)
	}
	if _, ok, err := c.TakeAt(ctx, "k", r, burst, at.Add(99*time.Millisecond)); err != nil || ok {
		t.Fatalf("Take 99ms after the refilled token = %v, %v, want refused", ok, err)
	}
	// Redis's own clock, the one Take uses, gives a new key its burst.
	if _, ok, err := c.Take(ctx, "fresh", r, burst); err != nil || !ok {
		t.Fatalf("Take on Redis's clock = %v, %v", ok, err)
	}
}

// The key lives until the bucket is full again, no longer.
func TestTakeKeyExpiresWhenTheBucketIsFull(t *testing.T) {
	prefix := redistest.Prefix(t)
	c := open(t, prefix)
	ctx := context.Background()
	for range 2 {
		if _, ok, err := c.Take(ctx, "k", 10, 5); err != nil || !ok {
			t.Fatalf("Take = %v, %v", ok, err)
		}
	}
	rdb := raw(t)
	pttl, err := rdb.Do(ctx, rdb.B().Pttl().Key(prefix+"rate:k").Build()).AsInt64()
	if err != nil {
		t.Fatal(err)
	}
	// Two tokens spent at 10/s: full again in 200ms.
	if pttl < 100 || pttl > 200 {
		t.Errorf("PTTL of the bucket = %dms, want about 200ms (two tokens at 10/s)", pttl)
	}
}

func TestTakeSharesOneBudgetAcrossInstances(t *testing.T) {
	prefix := redistest.Prefix(t)
	clients := []*sharedstate.Client{open(t, prefix), open(t, prefix), open(t, prefix)}
	ctx := context.Background()
	const burst = 4
	granted := 0
	for i := range 12 {
		_, ok, err := clients[i%len(clients)].Take(ctx, "client-7", 0.01, burst)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			granted++
		}
	}
	if granted != burst {
		t.Errorf("3 instances taking 12 times granted %d, want the one budget of %d", granted, burst)
	}
	// Another key has a budget of its own.
	if _, ok, err := clients[0].Take(ctx, "client-8", 0.01, burst); err != nil || !ok {
		t.Errorf("Take on another key = %v, %v, want ok", ok, err)
	}
}

func TestTakeConcurrentNeverGrantsMoreThanBurst(t *testing.T) {
	prefix := redistest.Prefix(t)
	a, b := open(t, prefix), open(t, prefix)
	ctx := context.Background()
	const burst, goroutines, each = 5, 16, 4
	var granted, refused atomic.Int64
	var wg sync.WaitGroup
	start := make(chan struct{})
	for g := range goroutines {
		c := a
		if g%2 == 1 {
			c = b
		}
		wg.Go(func() {
			<-start
			for range each {
				// 0.001/s: no token comes back while the test runs.
				_, ok, err := c.Take(ctx, "k", 0.001, burst)
				if err != nil {
					t.Error(err)
					return
				}
				if ok {
					granted.Add(1)
				} else {
					refused.Add(1)
				}
			}
		})
	}
	close(start)
	wg.Wait()
	if granted.Load() != burst || refused.Load() != goroutines*each-burst {
		t.Errorf("%d goroutines × %d Takes: %d granted, %d refused, want %d and %d",
			goroutines, each, granted.Load(), refused.Load(), burst, goroutines*each-burst)
	}
}

// The script against x/time/rate at the same instants: the same answers,
// and a refusal's wait is the time until the Limiter has one token.
func TestTakeMatchesXTimeRate(t *testing.T) {
	c := open(t, redistest.Prefix(t))
	ctx := context.Background()
	tests := []struct {
		rate    float64
		burst   int
		maxStep time.Duration // between calls, uniform in [0, maxStep)
	}{
		{1, 1, 2 * time.Second},
		{10, 3, 150 * time.Millisecond},
		{3, 5, 500 * time.Millisecond}, // T = 333333.3µs, not a whole µs
		{1000, 50, 1200 * time.Microsecond},
		{0.2, 2, 8 * time.Second},
	}
	for i, tt := range tests {
		rng := rand.New(rand.NewPCG(uint64(i), 7))
		lim := rate.NewLimiter(rate.Limit(tt.rate), tt.burst)
		key := "cmp" + string(rune('a'+i))
		now := time.Now().Truncate(time.Microsecond)
		grants := 0
		for step := range 400 {
			now = now.Add(time.Duration(rng.Int64N(int64(tt.maxStep))).Truncate(time.Microsecond))
			tokens := lim.TokensAt(now)
			want := lim.AllowN(now, 1)
			wait, ok, err := c.TakeAt(ctx, key, tt.rate, tt.burst, now)
			if err != nil {
				t.Fatal(err)
			}
			if ok != want {
				t.Fatalf("rate %v burst %d, step %d: Take = %v, x/time/rate allows %v (it has %.6f tokens)", tt.rate, tt.burst, step, ok, want, tokens)
			}
			if ok {
				grants++
				if wait != 0 {
					t.Errorf("rate %v burst %d, step %d: granted with wait %v, want 0", tt.rate, tt.burst, step, wait)
				}
				continue
			}
			wantWait := time.Duration((1 - tokens) / tt.rate * float64(time.Second))
			if d := wait - wantWait; d < 0 || d > 2*time.Microsecond {
				t.Errorf("rate %v burst %d, step %d: refused with wait %v, want %v (one token, rounded up to a µs)", tt.rate, tt.burst, step, wait, wantWait)
			}
		}
		if grants == 0 || grants == 400 {
			t.Errorf("rate %v burst %d: %d of 400 granted, want the sequence to test both answers", tt.rate, tt.burst, grants)
		}
	}
}

func TestTakeRefusesALimiterWithoutTokens(t *testing.T) {
	c := open(t, redistest.Prefix(t))
	tests := []struct {
		rate  float64
		burst int
	}{{0, 1}, {-1, 1}, {1, 0}, {math.NaN(), 1}, {math.Inf(1), 1}}
	for _, tt := range tests {
		if _, _, err := c.Take(context.Background(), "k", tt.rate, tt.burst); err == nil {
			t.Errorf("Take(rate %v, burst %d) = nil error, want one", tt.rate, tt.burst)
		}
	}
}
