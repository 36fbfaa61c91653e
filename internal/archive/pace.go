package archive

import (
	"context"
	"math/rand/v2"
	"time"
)

// pacer spaces source requests at most rate a second on average, each gap
// drawn between half and one and a half of the mean: a fixed beat is the
// easiest pattern for a ban filter to see.
type pacer struct {
	mean  time.Duration // 0: no cap
	sleep func(context.Context, time.Duration) error
	first bool
}

func newPacer(rate float64, sleep func(context.Context, time.Duration) error) *pacer {
	p := &pacer{sleep: sleep, first: true}
	if rate > 0 {
		p.mean = time.Duration(float64(time.Second) / rate)
	}
	return p
}

// wait holds a request back its share of the rate (the first goes at once).
func (p *pacer) wait(ctx context.Context) error {
	if p.mean == 0 {
		return ctx.Err()
	}
	if p.first {
		p.first = false
		return ctx.Err()
	}
	return p.sleep(ctx, time.Duration(float64(p.mean)*(0.5+rand.Float64())))
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
