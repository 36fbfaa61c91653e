package upstream

import "context"

// Waiter is the context key saying that a request waits on the calls made
// with the context (the API sets it on every route bounded by
// server.upstream_wait). Such a call probes a source that has not answered
// yet, one attempt per host, instead of spending seconds of retries on the
// request; background work keeps its retries (breaker.allow).
type Waiter struct{}

// WithWaiter marks ctx as one a request waits on.
func WithWaiter(ctx context.Context) context.Context {
	return context.WithValue(ctx, Waiter{}, true)
}

// Waiting says whether a request waits on calls made with ctx; a shared
// fetch a request starts carries the mark on to its own context.
func Waiting(ctx context.Context) bool {
	v, _ := ctx.Value(Waiter{}).(bool)
	return v
}
