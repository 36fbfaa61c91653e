package jobs

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"mdqs/market"
)

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestRunnerRunsAtStartAndOnTicks(t *testing.T) {
	r := NewRunner(quiet(), market.SystemClock{})
	var n atomic.Int64
	done := make(chan struct{}, 10)
	r.Add(Job{Name: "count", Interval: 5 * time.Millisecond, RunAtStart: true, Run: func(ctx context.Context) error {
		n.Add(1)
		done <- struct{}{}
		return nil
	}})
	r.Start(context.Background())
	for range 3 {
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("job did not run three times within 5s")
		}
	}
	r.Stop()
	after := n.Load()
	time.Sleep(20 * time.Millisecond)
	if n.Load() != after {
		t.Fatalf("job ran after Stop: %d then %d", after, n.Load())
	}
	if st := r.Statuses()[0]; st.Runs < 3 || st.Running {
		t.Fatalf("status = %+v, want >= 3 runs and not running", st)
	}
}

func TestGateSkipsRunsOutsideWindow(t *testing.T) {
	clock := market.NewFixedClock(time.Date(2026, 11, 21, 3, 0, 0, 0, market.Shanghai()))
	r := NewRunner(quiet(), clock)
	ran := make(chan struct{}, 100)
	r.Add(Job{Name: "gated", Interval: 2 * time.Millisecond, Gate: func(now time.Time) bool { return now.Hour() >= 9 },
		Run: func(ctx context.Context) error { ran <- struct{}{}; return nil }})
	r.Start(context.Background())
	defer r.Stop()
	deadline := time.Now().Add(5 * time.Second)
	for r.Statuses()[0].Skipped < 3 {
		if time.Now().After(deadline) {
			t.Fatal("gate was not consulted")
		}
		time.Sleep(time.Millisecond)
	}
	if len(ran) != 0 {
		t.Fatalf("gated job ran %d times outside its window", len(ran))
	}
	clock.Set(time.Date(2026, 11, 23, 10, 0, 0, 0, market.Shanghai()))
	select {
	case <-ran:
	case <-time.After(5 * time.Second):
		t.Fatal("job did not run once inside its window")
	}
}

func TestRunNowRecordsFailuresAndPanics(t *testing.T) {
	r := NewRunner(quiet(), market.SystemClock{})
	r.Add(Job{Name: "fail", Interval: time.Hour, Run: func(ctx context.Context) error { return errors.New("boom") }})
	r.Add(Job{Name: "panic", Interval: time.Hour, Run: func(ctx context.Context) error { panic("oops") }})
	if err := r.RunNow(context.Background(), "fail"); err == nil {
		t.Fatal("RunNow(fail) = nil")
	}
	if err := r.RunNow(context.Background(), "panic"); err == nil {
		t.Fatal("RunNow(panic) = nil, want the recovered panic")
	}
	if err := r.RunNow(context.Background(), "absent"); market.KindOf(err) != market.KindNotFound {
		t.Fatalf("RunNow(absent) kind = %v, want not found", market.KindOf(err))
	}
	st := r.Statuses()
	if st[0].Failures != 1 || st[0].LastError != "boom" || st[1].Failures != 1 {
		t.Fatalf("statuses = %+v", st)
	}
}

func TestStopCancelsARunningJob(t *testing.T) {
	r := NewRunner(quiet(), market.SystemClock{})
	started := make(chan struct{})
	r.Add(Job{Name: "long", Interval: time.Hour, RunAtStart: true, Run: func(ctx context.Context) error {
		close(started)
		<-ctx.Done()
		return ctx.Err()
	}})
	r.Start(context.Background())
	<-started
	stopped := make(chan struct{})
	go func() { r.Stop(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("Stop did not return while a job waited on its context")
	}
}

// CaughtUp closes when every job that runs at start has run once, not
// before, and whatever jobs without a start run do.
func TestCaughtUpAfterEveryStartRun(t *testing.T) {
	r := NewRunner(quiet(), market.NewFixedClock(time.Now()))
	release := make(chan struct{})
	r.Add(Job{Name: "slow", Interval: time.Hour, RunAtStart: true, Run: func(ctx context.Context) error { <-release; return nil }})
	r.Add(Job{Name: "fast", Interval: time.Hour, RunAtStart: true, Run: func(ctx context.Context) error { return nil }})
	r.Add(Job{Name: "later", Interval: time.Hour, Run: func(ctx context.Context) error { return nil }})
	r.Start(context.Background())
	defer r.Stop()
	select {
	case <-r.CaughtUp():
		t.Fatal("caught up while a start run is still going")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	select {
	case <-r.CaughtUp():
	case <-time.After(5 * time.Second):
		t.Fatal("not caught up after every start run finished")
	}
}
