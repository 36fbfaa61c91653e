package screener_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/demo"
	"mdqs/internal/market"
	"mdqs/internal/screener"
)

// Several instances sharing one store (two handles on one SQLite file, or
// two pools on one PostgreSQL schema with MDQS_TEST_STORE=postgres): each
// instance has its own store handle, frame and queue, as separate
// processes would.

// heldQuotes counts the quote snapshots read (one per evaluation: the
// frames' quote age is 0) and can hold them, so a test can catch a screen
// mid-evaluation and see it stop.
type heldQuotes struct {
	src     screener.QuoteSource
	calls   atomic.Int32
	mu      sync.Mutex
	release chan struct{} // nil: calls pass
	entered chan struct{}
	left    chan error // a held call's context ended
}

func (h *heldQuotes) Quotes(ctx context.Context) ([]market.Quote, error) {
	h.calls.Add(1)
	h.mu.Lock()
	release := h.release
	h.mu.Unlock()
	if release != nil {
		h.entered <- struct{}{}
		select {
		case <-release:
		case <-ctx.Done():
			h.left <- ctx.Err()
			return nil, ctx.Err()
		}
	}
	return h.src.Quotes(ctx)
}

// hold holds the calls from now on; pass lets later calls through and
// keeps the held ones held (until their context ends).
func (h *heldQuotes) hold() { h.mu.Lock(); h.release = make(chan struct{}); h.mu.Unlock() }
func (h *heldQuotes) pass() { h.mu.Lock(); h.release = nil; h.mu.Unlock() }

type shared struct {
	target string
	clock  *market.FixedClock
	dm     *demo.Market
	quotes *heldQuotes
	store  *db.Store // a handle of the test's own, to look and to act as a third instance
}

func newShared(t *testing.T) *shared {
	t.Helper()
	s := &shared{target: dbtest.Target(t), clock: market.NewFixedClock(monday10)}
	dm, err := demoMarket(s.clock)
	if err != nil {
		t.Fatal(err)
	}
	s.dm = dm
	s.quotes = &heldQuotes{src: dm, entered: make(chan struct{}, 16), left: make(chan error, 16)}
	s.store = dbtest.OpenAt(t, s.target)
	return s
}

// instance makes an instance's queue on its own store handle, started or
// not (an instance that only takes requests, or one that starts later).
func (s *shared) instance(t *testing.T, owner string, start bool) *screener.Queue {
	t.Helper()
	store := dbtest.OpenAt(t, s.target)
	frame := screener.NewFrame(store, s.quotes, nil, nil, market.DefaultCalendar(), s.clock, 0)
	frame.ReadHistoryFrom(s.dm) // no bars needed in the store, so PostgreSQL runs it too
	cfg := defaultConfig()
	cfg.Workers, cfg.MaxActivePerClient = 2, 100
	cfg.Owner, cfg.Lease, cfg.Sweep = owner, 30*time.Second, 20*time.Millisecond
	q := screener.NewQueue(store, frame, s.clock, quiet(), cfg)
	if q.Owner() != owner {
		t.Fatalf("Owner() = %q, want %q", q.Owner(), owner)
	}
	t.Cleanup(q.Stop) // before the store closes
	if start {
		startQueue(t, q)
	}
	return q
}

func startQueue(t *testing.T, q *screener.Queue) {
	t.Helper()
	if err := q.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func (s *shared) job(t *testing.T, id string) db.Job {
	t.Helper()
	j, err := s.store.JobByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// waitState polls a job through q until it reaches one of the states.
func waitState(t *testing.T, q *screener.Queue, client, id string, states ...string) db.Job {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		j, err := q.Status(context.Background(), client, id)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range states {
			if j.State == s {
				return j
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s is %s after 10s (owner %q), want one of %v", id, j.State, j.Owner, states)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestSharedStoreSubmitOnOneReadOnAnother(t *testing.T) {
	s := newShared(t)
	a, b := s.instance(t, "A", true), s.instance(t, "B", true)
	ctx := context.Background()
	job, _, err := a.Submit(ctx, "c", screener.Submission{Expression: "pct > 0", Sort: "-pct", Limit: 5000, IdempotencyKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	done := waitState(t, b, "c", job.ID, db.JobSucceeded)
	if done.Matched == 0 || done.Done != listed(t, s.dm) {
		t.Fatalf("on B: matched %d, %d stocks evaluated", done.Matched, done.Done)
	}
	_, onA, errA := a.Results(ctx, "c", job.ID, 1, 5000)
	_, onB, errB := b.Results(ctx, "c", job.ID, 1, 5000)
	if errA != nil || errB != nil || len(onB) != done.Matched || fmt.Sprint(onA) != fmt.Sprint(onB) {
		t.Fatalf("results: %d on A (%v), %d on B (%v), %d matched", len(onA), errA, len(onB), errB, done.Matched)
	}
	if again, existing, err := b.Submit(ctx, "c", screener.Submission{Expression: "pct > 5", IdempotencyKey: "k"}); err != nil || !existing || again.ID != job.ID {
		t.Fatalf("the same key on B = %s, existing %v, %v; want A's %s", again.ID, existing, err, job.ID)
	}
	if _, err := b.Status(ctx, "other", job.ID); market.KindOf(err) != market.KindNotFound {
		t.Fatalf("another client's screen on B: %v, want not found", err)
	}
	if n := s.quotes.calls.Load(); n != 1 {
		t.Fatalf("the screen was evaluated %d times, want once", n)
	}
}

func TestSharedStoreCancelOnAnotherInstanceStopsTheScreen(t *testing.T) {
	s := newShared(t)
	queues := map[string]*screener.Queue{"A": s.instance(t, "A", true), "B": s.instance(t, "B", true)}
	ctx := context.Background()
	s.quotes.hold()
	job, _, err := queues["A"].Submit(ctx, "c", screener.Submission{Expression: "price > 0"})
	if err != nil {
		t.Fatal(err)
	}
	<-s.quotes.entered
	owner := s.job(t, job.ID).Owner
	other := map[string]string{"A": "B", "B": "A"}[owner]
	if other == "" {
		t.Fatalf("the running screen's owner is %q", owner)
	}
	start := time.Now()
	if j, err := queues[other].Cancel(ctx, "c", job.ID); err != nil || j.State != db.JobCanceled {
		t.Fatalf("cancel on %s = %s, %v", other, j.State, err)
	}
	select {
	case err := <-s.quotes.left:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the evaluation on %s ended with %v, want canceled", owner, err)
		}
	case <-time.After(3 * time.Second):
		t.Fatalf("the evaluation on %s still runs 3s after a cancel on %s", owner, other)
	}
	t.Logf("canceled on %s, stopped on %s after %v", other, owner, time.Since(start))
	s.quotes.pass()
	// The owner's end of the screen leaves it canceled, and its worker is
	// free for the next one.
	next, _, _ := queues[owner].Submit(ctx, "c", screener.Submission{Expression: "price > 0"})
	waitState(t, queues[owner], "c", next.ID, db.JobSucceeded)
	if j := s.job(t, job.ID); j.State != db.JobCanceled || j.Error != "canceled by the client" {
		t.Fatalf("after its owner stopped it the screen is %s (%q)", j.State, j.Error)
	}
}

func TestSharedStoreCrashedInstancesScreenRunsElsewhere(t *testing.T) {
	s := newShared(t)
	ctx := context.Background()
	front := s.instance(t, "front", false) // takes requests, runs nothing
	job, _, err := front.Submit(ctx, "c", screener.Submission{Expression: "price > 0"})
	if err != nil {
		t.Fatal(err)
	}
	// Instance C claims it and dies: no heartbeat, no end.
	if ok, err := s.store.ClaimJob(ctx, job.ID, "C", s.clock.Now(), 30*time.Second); !ok || err != nil {
		t.Fatalf("claim as C = %v, %v", ok, err)
	}
	a := s.instance(t, "A", true)
	time.Sleep(200 * time.Millisecond) // ten sweeps
	if j := s.job(t, job.ID); j.State != db.JobRunning || j.Owner != "C" || s.quotes.calls.Load() != 0 {
		t.Fatalf("while C's lease lasts the screen is %s by %q (%d evaluations)", j.State, j.Owner, s.quotes.calls.Load())
	}
	s.clock.Advance(31 * time.Second) // C's lease ends
	done := waitState(t, a, "c", job.ID, db.JobSucceeded)
	if done.Owner != "A" || done.Attempts != 1 || done.Matched == 0 {
		t.Fatalf("after C's lease ended: owner %q, %d attempts, %d matched", done.Owner, done.Attempts, done.Matched)
	}
}

func TestSharedStoreStoppedInstancesScreenMovesOn(t *testing.T) {
	s := newShared(t)
	ctx := context.Background()
	a := s.instance(t, "A", true)
	s.quotes.hold()
	job, _, err := a.Submit(ctx, "c", screener.Submission{Expression: "price > 0"})
	if err != nil {
		t.Fatal(err)
	}
	<-s.quotes.entered
	b := s.instance(t, "B", true)
	s.quotes.pass()
	a.Stop() // a clean stop releases the lease: B need not wait for it to end
	if err := <-s.quotes.left; !errors.Is(err, context.Canceled) {
		t.Fatalf("A's evaluation ended with %v", err)
	}
	done := waitState(t, b, "c", job.ID, db.JobSucceeded)
	if done.Owner != "B" || done.Attempts != 0 {
		t.Fatalf("after A stopped: owner %q, %d attempts; want B's, 0", done.Owner, done.Attempts)
	}
}

func TestSharedStoreEachScreenEvaluatedOnce(t *testing.T) {
	s := newShared(t)
	ctx := context.Background()
	front := s.instance(t, "front", false)
	var ids []string
	for i := range 12 {
		job, _, err := front.Submit(ctx, fmt.Sprintf("c%d", i%3), screener.Submission{Expression: fmt.Sprintf("pct > %d", i%4)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, job.ID)
	}
	// A and B start together: each lists every queued screen and dispatches
	// it to its workers, and each sweep does it again.
	a, b := s.instance(t, "A", false), s.instance(t, "B", false)
	var wg sync.WaitGroup
	for _, q := range []*screener.Queue{a, b} {
		wg.Add(1)
		go func() { defer wg.Done(); startQueue(t, q) }()
	}
	wg.Wait()
	owners := map[string]int{}
	for i, id := range ids {
		owners[waitState(t, front, fmt.Sprintf("c%d", i%3), id, db.JobSucceeded).Owner]++
	}
	if n := s.quotes.calls.Load(); n != int32(len(ids)) {
		t.Fatalf("%d screens were evaluated %d times (owners %v)", len(ids), n, owners)
	}
	if owners["A"]+owners["B"] != len(ids) {
		t.Fatalf("owners %v", owners)
	}
	t.Logf("owners: %v", owners)
}
