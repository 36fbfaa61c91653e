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
