package jobs_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/market"
	"mdqs/jobs"
)

// Two instances on one PostgreSQL store, wired as main wires them: only
// the leader collects, and when its session dies the other collects at
// once, without waiting for its next tick.
func TestOnlyTheLeaderCollectsAndFailoverCatchesUp(t *testing.T) {
	server := dbtest.NeedPostgres(t)
	target := dbtest.NewSchema(t, server)
	const poll = 100 * time.Millisecond
	type instance struct {
		lead   *db.Leadership
		runner *jobs.Runner
		runs   atomic.Int64
	}
	start := func(id string) *instance {
		in := &instance{}
		in.lead = dbtest.OpenAt(t, target).Leadership(id, db.LeaderOptions{Interval: poll})
		in.lead.Start(context.Background())
		t.Cleanup(in.lead.Stop)
		in.runner = jobs.NewRunner(nil, market.SystemClock{})
		in.runner.SetLeadership(in.lead)
		in.runner.Add(jobs.Job{Name: "collect", Interval: time.Hour, RunAtStart: true, LeaderOnly: true,
			Run: func(context.Context) error { in.runs.Add(1); return nil }})
		in.runner.Start(context.Background())
		t.Cleanup(in.runner.Stop) // before the leadership's Stop
		<-in.runner.CaughtUp()
		return in
	}
	id := "jobs-" + time.Now().Format("150405.000000")
	a, b := start(id+"-a"), start(id+"-b")
	if a.runs.Load() != 1 || b.runs.Load() != 0 || !a.runner.Leader() || b.runner.Leader() {
		t.Fatalf("start runs: a %d (leads %v), b %d (leads %v); want a's only", a.runs.Load(), a.runner.Leader(), b.runs.Load(), b.runner.Leader())
	}

	admin, err := pgx.Connect(context.Background(), server)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(context.Background())
	if _, err := admin.Exec(context.Background(),
		`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, "mdqs leader "+id+"-a"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for b.runs.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("b did not collect after a's session died")
		}
		time.Sleep(5 * time.Millisecond)
	}
	// a learns that its session died at its next poll: until then it
	// still says it leads (it failed so once in CI, under load), but it
	// runs nothing, as its count shows.
	for a.runner.Leader() && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if a.runner.Leader() || !b.runner.Leader() || a.runs.Load() != 1 {
		t.Fatalf("after failover: a leads %v with %d runs, b leads %v; want b", a.runner.Leader(), a.runs.Load(), b.runner.Leader())
	}
	if st := b.runner.Statuses()[0]; st.Followed != 1 || st.Runs != 1 {
		t.Errorf("b's status = %+v, want its start run followed and one catch-up run", st)
	}
}
