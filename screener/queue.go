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
	"mdqs/market"
)

// Config bounds the queue.
type Config struct {
	Workers            int           // screens evaluated at once
	Timeout            time.Duration // one screen's time limit
	MaxActivePerClient int           // queued + running screens a client may have
	DefaultLimit       int
	MaxLimit           int
}

// Universe narrows a screen before its expression runs.
type Universe struct {
	Market string   `json:"market,omitempty"` // SH, SZ or BJ
	Block  string   `json:"block,omitempty"`  // an industry or concept name
	Codes  []string `json:"codes,omitempty"`  // explicit codes
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
// SQLite: a restart runs the queued jobs and re-queues the ones it left
// running (a screen is a pure function of the data, so running it again is
// safe and gives the answer the client is waiting for).
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
	return &Queue{store: store, frame: frame, clock: clock, log: log, cfg: cfg,
		work: make(chan string, 1024), pending: map[string]bool{}, running: map[string]context.CancelFunc{}}
}

// Start re-queues what a previous process left running, starts the workers
// and the sweeper that (re)dispatches queued jobs.
func (q *Queue) Start(ctx context.Context) error {
	ids, err := q.store.RequeueRunning(ctx)
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

// Stop cancels running screens (they stay running in the store and are
// re-queued at the next start) and waits for the workers.
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

// sweep dispatches queued jobs the channel could not take.
func (q *Queue) sweep(ctx context.Context) {
	defer q.wg.Done()
	t := time.NewTicker(2 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			ids, err := q.store.QueuedJobs(ctx)
			if err != nil {
				continue
			}
			for _, id := range ids {
				q.dispatch(id)
			}
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

func checkUniverse(u Universe) error {
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

// run evaluates one job.
func (q *Queue) run(ctx context.Context, id string) {
	job, err := q.store.JobByID(ctx, id)
	if err != nil || job.State != db.JobQueued {
		return
	}
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
	switch {
	case ctx.Err() != nil:
		return // shutting down: the job stays running and is re-queued at the next start
	case errors.Is(err, context.DeadlineExceeded):
		q.store.FinishJob(ctx, id, db.JobFailed, fmt.Sprintf("timed out after %s (%d of the stocks evaluated)", q.cfg.Timeout, done), done, nil, now)
	case errors.Is(err, context.Canceled):
		q.store.FinishJob(ctx, id, db.JobCanceled, "canceled by the client", done, nil, now)
	case err != nil:
		q.store.FinishJob(ctx, id, db.JobFailed, err.Error(), done, nil, now)
	default:
		q.store.FinishJob(ctx, id, db.JobSucceeded, "", done, results, now)
	}
}

// progressEvery is how many stocks pass between progress writes and
// cancellation checks (checks: every checkEvery).
const (
	progressEvery = 1000
	checkEvery    = 256
)

func (q *Queue) evaluate(ctx context.Context, job db.Job) (int, []db.Result, error) {
	prog, err := Compile(job.Expression)
	if err != nil {
		return 0, nil, err
	}
	if ok, err := q.store.StartJob(ctx, job.ID, 0, q.clock.Now()); err != nil || !ok {
		if err == nil {
			err = context.Canceled // canceled while queued
		}
		return 0, nil, err
	}
	var u Universe
	json.Unmarshal(job.Universe, &u)
	rows, err := q.frame.Rows(ctx)
	if err != nil {
		return 0, nil, err
	}
	rows = u.filter(rows)
	q.store.JobProgress(ctx, job.ID, 0, len(rows))
	matched, done, err := evaluate(ctx, prog, rows, job.Sort, job.Limit, func(done int) { q.store.JobProgress(ctx, job.ID, done, len(rows)) })
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
	for i := range rows {
		if i%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, i, err
			}
			if progress != nil && i > 0 && i%progressEvery < checkEvery {
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
