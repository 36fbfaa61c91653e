// Package jobs owns the service's background work. Each job is a plain
// func(ctx) error that tests call directly; the Runner only decides when it
// runs, and keeps the record the health endpoint shows.
package jobs

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"mdqs/market"
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
}

// Status is a job's record.
type Status struct {
	Name      string    `json:"name"`
	Runs      int64     `json:"runs"`
	Failures  int64     `json:"failures"`
	Skipped   int64     `json:"skipped"`
	LastStart time.Time `json:"last_start,omitzero"`
	LastEnd   time.Time `json:"last_end,omitzero"`
	LastError string    `json:"last_error,omitempty"`
	Running   bool      `json:"running"`
}

// Runner starts jobs on tickers and stops them all when its context ends or
// Stop is called.
type Runner struct {
	log   *slog.Logger
	clock market.Clock
	jobs  []Job

	mu      sync.Mutex
	status  map[string]*Status
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	started bool

	// caughtUp closes once every RunAtStart job has finished its first
	// run: what was missed while the service was down is done.
	caughtUp chan struct{}
	first    sync.WaitGroup
}

func NewRunner(log *slog.Logger, clock market.Clock) *Runner {
	return &Runner{log: log, clock: clock, status: map[string]*Status{}, caughtUp: make(chan struct{})}
}

// CaughtUp is closed once every job that runs at start has finished its
// first run (or the runner was stopped): the service holds its data.
func (r *Runner) CaughtUp() <-chan struct{} { return r.caughtUp }

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
	for _, j := range r.jobs {
		if j.RunAtStart {
			r.first.Add(1)
		}
		r.wg.Add(1)
		go r.loop(ctx, j)
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

func (r *Runner) loop(ctx context.Context, j Job) {
	defer r.wg.Done()
	if j.RunAtStart {
		r.RunNow(ctx, j.Name)
		r.first.Done()
	}
	t := time.NewTicker(j.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if j.Gate != nil && !j.Gate(r.clock.Now()) {
				r.record(j.Name, func(s *Status) { s.Skipped++ })
				continue
			}
			r.RunNow(ctx, j.Name)
		}
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
