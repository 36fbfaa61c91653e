package db_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
)

// twoInstances opens one store twice, as two instances sharing it do (two
// handles on one SQLite file, or two pools on one PostgreSQL schema).
func twoInstances(t *testing.T) (*db.Store, *db.Store) {
	t.Helper()
	target := dbtest.Target(t)
	return dbtest.OpenAt(t, target), dbtest.OpenAt(t, target)
}

func submitJob(t *testing.T, s *db.Store, id string, at time.Time) {
	t.Helper()
	if _, _, err := s.SubmitJob(context.Background(), db.Job{ID: id, ClientID: "c", Expression: "price > 0", Universe: []byte(`{}`),
		Limit: 10, Fields: []string{"price"}, CreatedAt: at}, 100); err != nil {
		t.Fatal(err)
	}
}

func jobOf(t *testing.T, s *db.Store, id string) db.Job {
	t.Helper()
	j, err := s.JobByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

var t0 = time.Date(2026, 11, 23, 2, 0, 0, 0, time.UTC)

// Of instances claiming one queued job at once, exactly one wins, on
// either store; a job no longer queued is claimed by nobody.
func TestClaimJobOneWins(t *testing.T) {
	a, b := twoInstances(t)
	ctx := context.Background()
	for i := range 10 {
		id := fmt.Sprintf("job%d", i)
		submitJob(t, a, id, t0)
		var wg sync.WaitGroup
		won := make([]bool, 4)
		for k := range won {
			s := []*db.Store{a, b}[k%2]
			wg.Add(1)
			go func() {
				defer wg.Done()
				ok, err := s.ClaimJob(ctx, id, fmt.Sprintf("owner%d", k), t0, 30*time.Second)
				if err != nil {
					t.Error(err)
				}
				won[k] = ok
			}()
		}
		wg.Wait()
		winners := 0
		owner := ""
		for k, ok := range won {
			if ok {
				winners++
				owner = fmt.Sprintf("owner%d", k)
			}
		}
		if winners != 1 {
			t.Fatalf("%s: %d claims won, want 1", id, winners)
		}
		if j := jobOf(t, b, id); j.State != db.JobRunning || j.Owner != owner || !j.LeaseUntil.Equal(t0.Add(30*time.Second)) {
			t.Fatalf("%s after the claim: state %s, owner %q (winner %q), lease %v", id, j.State, j.Owner, owner, j.LeaseUntil)
		}
	}
	submitJob(t, a, "canceled", t0)
	if _, err := b.CancelJob(ctx, "c", "canceled", t0); err != nil {
		t.Fatal(err)
	}
	if ok, err := a.ClaimJob(ctx, "canceled", "A", t0, time.Minute); ok || err != nil {
		t.Fatalf("ClaimJob(canceled job) = %v, %v, want false", ok, err)
	}
}

// A running job whose lease ends goes back to the queue, counted; renewed
// leases keep it; the third loss fails it with the reason; a lease released
// at a clean stop requeues at once without counting.
func TestLostLeasesRequeueThenFail(t *testing.T) {
	a, b := twoInstances(t)
	ctx := context.Background()
	lease := 30 * time.Second
	submitJob(t, a, "j", t0)
	requeue := func(now time.Time, mine string, want int) {
		t.Helper()
		got, _, err := b.RequeueLost(ctx, now, mine, 3)
		if err != nil || got != want {
			t.Fatalf("RequeueLost(%v, %q) = %d, %v, want %d", now.Sub(t0), mine, got, err, want)
		}
	}
	now := t0
	for loss := 1; loss <= 2; loss++ {
		if ok, err := a.ClaimJob(ctx, "j", "C", now, lease); !ok || err != nil {
			t.Fatalf("claim %d = %v, %v", loss, ok, err)
		}
		requeue(now.Add(20*time.Second), "", 0)
		if err := a.RenewLeases(ctx, "C", now.Add(20*time.Second), lease); err != nil {
			t.Fatal(err)
		}
		requeue(now.Add(40*time.Second), "", 0)  // renewed until +50s
		requeue(now.Add(40*time.Second), "D", 0) // another owner's restart leaves it
		now = now.Add(50 * time.Second)
		requeue(now, "", 1)
		if j := jobOf(t, a, "j"); j.State != db.JobQueued || j.Attempts != loss || j.Owner != "" || !j.StartedAt.IsZero() {
			t.Fatalf("after loss %d: %+v", loss, j)
		}
	}
	// A clean stop releases the lease: requeued at once, not counted.
	if ok, _ := a.ClaimJob(ctx, "j", "C", now, lease); !ok {
		t.Fatal("claim after two losses failed")
	}
	if err := a.ReleaseJob(ctx, "j", "C"); err != nil {
		t.Fatal(err)
	}
	if j := jobOf(t, a, "j"); j.State != db.JobRunning {
		t.Fatalf("a released job is %s, want still running until requeued", j.State)
	}
	requeue(now, "", 1)
	if j := jobOf(t, a, "j"); j.State != db.JobQueued || j.Attempts != 2 {
		t.Fatalf("after a release: %s with %d attempts, want queued with 2", j.State, j.Attempts)
	}
	// An owner restarting requeues its own jobs whatever their lease.
	a.ClaimJob(ctx, "j", "C", now, lease)
	requeue(now, "C", 0) // the third loss fails instead
	j := jobOf(t, a, "j")
	if j.State != db.JobFailed || j.Attempts != 3 || !strings.Contains(j.Error, "stopped 3 times; submit it again") || j.FinishedAt.IsZero() {
		t.Fatalf("after the third loss: %s (%d attempts) %q", j.State, j.Attempts, j.Error)
	}
}

// Only the owner of a running job writes its progress and end; a canceled
// job stays canceled when its owner finishes it.
func TestFinishJobOnlyByItsOwner(t *testing.T) {
	a, b := twoInstances(t)
	ctx := context.Background()
	submitJob(t, a, "j", t0)
	a.ClaimJob(ctx, "j", "A", t0, time.Minute)
	if err := b.JobProgress(ctx, "j", "B", 5, 10); err != nil {
		t.Fatal(err)
	}
	if ok, err := b.FinishJob(ctx, "j", "B", db.JobSucceeded, "", 10, nil, t0); ok || err != nil {
		t.Fatalf("FinishJob by another owner = %v, %v", ok, err)
	}
	a.JobProgress(ctx, "j", "A", 3, 10)
	if j := jobOf(t, b, "j"); j.State != db.JobRunning || j.Done != 3 {
		t.Fatalf("after another owner's writes: %s, done %d", j.State, j.Done)
	}
	if own, err := b.OwnRunningJobs(ctx, "A"); err != nil || len(own) != 1 || own[0] != "j" {
		t.Fatalf("OwnRunningJobs(A) = %v, %v", own, err)
	}
	if _, err := b.CancelJob(ctx, "c", "j", t0); err != nil {
		t.Fatal(err)
	}
	if own, _ := b.OwnRunningJobs(ctx, "A"); len(own) != 0 {
		t.Fatalf("a canceled job is still listed as A's: %v", own)
	}
	if ok, err := a.FinishJob(ctx, "j", "A", db.JobSucceeded, "", 10, []db.Result{{Code: "600519.SH"}}, t0); ok || err != nil {
		t.Fatalf("FinishJob after a cancel = %v, %v", ok, err)
	}
	if j := jobOf(t, a, "j"); j.State != db.JobCanceled || j.Matched != 0 {
		t.Fatalf("a canceled job finished as %s with %d matches", j.State, j.Matched)
	}
}

// migrate-store carries a running job's owner, lease and attempts, so a
// team moving to PostgreSQL keeps what its instances were doing.
func TestCopyCarriesJobLeases(t *testing.T) {
	server := dbtest.NeedPostgres(t)
	ctx := context.Background()
	src := dbtest.OpenAt(t, filepath.Join(t.TempDir(), "mdqs.db"))
	submitJob(t, src, "j", t0)
	src.ClaimJob(ctx, "j", "C", t0, time.Minute)
	src.RequeueLost(ctx, t0.Add(time.Hour), "", 3)
	src.ClaimJob(ctx, "j", "A", t0, time.Minute)
	to := dbtest.OpenAt(t, dbtest.NewSchema(t, server))
	if _, err := src.CopyTo(ctx, to, db.CopyOptions{}); err != nil {
		t.Fatal(err)
	}
	if j := jobOf(t, to, "j"); j.State != db.JobRunning || j.Owner != "A" || j.Attempts != 1 || !j.LeaseUntil.Equal(t0.Add(time.Minute)) {
		t.Fatalf("copied job: %s, owner %q, %d attempts, lease %v", j.State, j.Owner, j.Attempts, j.LeaseUntil)
	}
}
