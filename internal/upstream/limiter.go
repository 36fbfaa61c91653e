package upstream

import (
	"strings"
	"sync"

	"golang.org/x/time/rate"
)

// Limiters is the registry of request-rate caps, one per upstream host. A ban
// is per host (really per client IP), whichever of our clients caused it, so
// every client pointed at a host draws from that host's single limiter. The
// caller creates one registry per process and hands it to every client.
type Limiters struct {
	mu sync.Mutex
	m  map[string]*rate.Limiter
}

func NewLimiters() *Limiters { return &Limiters{m: map[string]*rate.Limiter{}} }

// For returns the limiter of host (host[:port] as in the URL, case-folded,
// or a SourceConfig.RateGroup name).
// When clients ask different caps for one host the strictest rate and the
// smallest burst win: politeness must not depend on construction order.
func (l *Limiters) For(host string, perSecond float64, burst int) *rate.Limiter {
	if burst < 1 {
		burst = 1
	}
	key := strings.ToLower(host)
	l.mu.Lock()
	defer l.mu.Unlock()
	lim, ok := l.m[key]
	if !ok {
		lim = rate.NewLimiter(rate.Limit(perSecond), burst)
		l.m[key] = lim
		return lim
	}
	if rate.Limit(perSecond) < lim.Limit() {
		lim.SetLimit(rate.Limit(perSecond))
	}
	if burst < lim.Burst() {
		lim.SetBurst(burst)
	}
	return lim
}
