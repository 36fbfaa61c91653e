//go:build load

package loadtest

import (
	"context"
	"flag"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"mdqs/db/dbtest"
	"mdqs/internal/client"
	"mdqs/internal/loadgen"
	"mdqs/internal/sharedstate"
	"mdqs/internal/sharedstate/redistest"
)

var (
	relayStreams = flag.Int("relay.streams", 1000, "streams open during TestRelayDelay, spread over the three instances")
	relayEvents  = flag.Int("relay.events", 50, "events relayed during TestRelayDelay, one every 100 ms")
)

// TestRelayDelay measures the stream relay of issue 36: three instances of
// a team (the built binary, demo market, one PostgreSQL, one Redis), 1,000
// open streams spread over them (a connection each, held by this process),
// and an event appended to the relay every 100 ms as the leader appends
// one: the delay from the append to each stream's read of the event,
// p50/p99/max over every stream and event.
//
//	MDQS_TEST_POSTGRES=... MDQS_TEST_REDIS=... go test -tags load -run RelayDelay -v ./internal/loadtest
//
// The events are appended here, through the same sharedstate call the
// leader's relay makes, so their data can carry the instant of the append;
// the leader's own events go the same way.
func TestRelayDelay(t *testing.T) {
	pg := dbtest.NeedPostgres(t)
	redisURL := redistest.URL(t)
	prefix := redistest.Prefix(t)
	db := dbtest.NewSchema(t, pg)
	member := func(name string) string {
		return fmt.Sprintf("[server]\ninstance = %q\n[cache]\nredis = %q\nredis_prefix = %q\n[stream]\nmax_per_client = %d\n",
			name, redisURL, prefix, *relayStreams)
	}
	var ps []*loadgen.Process
	for _, name := range []string{"a", "b", "c"} {
		ps = append(ps, startDemoOn(t, smallSize, db, member(name)))
	}
	rc, err := sharedstate.Open(context.Background(), redisURL, sharedstate.Options{Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clients := make([]*client.Client, len(ps))
	for i, p := range ps {
		clients[i] = client.New(p.Addr, "demo", "demo-secret")
	}
	var (
		mu     sync.Mutex
		delays []time.Duration
		opened sync.WaitGroup
		got    sync.WaitGroup
		ended  sync.WaitGroup
		sem    = make(chan struct{}, 50)
	)
	opened.Add(*relayStreams)
	got.Add(*relayStreams)
	for i := range *relayStreams {
		ended.Add(1)
		sem <- struct{}{}
		go func() {
			defer ended.Done()
			mine := make([]time.Duration, 0, *relayEvents)
			first := true
			resp, err := clients[i%len(clients)].Stream(ctx, "/v1/api/stream?topics=ranking", nil, func(line string) error {
				if first && line == "event: open" {
					first = false
					<-sem
					opened.Done()
				}
				if rest, ok := strings.CutPrefix(line, `data: {"load":`); ok {
					sent, _ := strconv.ParseInt(strings.TrimSuffix(rest, "}"), 10, 64)
					mine = append(mine, time.Since(time.Unix(0, sent)))
					if len(mine) == *relayEvents {
						mu.Lock()
						delays = append(delays, mine...)
						mu.Unlock()
						got.Done()
					}
				}
				return nil
			})
			if first {
				t.Errorf("stream %d did not open: %v %+v", i, err, resp)
				<-sem
				opened.Done()
				got.Done()
			}
		}()
	}
	opened.Wait()
	t.Logf("%d streams open on %d instances (%d goroutines in this process)", *relayStreams, len(ps), runtime.NumGoroutine())
	tick := time.NewTicker(100 * time.Millisecond)
	for range *relayEvents {
		<-tick.C
		now := time.Now()
		if _, err := rc.AppendEvent(ctx, now.UnixMicro(), map[string]string{"t": "ranking", "i": "load",
			"d": `{"load":` + strconv.FormatInt(now.UnixNano(), 10) + `}`}); err != nil {
			t.Fatal(err)
		}
	}
	tick.Stop()
	done := make(chan struct{})
	go func() { got.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("not every stream got every event within 30 s (%d delays recorded)", len(delays))
	}
	cancel()
	ended.Wait()
	slices.Sort(delays)
	q := func(p float64) time.Duration {
		return delays[min(len(delays)-1, int(p*float64(len(delays))))].Round(10 * time.Microsecond)
	}
	t.Logf("%d streams on 3 instances, %d events every 100 ms: delay from the append to the client's read p50 %v, p99 %v, max %v (%d deliveries)",
		*relayStreams, *relayEvents, q(0.5), q(0.99), delays[len(delays)-1].Round(10*time.Microsecond), len(delays))
	if want := *relayStreams * *relayEvents; len(delays) != want {
		t.Errorf("%d deliveries, want %d", len(delays), want)
	}
}
