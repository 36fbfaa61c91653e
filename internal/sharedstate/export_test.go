package sharedstate

import (
	"context"
	"strconv"
	"time"
)

// TakeAt is Take at an instant of the test's choosing instead of Redis's
// TIME, so the script can be compared with x/time/rate step by step.
func (c *Client) TakeAt(ctx context.Context, key string, ratePerSec float64, burst int, now time.Time) (time.Duration, bool, error) {
	return c.take(ctx, key, ratePerSec, burst, strconv.FormatInt(now.UnixMicro(), 10))
}

// AppendEventAs is AppendEvent with the append's token given: a retry
// whose first try reached Redis sends the same token again.
func (c *Client) AppendEventAs(ctx context.Context, seq int64, token string, fields map[string]string) (int64, error) {
	return c.appendEvent(ctx, seq, token, fields)
}
