package screener

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/expr-lang/expr/vm"

	"mdqs/db"
	"mdqs/internal/market"
)

// Config bounds the queue.
type Config struct {
	Workers            int           // screens evaluated at once
	Timeout            time.Duration // one screen's time limit
	MaxActivePerClient int           // queued + running screens a client may have
	DefaultLimit       int
	MaxLimit           int

	// Owner names this instance among those sharing the store (default: a
	// random id). It must be unique among live instances; give one that
	// stays the same across restarts (host and port, say) and a restart
	// after a crash runs its screens again at once rather than when their
	// leases end.
	Owner string
	// Lease is how long a running screen stays its owner's without a
	// heartbeat (default 30s); the owner renews it every Lease/3. Another
	// instance queues it again when it ends.
	Lease time.Duration
	// Sweep is how often the queue looks at the store (default 2s): it
	// requeues screens whose owner's lease ended, stops its own screens
	// canceled through another instance, and dispatches queued screens.
	Sweep time.Duration
}

// maxLosses is how many times a screen may lose its instance (a lease that
// ended while it ran) before it fails rather than runs again: a screen
// that keeps stopping instances should not stop them forever.
const maxLosses = 3

// Universe narrows a screen before its expression runs.
type Universe struct {
	Market string   `json:"market,omitempty"` // SH, SZ or BJ
	Block  string   `json:"block,omitempty"`  // an industry or concept name
	Codes  []string `json:"codes,omitempty"`  // explicit codes
	// Date screens a past trading day's close over the stocks listed
	// that day (Frame.RowsOn); "" is now.
	Date string `json:"date,omitempty"`
}

// Submission is a screen as a client sends it.
type Submission struct {
	Expression     string   `json:"expression"`
	Universe       Universe `json:"universe"`
	Sort           string   `json:"sort"`
	Limit          int      `json:"limit"`
	IdempotencyKey string   `json:"idempotency_key"`
}

// Queue runs screens on a bounded pool of workers. Jobs and results live in
// the store, which several instances may share: a screen submitted on one
// is polled, read and canceled on any. The store decides who runs a
// screen: a worker claims it with a conditional update (queued → running,
// with this owner and a lease), so of several instances dispatching it one
// wins and the others skip it. The owner renews the lease while it
// evaluates; when an instance dies its leases end and any other (or itself
// restarted) queues its screens again (a screen is a pure function of the
// data, so running it again is safe and gives the answer the client is
// waiting for). A cancel is a write to the store: the owner sees it at its
// next sweep and stops evaluating.
type Queue struct {
	store *db.Store
	frame *Frame
	clock market.Clock
	log   *slog.Logger
	cfg   Config

	work chan string

	mu      sync.Mutex
	pending map[string]bool               // sent to the channel, not yet taken
	running map[string]context.CancelFunc // being evaluated

	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func NewQueue(store *db.Store, frame *Frame, clock market.Clock, log *slog.Logger, cfg Config) *Queue {
	if cfg.Workers < 1 {
		cfg.Workers = 1
	}
	if cfg.Owner == "" {
		cfg.Owner = newID()
	}
	if cfg.Lease <= 0 {
		cfg.Lease = 30 * time.Second
	}
	if cfg.Sweep <= 0 {
		cfg.Sweep = 2 * time.Second
	}
	return &Queue{store: store, frame: frame, clock: clock, log: log, cfg: cfg,
		work: make(chan string, 1024), pending: map[string]bool{}, running: map[string]context.CancelFunc{}}
}

// Owner is the instance id the queue claims screens as.
func (q *Queue) Owner() string { return q.cfg.Owner }

// Start re-queues what a previous process left running (the screens whose
// lease ended, released at a clean stop or run by an instance that died,
// and those of this owner, which did not stop them cleanly), starts the
// workers and the sweeper. It does not touch the running screens of other
// live instances sharing the store.
func (q *Queue) Start(ctx context.Context) error {
	if q.store.ReadOnly() {
		// Nothing could be claimed: no workers, as before leases (whose
		// start-up write failed on such a store).
		return market.Errorf(market.KindUnavailable, "screen queue: database not writable")
	}
	if _, err := q.requeueLost(ctx, q.cfg.Owner); err != nil {
		return err
	}
	ids, err := q.store.QueuedJobs(ctx)
	if err != nil {
		return err
	}
	ctx, q.cancel = context.WithCancel(ctx)
	for range q.cfg.Workers {
		q.wg.Add(1)
		go q.worker(ctx)
	}
	for _, id := range ids {
		q.dispatch(id)
	}
	q.wg.Add(1)
	go q.sweep(ctx)
	return nil
}

// Stop cancels running screens and waits for the workers. The screens stay
// running in the store with their leases released, so another instance
// sharing the store, or this one's next start, queues them again at once.
func (q *Queue) Stop() {
	if q.cancel != nil {
		q.cancel()
	}
	q.wg.Wait()
}

func (q *Queue) dispatch(id string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.pending[id] || q.running[id] != nil {
		return
	}
	select {
	case q.work <- id:
		q.pending[id] = true
	default: // full: the sweeper sends it later
	}
}

// sweep looks at the store every Sweep: it requeues screens whose owner's
// lease ended, stops local evaluations the store no longer gives this
// owner (canceled through another instance, or requeued after a lapse of
// this instance's heartbeat), and dispatches queued screens (those another
// instance submitted, requeued ones, and those the channel could not
// take). Every Lease/3 it renews the leases of the screens it evaluates.
func (q *Queue) sweep(ctx context.Context) {
	defer q.wg.Done()
	t := time.NewTicker(q.cfg.Sweep)
	defer t.Stop()
	hb := time.NewTicker(max(q.cfg.Lease/3, time.Millisecond))
	defer hb.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-hb.C:
			q.heartbeat(ctx)
		case <-t.C:
			q.sweepOnce(ctx)
		}
	}
}

func (q *Queue) heartbeat(ctx context.Context) {
	q.mu.Lock()
	busy := len(q.running) > 0
	q.mu.Unlock()
	if !busy {
		return
	}
	if err := q.store.RenewLeases(ctx, q.cfg.Owner, q.clock.Now(), q.cfg.Lease); err != nil && ctx.Err() == nil {
		q.log.Warn("screener: renew leases", "owner", q.cfg.Owner, "err", err)
	}
}

func (q *Queue) sweepOnce(ctx context.Context) {
	if _, err := q.requeueLost(ctx, ""); err != nil && ctx.Err() == nil {
		q.log.Warn("screener: requeue lost screens", "err", err)
	}
	q.stopLost(ctx)
	ids, err := q.store.QueuedJobs(ctx)
	if err != nil {
		return
	}
	for _, id := range ids {
		q.dispatch(id)
	}
}

// requeueLost queues again the running screens whose lease ended (and
// mine's, when given), logging what it did.
func (q *Queue) requeueLost(ctx context.Context, mine string) (int, error) {
	requeued, failed, err := q.store.RequeueLost(ctx, q.clock.Now(), mine, maxLosses)
	if requeued+failed > 0 {
		q.log.Info("screener: screens whose instance stopped", "requeued", requeued, "failed", failed, "owner", q.cfg.Owner)
	}
	return requeued, err
}

// stopLost cancels the evaluations of screens that are no longer this
// owner's running screens in the store. Only screens claimed before the
// store was read are judged, so a claim committed after the read is not
// mistaken for a lost one.
func (q *Queue) stopLost(ctx context.Context) {
	q.mu.Lock()
	local := make(map[string]context.CancelFunc, len(q.running))
	for id, stop := range q.running {
		local[id] = stop
	}
	q.mu.Unlock()
	if len(local) == 0 {
		return
	}
	own, err := q.store.OwnRunningJobs(ctx, q.cfg.Owner)
	if err != nil {
		return
	}
	for id, stop := range local {
		if !slices.Contains(own, id) {
			stop()
		}
	}
}

func (q *Queue) worker(ctx context.Context) {
	defer q.wg.Done()
	for {
		select {
		case <-ctx.Done():
			return
		case id := <-q.work:
			q.mu.Lock()
			delete(q.pending, id)
			q.mu.Unlock()
			q.run(ctx, id)
		}
	}
}

// Submit validates and queues a screen. A repeated idempotency key returns
// the job first submitted with it (existing = true).
func (q *Queue) Submit(ctx context.Context, clientID string, sub Submission) (db.Job, bool, error) {
	prog, err := Compile(sub.Expression)
	if err != nil {
		return db.Job{}, false, err
	}
	if err := checkUniverse(sub.Universe); err != nil {
		return db.Job{}, false, err
	}
	if sub.Universe.Date != "" {
		day, _ := market.ParseDay(sub.Universe.Date)
		if err := q.frame.CheckPastDay(ctx, day); err != nil {
			return db.Job{}, false, err
		}
	}
	if sub.Sort != "" {
		if f, ok := field(strings.TrimPrefix(sub.Sort, "-")); !ok || !f.numeric {
			return db.Job{}, false, market.Errorf(market.KindInvalid, "sort %q: want a numeric field, with - for descending (e.g. -main_net); fields: %s",
				sub.Sort, strings.Join(sortNames(), ", "))
		}
	}
	switch {
	case sub.Limit == 0:
		sub.Limit = q.cfg.DefaultLimit
	case sub.Limit < 0 || sub.Limit > q.cfg.MaxLimit:
		return db.Job{}, false, market.Errorf(market.KindInvalid, "limit must be 1..%d", q.cfg.MaxLimit)
	}
	if len(sub.IdempotencyKey) > 128 {
		return db.Job{}, false, market.Errorf(market.KindInvalid, "idempotency_key is at most 128 characters")
	}
	universe, _ := json.Marshal(sub.Universe)
	job, existing, err := q.store.SubmitJob(ctx, db.Job{ID: newID(), ClientID: clientID, Expression: sub.Expression, Universe: universe,
		Sort: sub.Sort, Limit: sub.Limit, IdempotencyKey: sub.IdempotencyKey, Fields: prog.Fields, CreatedAt: q.clock.Now()},
		q.cfg.MaxActivePerClient)
	if err != nil {
		return db.Job{}, false, err
	}
	if !existing {
		q.dispatch(job.ID)
	}
	return job, existing, nil
}

// rows are the frame's rows of the universe's day: now, or its date.
func (u Universe) rows(ctx context.Context, f *Frame) ([]Row, error) {
	if u.Date == "" {
		return f.Rows(ctx)
	}
	day, err := market.ParseDay(u.Date)
	if err != nil {
		return nil, market.Errorf(market.KindInvalid, "universe.date %q: want YYYY-MM-DD", u.Date)
	}
	return f.RowsOn(ctx, day)
}

func checkUniverse(u Universe) error {
	if u.Date != "" {
		if _, err := market.ParseDay(u.Date); err != nil {
			return market.Errorf(market.KindInvalid, "universe.date %q: want YYYY-MM-DD, a past trading day", u.Date)
		}
	}
	if u.Market != "" {
		if _, err := market.ParseExchange(u.Market); err != nil {
			return market.Errorf(market.KindInvalid, "universe.market must be SH, SZ or BJ")
		}
	}
	if len(u.Codes) > 10_000 {
		return market.Errorf(market.KindInvalid, "universe.codes lists at most 10000 codes")
	}
	for _, c := range u.Codes {
		if _, err := market.ParseCode(c); err != nil {
			return market.Errorf(market.KindInvalid, "universe.codes: %v", err)
		}
	}
	return nil
}

func newID() string {
	b := make([]byte, 12)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// Cancel stops a queued or running screen of the client. A running one
// stops within a moment (the evaluation checks its context every few hundred
// stocks). Cancelling a finished screen is a conflict.
func (q *Queue) Cancel(ctx context.Context, clientID, id string) (db.Job, error) {
	before, err := q.store.Job(ctx, clientID, id)
	if err != nil {
		return db.Job{}, err
	}
	if before.Finished() {
		return before, market.Errorf(market.KindConflict, "screen %s already %s; nothing to cancel", id, before.State)
	}
	job, err := q.store.CancelJob(ctx, clientID, id, q.clock.Now())
	if err != nil {
		return db.Job{}, err
	}
	q.mu.Lock()
	if stop := q.running[id]; stop != nil {
		stop()
	}
	q.mu.Unlock()
	return job, nil
}

// Status is a client's job.
func (q *Queue) Status(ctx context.Context, clientID, id string) (db.Job, error) {
	return q.store.Job(ctx, clientID, id)
}

// Results pages a succeeded screen's results; an unfinished, failed or
// canceled screen is a conflict that says why.
func (q *Queue) Results(ctx context.Context, clientID, id string, page, size int) (db.Job, []db.Result, error) {
	job, err := q.store.Job(ctx, clientID, id)
	if err != nil {
		return job, nil, err
	}
	switch job.State {
	case db.JobSucceeded:
	case db.JobQueued, db.JobRunning:
		return job, nil, market.Errorf(market.KindConflict, "screen %s is %s (%d of %d stocks evaluated); poll its status and ask again when it has succeeded",
			id, job.State, job.Done, job.Total)
	default:
		return job, nil, market.Errorf(market.KindConflict, "screen %s %s: %s; it has no results", id, job.State, job.Error)
	}
	res, err := q.store.Results(ctx, id, (page-1)*size, size)
	return job, res, err
}

// run claims and evaluates one job.
func (q *Queue) run(ctx context.Context, id string) {
	job, err := q.store.JobByID(ctx, id)
	if err != nil || job.State != db.JobQueued {
		return
	}
	// The claim is the store's conditional update: another instance that
	// dispatched the same job either won it (we skip) or loses it to us. A
	// job canceled while queued is not claimed either.
	owner := q.cfg.Owner
	if ok, err := q.store.ClaimJob(ctx, id, owner, q.clock.Now(), q.cfg.Lease); err != nil || !ok {
		return
	}
	// Registered only once claimed: the sweeper stops a registered job the
	// store does not say is ours.
	jctx, cancel := context.WithTimeout(ctx, q.cfg.Timeout)
	defer cancel()
	q.mu.Lock()
	q.running[id] = cancel
	q.mu.Unlock()
	defer func() {
		q.mu.Lock()
		delete(q.running, id)
		q.mu.Unlock()
	}()
	done, results, err := q.evaluate(jctx, job)
	now := q.clock.Now()
	// FinishJob changes only a job still running for this owner: after a
	// cancel (here or on another instance) or a loss of the lease it is a
	// no-op, so the store keeps 'canceled' or the new owner's run.
	switch {
	case ctx.Err() != nil:
		// Shutting down: the job stays running, its lease released so the
		// next start, or another instance now, runs it again.
		rctx, stop := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer stop()
		if err := q.store.ReleaseJob(rctx, id, owner); err != nil {
			q.log.Warn("screener: release a screen at stop (it runs again when its lease ends)", "id", id, "err", err)
		}
	case errors.Is(err, context.DeadlineExceeded):
		q.store.FinishJob(ctx, id, owner, db.JobFailed, fmt.Sprintf("timed out after %s (%d of the stocks evaluated)", q.cfg.Timeout, done), done, nil, now)
	case errors.Is(err, context.Canceled):
		q.store.FinishJob(ctx, id, owner, db.JobCanceled, "canceled by the client", done, nil, now)
	case err != nil:
		q.store.FinishJob(ctx, id, owner, db.JobFailed, err.Error(), done, nil, now)
	default:
		q.store.FinishJob(ctx, id, owner, db.JobSucceeded, "", done, results, now)
	}
}

// progressEvery is how many stocks pass between progress writes
// (cancellation is checked every Program.checkEvery stocks).
const progressEvery = 1000

func (q *Queue) evaluate(ctx context.Context, job db.Job) (int, []db.Result, error) {
	prog, err := Compile(job.Expression)
	if err != nil {
		return 0, nil, err
	}
	var u Universe
	json.Unmarshal(job.Universe, &u)
	rows, err := u.rows(ctx, q.frame)
	if err != nil {
		return 0, nil, err
	}
	rows = u.filter(rows)
	q.store.JobProgress(ctx, job.ID, q.cfg.Owner, 0, len(rows))
	matched, done, err := evaluate(ctx, prog, rows, job.Sort, job.Limit, func(done int) {
		q.store.JobProgress(ctx, job.ID, q.cfg.Owner, done, len(rows))
	})
	if err != nil {
		return done, nil, err
	}
	shown := slices.Clone(job.Fields)
	if k := strings.TrimPrefix(job.Sort, "-"); k != "" && !slices.Contains(shown, k) {
		shown = append(shown, k)
	}
	results := make([]db.Result, len(matched))
	for i, r := range matched {
		vals := make(map[string]any, len(shown))
		for _, name := range shown {
			if f, ok := field(name); ok {
				vals[name] = r.value(f)
			}
		}
		results[i] = db.Result{Code: r.Code, Name: r.Name, Values: vals}
	}
	return len(rows), results, nil
}

// Evaluate runs a compiled screen over rows and returns the matches, sorted
// and cut to limit: the queue's evaluation without the queue (benchmarks).
func Evaluate(ctx context.Context, prog *Program, rows []Row, sort string, limit int) ([]*Row, error) {
	matched, _, err := evaluate(ctx, prog, rows, sort, limit, nil)
	return matched, err
}

// evaluate also reports how many rows it evaluated before an error.
func evaluate(ctx context.Context, prog *Program, rows []Row, sort string, limit int, progress func(done int)) ([]*Row, int, error) {
	var machine vm.VM
	var matched []*Row
	every := prog.checkEvery()
	for i := range rows {
		if i%every == 0 {
			if err := ctx.Err(); err != nil {
				return nil, i, err
			}
			if progress != nil && i > 0 && i%progressEvery < every {
				progress(i)
			}
		}
		ok, err := prog.run(&machine, &rows[i])
		if err != nil {
			return nil, i, market.Errorf(market.KindInvalid, "%v", err)
		}
		if ok {
			matched = append(matched, &rows[i])
		}
	}
	sortRows(matched, sort)
	if len(matched) > limit {
		matched = matched[:limit]
	}
	return matched, len(rows), nil
}

// sortRows orders matches by a numeric field (descending with a leading
// "-"), unknown values last, then by code; without a sort, by code.
func sortRows(rows []*Row, key string) {
	desc := strings.HasPrefix(key, "-")
	f, ok := field(strings.TrimPrefix(key, "-"))
	slices.SortStableFunc(rows, func(a, b *Row) int {
		if ok {
			va, vb := a.number(f), b.number(f)
			switch an, bn := math.IsNaN(va), math.IsNaN(vb); {
			case an && !bn:
				return 1
			case bn && !an:
				return -1
			case !an && !bn && va != vb:
				if desc {
					return cmp.Compare(vb, va)
				}
				return cmp.Compare(va, vb)
			}
		}
		return cmp.Compare(a.Code, b.Code)
	})
}

// filter applies the universe.
func (u Universe) filter(rows []Row) []Row {
	if u.Market == "" && u.Block == "" && len(u.Codes) == 0 {
		return rows
	}
	ex, _ := market.ParseExchange(u.Market)
	codes := map[string]bool{}
	for _, c := range u.Codes {
		if code, err := market.ParseCode(c); err == nil {
			codes[code.String()] = true
		}
	}
	out := rows[:0:0]
	for _, r := range rows {
		if u.Market != "" && r.Market != string(ex) {
			continue
		}
		if len(codes) > 0 && !codes[r.Code] {
			continue
		}
		if u.Block != "" && r.Industry != u.Block && !slices.Contains(r.Concepts, u.Block) {
			continue
		}
		out = append(out, r)
	}
	return out
}
