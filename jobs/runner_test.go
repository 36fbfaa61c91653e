package jobs

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"mdqs/internal/market"
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

// flag is a Leadership a test switches; with changes it announces each
// switch, as db.Leadership does.
type flag struct {
	on      atomic.Bool
	changes chan bool
}

func (f *flag) IsLeader() bool { return f.on.Load() }

func (f *flag) set(v bool) {
	f.on.Store(v)
	if f.changes != nil {
		f.changes <- v
	}
}

// announcing is a flag with a Changes channel.
type announcing struct{ *flag }

func (a announcing) Changes() <-chan bool { return a.changes }

// counter is a job body that counts its runs and reports each one.
type counter struct {
	n   atomic.Int64
	ran chan struct{}
}

func newCounter() *counter { return &counter{ran: make(chan struct{}, 100)} }

func (c *counter) run(context.Context) error {
	c.n.Add(1)
	c.ran <- struct{}{}
	return nil
}

func (c *counter) wait(t *testing.T, what string, d time.Duration) {
	t.Helper()
	select {
	case <-c.ran:
	case <-time.After(d):
		t.Fatalf("%s: did not run within %v", what, d)
	}
}

func statusOf(r *Runner, name string) Status {
	for _, st := range r.Statuses() {
		if st.Name == name {
			return st
		}
	}
	return Status{}
}

// A follower leaves its LeaderOnly jobs to the leader, counting each tick
// it left as followed, and runs every other job as before.
func TestFollowerLeavesLeaderOnlyJobsToTheLeader(t *testing.T) {
	r := NewRunner(quiet(), market.SystemClock{})
	lead := &flag{}
	r.SetLeadership(lead)
	collect, purge := newCounter(), newCounter()
	r.Add(Job{Name: "collect", Interval: 2 * time.Millisecond, LeaderOnly: true, Run: collect.run})
	r.Add(Job{Name: "purge", Interval: 2 * time.Millisecond, Run: purge.run})
	r.Start(context.Background())
	defer r.Stop()
	if r.Leader() {
		t.Fatal("Leader() = true on a follower")
	}
	purge.wait(t, "purge on a follower", 5*time.Second)
	deadline := time.Now().Add(5 * time.Second)
	for statusOf(r, "collect").Followed < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("collect status = %+v, want >= 3 followed ticks", statusOf(r, "collect"))
		}
		time.Sleep(time.Millisecond)
	}
	if st := statusOf(r, "collect"); collect.n.Load() != 0 || st.Runs != 0 || st.Failures != 0 || st.Skipped != 0 {
		t.Fatalf("collect ran %d times on a follower; status %+v", collect.n.Load(), st)
	}
	if st := statusOf(r, "purge"); st.Followed != 0 {
		t.Errorf("purge status = %+v, want nothing followed", st)
	}
}

// An instance that becomes the leader runs each LeaderOnly job at once,
// not an interval later, once, then on its ticks; one that stops leading
// stops running them.
func TestNewLeaderRunsLeaderOnlyJobsPromptly(t *testing.T) {
	for _, tt := range []struct {
		name string
		lead func(*flag) Leadership
	}{
		{"announced", func(f *flag) Leadership { f.changes = make(chan bool, 10); return announcing{f} }},
		{"seen", func(f *flag) Leadership { return f }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRunner(quiet(), market.SystemClock{})
			r.watch = 5 * time.Millisecond
			f := &flag{}
			r.SetLeadership(tt.lead(f))
			eod, collect := newCounter(), newCounter()
			r.Add(Job{Name: "end-of-day", Interval: time.Hour, RunAtStart: true, LeaderOnly: true, Run: eod.run})
			// Gated shut: a catch-up run of a job without a start run is a
			// tick, which its gate still decides.
			r.Add(Job{Name: "collect", Interval: time.Hour, LeaderOnly: true, Run: collect.run})
			r.Add(Job{Name: "gated", Interval: time.Hour, LeaderOnly: true, Gate: func(time.Time) bool { return false },
				Run: func(context.Context) error { t.Error("gated job ran"); return nil }})
			r.Start(context.Background())
			defer r.Stop()
			<-r.CaughtUp()
			if st := statusOf(r, "end-of-day"); st.Followed != 1 || st.Runs != 0 {
				t.Fatalf("end-of-day on a follower: %+v, want its start run followed", st)
			}

			f.set(true)
			eod.wait(t, "end-of-day on becoming leader", 5*time.Second)
			collect.wait(t, "collect on becoming leader", 5*time.Second)
			if !r.Leader() {
				t.Error("Leader() = false after becoming leader")
			}
			time.Sleep(50 * time.Millisecond)
			if eod.n.Load() != 1 || collect.n.Load() != 1 {
				t.Fatalf("runs after becoming leader: end-of-day %d, collect %d, want 1 each", eod.n.Load(), collect.n.Load())
			}
			if st := statusOf(r, "gated"); st.Skipped != 1 || st.Runs != 0 {
				t.Errorf("gated status = %+v, want its catch-up tick skipped", st)
			}

			// Leading again after following catches up again.
			f.set(false)
			time.Sleep(30 * time.Millisecond)
			f.set(true)
			eod.wait(t, "end-of-day on leading again", 5*time.Second)
		})
	}
}

// A leader runs its LeaderOnly jobs at start as before.
func TestLeaderRunsLeaderOnlyJobsAtStart(t *testing.T) {
	r := NewRunner(quiet(), market.SystemClock{})
	f := &flag{}
	f.on.Store(true)
	r.SetLeadership(f)
	eod := newCounter()
	r.Add(Job{Name: "end-of-day", Interval: time.Hour, RunAtStart: true, LeaderOnly: true, Run: eod.run})
	r.Start(context.Background())
	defer r.Stop()
	select {
	case <-r.CaughtUp():
	case <-time.After(5 * time.Second):
		t.Fatal("not caught up")
	}
	if st := statusOf(r, "end-of-day"); st.Runs != 1 || st.Followed != 0 {
		t.Fatalf("end-of-day status = %+v, want one run", st)
	}
}

// A follower is caught up without the start runs it leaves to the leader,
// and still waits for the ones it runs itself.
func TestFollowerCatchesUpWithoutLeaderOnlyJobs(t *testing.T) {
	r := NewRunner(quiet(), market.NewFixedClock(time.Now()))
	r.SetLeadership(&flag{})
	release := make(chan struct{})
	r.Add(Job{Name: "eod", Interval: time.Hour, RunAtStart: true, LeaderOnly: true,
		Run: func(context.Context) error { t.Error("LeaderOnly job ran on a follower"); return nil }})
	r.Add(Job{Name: "local", Interval: time.Hour, RunAtStart: true, Run: func(context.Context) error { <-release; return nil }})
	r.Start(context.Background())
	defer r.Stop()
	select {
	case <-r.CaughtUp():
		t.Fatal("caught up while a local start run is still going")
	case <-time.After(30 * time.Millisecond):
	}
	close(release)
	select {
	case <-r.CaughtUp():
	case <-time.After(5 * time.Second):
		t.Fatal("a follower never caught up")
	}
}

// Without a Leadership the instance leads: LeaderOnly jobs run.
func TestWithoutLeadershipEveryJobRuns(t *testing.T) {
	r := NewRunner(nil, market.SystemClock{})
	c := newCounter()
	r.Add(Job{Name: "collect", Interval: 2 * time.Millisecond, RunAtStart: true, LeaderOnly: true, Run: c.run})
	if !r.Leader() {
		t.Fatal("Leader() = false without a Leadership")
	}
	r.Start(context.Background())
	defer r.Stop()
	c.wait(t, "start run", 5*time.Second)
	c.wait(t, "tick", 5*time.Second)
}
