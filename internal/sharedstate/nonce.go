package sharedstate

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/rueidis"
)

// AddNonce records a request's nonce for ttl and reports whether it was
// fresh: false means some instance (this one, another, or one before a
// restart) has seen it within ttl, so the request is a replay. It is one
// SET NX PX, so two instances racing on the same nonce cannot both see it
// fresh, and Redis forgets it by itself when the signature's time window
// has passed. ttl is rounded up to a whole millisecond.
func (c *Client) AddNonce(ctx context.Context, key string, ttl time.Duration) (fresh bool, err error) {
	if ttl <= 0 {
		return false, fmt.Errorf("sharedstate: AddNonce: ttl %v is not positive", ttl)
	}
	ctx, cancel := c.ctx(ctx)
	defer cancel()
	cmd := c.rdb.B().Set().Key(c.prefix + "nonce:" + key).Value("1").Nx().PxMilliseconds(ceilMillis(ttl)).Build()
	err = c.rdb.Do(ctx, cmd).Error()
	switch {
	case err == nil:
		return true, nil
	case rueidis.IsRedisNil(err): // NX refused: the key is there
		return false, nil
	}
	return false, c.fail("SET NX nonce", err)
}

// ceilMillis is d in whole milliseconds, rounded up: a key must not expire
// before the time it was asked to live.
func ceilMillis(d time.Duration) int64 {
	return int64((d + time.Millisecond - 1) / time.Millisecond)
}
