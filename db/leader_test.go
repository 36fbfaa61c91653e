package db_test

import (
	"bufio"
	"context"
	"crypto/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"mdqs/db"
	"mdqs/db/dbtest"
)

// poll is the election's interval in these tests.
const poll = 100 * time.Millisecond

// candidate starts a candidacy on s that ends with the test.
func candidate(t *testing.T, s *db.Store, id string, opt db.LeaderOptions) *db.Leadership {
	t.Helper()
	if opt.Interval == 0 {
		opt.Interval = poll
	}
	l := s.Leadership(id, opt)
	l.Start(context.Background())
	t.Cleanup(l.Stop)
	return l
}

// uniqueID is a candidate's identity no other test on the server shares.
func uniqueID(name string) string { return name + "-" + strings.ToLower(rand.Text()[:8]) }

// within waits up to d for cond, and reports how long it took.
func within(t *testing.T, d time.Duration, what string, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > d {
			t.Fatalf("%s: not within %v", what, d)
		}
		time.Sleep(2 * time.Millisecond)
	}
	return time.Since(start)
}

func leaders(ls ...*db.Leadership) (n int) {
	for _, l := range ls {
		if l.IsLeader() {
			n++
		}
	}
	return n
}

func TestLeadershipOnSQLiteAlwaysLeads(t *testing.T) {
	s := dbtest.OpenAt(t, filepath.Join(t.TempDir(), "mdqs.db"))
	l := s.Leadership("solo", db.LeaderOptions{})
	if !l.IsLeader() {
		t.Fatal("IsLeader() before Start = false, want true on SQLite")
	}
	l.Start(context.Background())
	if !l.IsLeader() {
		t.Fatal("IsLeader() after Start = false, want true on SQLite")
	}
	if got, err := l.LeaderIdentity(context.Background()); err != nil || got != "solo" {
		t.Errorf("LeaderIdentity() = %q, %v, want solo", got, err)
	}
	select {
	case v := <-l.Changes():
		t.Errorf("Changes() delivered %v on SQLite, want nothing", v)
	default:
	}
	l.Stop()
	if !l.IsLeader() || l.Since().IsZero() {
		t.Errorf("after Stop: IsLeader() = %v, Since() = %v, want true and a time", l.IsLeader(), l.Since())
	}
	if def := s.Leadership("", db.LeaderOptions{}); !strings.Contains(def.Identity(), ":") {
		t.Errorf("default Identity() = %q, want host:pid", def.Identity())
	}
}

func TestLeadershipOneLeaderThenFailoverOnStop(t *testing.T) {
	target := dbtest.NewSchema(t, dbtest.NeedPostgres(t))
	ida, idb := uniqueID("a"), uniqueID("b")
	var changesA atomic.Int32
	a := candidate(t, dbtest.OpenAt(t, target), ida, db.LeaderOptions{OnChange: func(bool) { changesA.Add(1) }})
	b := candidate(t, dbtest.OpenAt(t, target), idb, db.LeaderOptions{})
	// Start makes a first attempt at once: the first started leads.
	if !a.IsLeader() || b.IsLeader() {
		t.Fatalf("after Start: a leads %v, b leads %v, want a only", a.IsLeader(), b.IsLeader())
	}
	if got := <-a.Changes(); !got {
		t.Errorf("a.Changes() = %v, want true", got)
	}
	since := a.Since()
	// The leader's check keeps finding its lock, poll after poll.
	for range 5 {
		time.Sleep(poll)
		if !a.IsLeader() || b.IsLeader() {
			t.Fatalf("a leads %v, b leads %v, want a only", a.IsLeader(), b.IsLeader())
		}
	}
	if !a.Since().Equal(since) || changesA.Load() != 1 {
		t.Errorf("a's leadership changed while it held the lock: since %v -> %v, %d changes", since, a.Since(), changesA.Load())
	}
	for _, l := range []*db.Leadership{a, b} {
		if got, err := l.LeaderIdentity(context.Background()); err != nil || got != ida {
			t.Errorf("%s: LeaderIdentity() = %q, %v, want %q", l.Identity(), got, err, ida)
		}
	}

	a.Stop()
	if a.IsLeader() {
		t.Fatal("a leads after Stop")
	}
	took := within(t, handover, "b leads after a's Stop", b.IsLeader)
	t.Logf("b led %v after a stopped", took)
	if got := <-b.Changes(); !got {
		t.Errorf("b.Changes() = %v, want true", got)
	}
	if changesA.Load() != 2 {
		t.Errorf("a's OnChange ran %d times, want 2 (lead, stop)", changesA.Load())
	}
}

// handover bounds the waits for a change of leader. A handover takes about
// two polls on an idle machine, which the tests log; the bound only stops a
// hang: two polls and 50 ms failed once on a loaded CI machine.
const handover = 10 * time.Second

func TestLeadershipFailoverWhenTheLeaderSessionDies(t *testing.T) {
	server := dbtest.NeedPostgres(t)
	target := dbtest.NewSchema(t, server)
	ida, idb := uniqueID("a"), uniqueID("b")
	a := candidate(t, dbtest.OpenAt(t, target), ida, db.LeaderOptions{})
	b := candidate(t, dbtest.OpenAt(t, target), idb, db.LeaderOptions{})
	if !a.IsLeader() || b.IsLeader() {
		t.Fatalf("after Start: a leads %v, b leads %v, want a only", a.IsLeader(), b.IsLeader())
	}

	// A third session ends the leader's, as a dead leader's or a lost
	// connection's would end.
	admin, err := pgx.Connect(context.Background(), server)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(context.Background())
	var killed int
	if err := admin.QueryRow(context.Background(),
		`SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1`, "mdqs leader "+ida).Scan(&killed); err != nil || killed != 1 {
		t.Fatalf("terminate a's session: %d killed, %v; want 1", killed, err)
	}
	took := within(t, handover, "a stops leading and b leads", func() bool { return !a.IsLeader() && b.IsLeader() })
	t.Logf("b led %v after a's session was terminated", took)
	// a reconnects as a follower and stays one.
	for range 4 {
		time.Sleep(poll)
		if a.IsLeader() || !b.IsLeader() {
			t.Fatalf("a leads %v, b leads %v, want b only", a.IsLeader(), b.IsLeader())
		}
	}
	// ... and leads again when b goes: its reconnected session is live.
	b.Stop()
	within(t, handover, "a leads again after b's Stop", a.IsLeader)
}

// helperTarget, set, makes TestLeadershipHelperProcess a leader candidate
// in a process of its own, for a test to kill.
const helperTarget = "MDQS_TEST_LEADER_HELPER"

// TestLeadershipHelperProcess is the process TestLeadershipFailoverWhenTheLeaderIsKilled
// kills: it leads, says so on stdout, and waits to be killed.
func TestLeadershipHelperProcess(t *testing.T) {
	target := os.Getenv(helperTarget)
	if target == "" {
		t.Skip("the helper of TestLeadershipFailoverWhenTheLeaderIsKilled")
	}
	s, err := db.Open(context.Background(), target, db.Options{SQLiteSchema: dbtest.SQLiteSchema(t)})
	if err != nil {
		t.Fatal(err)
	}
	l := s.Leadership(os.Getenv(helperTarget+"_ID"), db.LeaderOptions{Interval: poll})
	l.Start(context.Background())
	if !l.IsLeader() {
		t.Fatal("the helper does not lead")
	}
	os.Stdout.WriteString("leading\n")
	time.Sleep(time.Minute)
	t.Fatal("the helper was not killed within a minute")
}

// The goal itself: SIGKILL the leader's process; another instance leads
// within a poll interval (the server ends the dead process's session, and
// its lock with it, at once).
func TestLeadershipFailoverWhenTheLeaderIsKilled(t *testing.T) {
	target := dbtest.NewSchema(t, dbtest.NeedPostgres(t))
	cmd := exec.Command(os.Args[0], "-test.run=^TestLeadershipHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperTarget+"="+target, helperTarget+"_ID="+uniqueID("killed"))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "leading\n" {
		t.Fatalf("helper said %q, %v; want leading", line, err)
	}
	b := candidate(t, dbtest.OpenAt(t, target), uniqueID("b"), db.LeaderOptions{})
	time.Sleep(2 * poll)
	if b.IsLeader() {
		t.Fatal("b leads while the helper does")
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL on Unix
		t.Fatal(err)
	}
	took := within(t, handover, "b leads after the leader was killed", b.IsLeader)
	t.Logf("b led %v after the leader's process was killed", took)
}

func TestLeadershipEndsWithItsContext(t *testing.T) {
	target := dbtest.NewSchema(t, dbtest.NeedPostgres(t))
	ctx, cancel := context.WithCancel(context.Background())
	a := dbtest.OpenAt(t, target).Leadership(uniqueID("a"), db.LeaderOptions{Interval: poll})
	a.Start(ctx)
	defer a.Stop()
	b := candidate(t, dbtest.OpenAt(t, target), uniqueID("b"), db.LeaderOptions{})
	if !a.IsLeader() {
		t.Fatal("a does not lead")
	}
	cancel()
	within(t, handover, "b leads after a's context ended", func() bool { return !a.IsLeader() && b.IsLeader() })
}

func TestLeadershipSchemasDoNotContend(t *testing.T) {
	server := dbtest.NeedPostgres(t)
	one, two := dbtest.NewSchema(t, server), dbtest.NewSchema(t, server)
	a := candidate(t, dbtest.OpenAt(t, one), uniqueID("a"), db.LeaderOptions{})
	b := candidate(t, dbtest.OpenAt(t, two), uniqueID("b"), db.LeaderOptions{})
	c := candidate(t, dbtest.OpenAt(t, two), uniqueID("c"), db.LeaderOptions{})
	time.Sleep(2 * poll)
	if !a.IsLeader() || !b.IsLeader() || c.IsLeader() {
		t.Fatalf("a (schema one) leads %v, b and c (schema two) lead %v and %v; want a and b", a.IsLeader(), b.IsLeader(), c.IsLeader())
	}
	if n := leaders(a, b, c); n != 2 {
		t.Fatalf("%d leaders, want 2", n)
	}
}
