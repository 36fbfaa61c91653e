package api

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"mdqs/internal/market"
)

// RateLimit is one token bucket: Rate requests per second refill Burst. A
// zero Rate means no limit.
type RateLimit struct {
	Rate  float64
	Burst int
}

// Limits are the server's rate limits.
type Limits struct {
	Client  RateLimit            // per authenticated client
	Clients map[string]RateLimit // per-client overrides by client id
	Token   RateLimit            // token endpoints, per remote address
	// FailedSecret: wrong secrets per client id and, with the same
	// rate, per address; BadToken: unknown or expired tokens per address.
	// All are this process's own buckets, even with Shared set (a
	// deployment of N instances allows N times).
	FailedSecret RateLimit
	BadToken     RateLimit
	// Shared, when set, holds the buckets for every instance of a
	// deployment, so a client cannot multiply its budget by the number
	// of instances. When it fails, this process's own buckets answer.
	Shared SharedLimits
}

// SharedLimits is a token bucket per key that several instances spend
// from (cluster.Limits, over Redis).
type SharedLimits interface {
	Take(ctx context.Context, key string, rate float64, burst int) (wait time.Duration, ok bool, err error)
}

// maxIdleBuckets bounds the buckets kept per limiter. Past it, full
// buckets are dropped: a full bucket is what a new one would be anyway.
const maxIdleBuckets = 10_000

// buckets is a token bucket per key (a client id, a remote address).
type buckets struct {
	name      string // the shared store's key prefix: which limit this is
	shared    SharedLimits
	def       RateLimit
	overrides map[string]RateLimit
	clock     market.Clock
	rejected  atomic.Uint64

	mu sync.Mutex
	m  map[string]*rate.Limiter
}

func newBuckets(name string, shared SharedLimits, def RateLimit, overrides map[string]RateLimit, clock market.Clock) *buckets {
	return &buckets{name: name, shared: shared, def: def, overrides: overrides, clock: clock, m: map[string]*rate.Limiter{}}
}

// take spends one token of key's bucket. When the bucket is empty it spends
// nothing and says how long until a token is there.
func (b *buckets) take(ctx context.Context, key string) (wait time.Duration, ok bool) {
	lim := b.def
	if o, found := b.overrides[key]; found {
		lim = o
	}
	if lim.Rate <= 0 {
		return 0, true
	}
	if b.shared != nil {
		wait, ok, err := b.shared.Take(ctx, b.name+":"+key, lim.Rate, lim.Burst)
		if err == nil {
			if !ok {
				b.rejected.Add(1)
			}
			return wait, ok
		}
		// The shared store is down (the adapter logs and reports it):
		// this instance's own bucket is the next best limit.
	}
	now := b.clock.Now()
	b.mu.Lock()
	l := b.m[key]
	if l == nil {
		if len(b.m) >= maxIdleBuckets {
			b.pruneFull(now)
		}
		l = rate.NewLimiter(rate.Limit(lim.Rate), lim.Burst)
		b.m[key] = l
	}
	b.mu.Unlock()
	r := l.ReserveN(now, 1)
	if !r.OK() {
		b.rejected.Add(1)
		return time.Second, false
	}
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		b.rejected.Add(1)
		return d, false
	}
	return 0, true
}

// spent reports whether key's bucket is empty, without spending, and how
// long until it holds a token again, counting the refusal the caller
// makes. Only this process's buckets: it is for the failure limits, which
// take a token on each failure and refuse while none is left.
func (b *buckets) spent(key string) (wait time.Duration, empty bool) {
	wait, empty = b.empty(key)
	if empty {
		b.rejected.Add(1)
	}
	return wait, empty
}

// empty is spent without counting a refusal.
func (b *buckets) empty(key string) (wait time.Duration, empty bool) {
	lim := b.def
	if lim.Rate <= 0 {
		return 0, false
	}
	now := b.clock.Now()
	b.mu.Lock()
	l := b.m[key]
	b.mu.Unlock()
	if l == nil {
		return 0, false
	}
	tokens := l.TokensAt(now)
	if tokens >= 1 {
		return 0, false
	}
	return time.Duration((1 - tokens) / lim.Rate * float64(time.Second)), true
}

// clean reports whether key has no failures left to refill: no bucket,
// or a full one.
func (b *buckets) clean(key string) bool {
	if b.def.Rate <= 0 {
		return true
	}
	b.mu.Lock()
	l := b.m[key]
	b.mu.Unlock()
	return l == nil || l.TokensAt(b.clock.Now()) >= float64(l.Burst())
}

func (b *buckets) pruneFull(now time.Time) {
	for k, l := range b.m {
		if l.TokensAt(now) >= float64(l.Burst()) {
			delete(b.m, k)
		}
	}
	if len(b.m) >= maxIdleBuckets {
		// Every bucket is in use: a flood from many addresses. Starting
		// over gives each a fresh bucket, which is no worse than refusing
		// to track new ones.
		clear(b.m)
	}
}

func rateLimited(who string, wait time.Duration) error {
	return &market.Error{Kind: market.KindRateLimited, Message: "too many requests",
		Detail:     who + " is over its rate limit; retry after the time in retry_after (seconds)",
		RetryAfter: wait}
}

// remoteHost is the connection's address without the port. Behind a
// reverse proxy every caller is the proxy; mdqs is meant to be reached
// directly.
func remoteHost(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// addrKey is the key of the per-address buckets: one machine is one key.
// Every 127.x.y.z (and ::1) is this machine, so a loop rotating over
// 127.0.0.0/8 gets one bucket, not sixteen million; an IPv6 caller owns
// its whole /64, so it is one key too.
func addrKey(r *http.Request) string {
	host := remoteHost(r)
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	ip = ip.Unmap()
	switch {
	case ip.IsLoopback():
		return "loopback"
	case ip.Is6():
		p, err := ip.Prefix(64)
		if err == nil {
			return p.String()
		}
	}
	return ip.String()
}
