package loadtest

import (
	"context"
	"testing"
	"time"

	"mdqs/internal/loadgen"
)

// TestShortLoad is the sustained-load test cut to a few seconds on a small
// demo market, for the normal suite: every answer must be a success.
func TestShortLoad(t *testing.T) {
	p := startDemo(t, smallSize)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := loadgen.Run(ctx, loadgen.Config{Addr: p.Addr, Duration: 3 * time.Second, Concurrency: 4, Memory: p.RSS})
	if err != nil {
		t.Fatalf("%v\n%s", err, p.Logs())
	}
	report(t, res)
	if t.Failed() {
		t.Logf("server log:\n%s", p.Logs())
	}
}
