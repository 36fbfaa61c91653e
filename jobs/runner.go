// Package jobs owns the service's background work. Each job is a plain
// func(ctx) error that tests call directly; the Runner only decides when it
// runs, and keeps the record the health endpoint shows.
//
// Several instances may serve one PostgreSQL store; one of them, the
// leader, runs the jobs marked LeaderOnly (those that call upstreams or
// write scheduled data), so the upstreams are asked once and the data is
// written once. The others follow: they skip those jobs, and the one that
// becomes leader (the old one stopped or died) runs each of them at once,
// so the collection owed since the last one is not lost at failover.
package jobs

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"mdqs/internal/market"
)

// Func is one run of a job.
type Func func(ctx context.Context) error

// Gate decides, at each tick, whether the job should run now (for example
// only inside the trading window). It takes the market clock's time.
type Gate func(now time.Time) bool

// Job is a named periodic task.
type Job struct {
	Name     string
	Interval time.Duration
	// RunAtStart runs the job once as soon as the runner starts (catching up
	// work missed while the service was down), before the first tick.
	RunAtStart bool
	Gate       Gate
	Run        Func
	// LeaderOnly jobs run only while the runner's Leadership says this
	// instance leads (always, without one).
	LeaderOnly bool
	// About names what the job does in words, for the answers that wait
	// for its first run ("the end-of-day derivation"); "" is "job NAME".
	About string
}

// Status is a job's record.
type Status struct {
	Name     string `json:"name"`
	Runs     int64  `json:"runs"`
	Failures int64  `json:"failures"`
	Skipped  int64  `json:"skipped"`
	// Followed counts the runs of a LeaderOnly job left to the leader
	// because this instance was following.
	Followed  int64     `json:"followed"`
	LastStart time.Time `json:"last_start,omitzero"`
	LastEnd   time.Time `json:"last_end,omitzero"`
	LastError string    `json:"last_error,omitempty"`
	Running   bool      `json:"running"`
}

// Leadership says whether this instance leads the instances sharing its
// store (db.Leadership). If it also has a Changes() <-chan bool, the runner
// hears of a change at once rather than at its next look.
type Leadership interface{ IsLeader() bool }

// Runner starts jobs on tickers and stops them all when its context ends or
// Stop is called.
type Runner struct {
	log   *slog.Logger
	clock market.Clock
	jobs  []Job
	lead  Leadership    // nil: this instance leads
	watch time.Duration // how often Start's watcher looks at lead

	mu      sync.Mutex
	status  map[string]*Status
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	started bool

	// caughtUp closes once every RunAtStart job has finished its first
	// run: what was missed while the service was down is done.
	caughtUp chan struct{}
	first    sync.WaitGroup
	// succeeded holds the jobs that have completed a run without error.
	succeeded map[string]bool
	hold      <-chan struct{} // nil: first runs start at once
}

func NewRunner(log *slog.Logger, clock market.Clock) *Runner {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Runner{log: log, clock: clock, status: map[string]*Status{}, caughtUp: make(chan struct{}),
		succeeded: map[string]bool{}, watch: 250 * time.Millisecond}
}

// SetLeadership makes the LeaderOnly jobs run only while l says this
// instance leads; call before Start. Without it the instance leads.
func (r *Runner) SetLeadership(l Leadership) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lead = l
}

// Leader reports whether this instance leads, so runs the LeaderOnly jobs
// (true without a Leadership).
func (r *Runner) Leader() bool {
	r.mu.Lock()
	lead := r.lead
	r.mu.Unlock()
	return lead == nil || lead.IsLeader()
}

// CaughtUp is closed once every job that runs at start has finished its
// first run (or the runner was stopped): the service holds its data. A
// LeaderOnly job counts as done at once on a follower: the leader holds
// that data.
func (r *Runner) CaughtUp() <-chan struct{} { return r.caughtUp }

// HoldFirstRuns makes every start-up job wait for hold to close before its
// first run; call before Start. Tests use it to see the service as it is
// while its start-up jobs run, whatever the machine's speed.
func (r *Runner) HoldFirstRuns(hold <-chan struct{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hold = hold
}

// Add registers a job; call before Start.
func (r *Runner) Add(j Job) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.jobs = append(r.jobs, j)
	r.status[j.Name] = &Status{Name: j.Name}
}

// Start launches every job's loop. Each loop ends when ctx is done.
func (r *Runner) Start(ctx context.Context) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.started {
		return
	}
	r.started = true
	ctx, r.cancel = context.WithCancel(ctx)
	// Read before any job looks, so a change after this is seen as one.
	leads := r.lead == nil || r.lead.IsLeader()
	var kicks []chan struct{}
	for _, j := range r.jobs {
		if j.RunAtStart {
			r.first.Add(1)
		}
		var kick chan struct{}
		if j.LeaderOnly && r.lead != nil {
			kick = make(chan struct{}, 1)
			kicks = append(kicks, kick)
		}
		r.wg.Add(1)
		go r.loop(ctx, j, kick)
	}
	if len(kicks) > 0 {
		r.wg.Add(1)
		go r.watchLeader(ctx, r.lead, leads, kicks)
	}
	go func() {
		r.first.Wait()
		close(r.caughtUp)
	}()
}

// Stop cancels every job and waits for running ones to return.
func (r *Runner) Stop() {
	r.mu.Lock()
	cancel := r.cancel
	r.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	r.wg.Wait()
}

// loop runs j at start, at each tick, and (a LeaderOnly job) whenever kick
// says this instance has just become the leader.
func (r *Runner) loop(ctx context.Context, j Job, kick <-chan struct{}) {
	defer r.wg.Done()
	if j.RunAtStart {
		if r.hold != nil {
			select {
			case <-r.hold:
			case <-ctx.Done():
			}
		}
		r.start(ctx, j)
		r.first.Done()
	}
	t := time.NewTicker(j.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-kick:
			// The new leader's catch-up: a job that runs at start runs as it
			// would have at this instance's start, any other as at a tick;
			// the next tick is then a whole interval away.
			if j.RunAtStart {
				r.start(ctx, j)
			} else {
				r.tick(ctx, j)
			}
			t.Reset(j.Interval)
		case <-t.C:
			r.tick(ctx, j)
		}
	}
}

// start is a job's run at start (ungated), left to the leader on a
// follower.
func (r *Runner) start(ctx context.Context, j Job) {
	if j.LeaderOnly && !r.Leader() {
		r.record(j.Name, func(s *Status) { s.Followed++ })
		return
	}
	r.RunNow(ctx, j.Name)
}

// tick is a job's run at a tick: left to the leader on a follower, skipped
// outside its gate.
func (r *Runner) tick(ctx context.Context, j Job) {
	if j.LeaderOnly && !r.Leader() {
		r.record(j.Name, func(s *Status) { s.Followed++ })
		return
	}
	if j.Gate != nil && !j.Gate(r.clock.Now()) {
		r.record(j.Name, func(s *Status) { s.Skipped++ })
		return
	}
	r.RunNow(ctx, j.Name)
}

// watchLeader kicks every LeaderOnly job's loop when this instance becomes
// the leader. It looks every r.watch, and at once on a change lead
// announces.
func (r *Runner) watchLeader(ctx context.Context, lead Leadership, leads bool, kicks []chan struct{}) {
	defer r.wg.Done()
	var changes <-chan bool
	if c, ok := lead.(interface{ Changes() <-chan bool }); ok {
		changes = c.Changes()
	}
	t := time.NewTicker(r.watch)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-changes:
		case <-t.C:
		}
		now := lead.IsLeader()
		if now && !leads {
			r.log.Info("this instance now leads: running the leader's jobs")
			for _, k := range kicks {
				select {
				case k <- struct{}{}:
				default: // one catch-up is already due
				}
			}
		} else if !now && leads {
			r.log.Info("this instance now follows: the leader runs the leader's jobs")
		}
		leads = now
	}
}

// RunNow runs a registered job once, synchronously, and records the outcome.
// A panic in a job is logged and recorded as a failure; the loop goes on.
func (r *Runner) RunNow(ctx context.Context, name string) error {
	var run Func
	r.mu.Lock()
	for _, j := range r.jobs {
		if j.Name == name {
			run = j.Run
		}
	}
	r.mu.Unlock()
	if run == nil {
		return market.Errorf(market.KindNotFound, "no job %q", name)
	}
	start := r.clock.Now().In(market.Shanghai())
	r.record(name, func(s *Status) { s.Running, s.LastStart = true, start })
	err := safeRun(ctx, run)
	end := r.clock.Now().In(market.Shanghai())
	r.record(name, func(s *Status) {
		s.Running, s.LastEnd = false, end
		s.Runs++
		if err != nil {
			s.Failures++
			s.LastError = err.Error()
		} else {
			s.LastError = ""
			r.succeeded[name] = true
		}
	})
	if err != nil && ctx.Err() == nil {
		r.log.Warn("job failed", "job", name, "err", err)
	}
	return err
}

func safeRun(ctx context.Context, run Func) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = market.Errorf(market.KindInternal, "job panicked: %v", v)
		}
	}()
	return run(ctx)
}

func (r *Runner) record(name string, f func(*Status)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s, ok := r.status[name]; ok {
		f(s)
	}
}

// startRetry is the Retry-After of an answer waiting for a start-up job's
// first run that has not ended yet.
const startRetry = 5 * time.Second

// Pending says whether the data the named start-up job provides is still
// to come: nil once the job has completed a run without error, and for a
// job that is not registered or does not run at start, or that the leader
// runs for this follower (the leader holds its data). Otherwise it is the
// unavailable error an answer waiting for that data gives:
// "starting up: the end-of-day derivation has not run yet", or the failure
// of its first run, with when to ask again.
func (r *Runner) Pending(name string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	var job *Job
	for i := range r.jobs {
		if r.jobs[i].Name == name {
			job = &r.jobs[i]
		}
	}
	if job == nil || !job.RunAtStart || r.succeeded[name] {
		return nil
	}
	st := r.status[name]
	if st.Runs == 0 && st.Followed > 0 {
		return nil
	}
	about := job.About
	if about == "" {
		about = "job " + name
	}
	e := &market.Error{Kind: market.KindUnavailable, Message: market.DefaultMessage(market.KindUnavailable),
		Detail: fmt.Sprintf("starting up: %s has not run yet", about), RetryAfter: startRetry}
	switch {
	case st.Failures > 0 && st.Running:
		e.Detail = fmt.Sprintf("starting up: %s failed (%s) and is running again", about, st.LastError)
	case st.Failures > 0:
		e.Detail = fmt.Sprintf("starting up: %s failed (%s); it runs again within %v", about, st.LastError, job.Interval)
		e.RetryAfter = min(job.Interval, max(time.Second, st.LastEnd.Add(job.Interval).Sub(r.clock.Now())))
	}
	return e
}

// Failed reports whether every run of the named job so far has failed.
func (r *Runner) Failed(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	st, ok := r.status[name]
	return ok && st.Runs > 0 && !r.succeeded[name]
}

// Pendings lists, in registration order, the start-up jobs whose data is
// still to come (Pending): those whose first run has not ended, and those
// that have failed every run so far (Failed).
func (r *Runner) Pendings() []PendingJob {
	r.mu.Lock()
	names := make([]string, 0, len(r.jobs))
	for _, j := range r.jobs {
		names = append(names, j.Name)
	}
	r.mu.Unlock()
	var out []PendingJob
	for _, n := range names {
		if err := r.Pending(n); err != nil {
			out = append(out, PendingJob{Name: n, Err: err, Failed: r.Failed(n)})
		}
	}
	return out
}

// PendingJob is a start-up job whose data is still to come.
type PendingJob struct {
	Name string
	Err  error // what an answer waiting for it says
	// Failed: its runs so far have all failed; it has run, so it no
	// longer holds readiness back.
	Failed bool
}

// Statuses lists every job's record, in registration order.
func (r *Runner) Statuses() []Status {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Status, 0, len(r.jobs))
	for _, j := range r.jobs {
		out = append(out, *r.status[j.Name])
	}
	return out
}
