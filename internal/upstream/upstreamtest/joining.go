package upstreamtest

import (
	"context"
	"sync"

	"mdqs/internal/upstream"
)

// Joining is a request's context (it carries upstream.Waiter) that says
// when a service first looks for the mark, which is when the request
// joins work that is already running.
type Joining struct {
	context.Context
	once   sync.Once
	joined chan struct{}
}

// NewJoining wraps ctx.
func NewJoining(ctx context.Context) *Joining {
	return &Joining{Context: ctx, joined: make(chan struct{})}
}

// Joined is closed once the mark has been looked for.
func (c *Joining) Joined() <-chan struct{} { return c.joined }

func (c *Joining) Value(key any) any {
	if _, ok := key.(upstream.Waiter); ok {
		c.once.Do(func() { close(c.joined) })
		return true
	}
	return c.Context.Value(key)
}
