package cluster_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"mdqs/internal/cluster"
	"mdqs/internal/sharedstate"
	"mdqs/internal/sharedstate/redistest"
)

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// two instances' shared state on one real Redis, under a prefix of the
// test's own.
func twoInstances(t *testing.T) (a, b *cluster.Shared) {
	t.Helper()
	url, prefix := redistest.URL(t), redistest.Prefix(t)
	open := func() *cluster.Shared {
		rc, err := sharedstate.Open(context.Background(), url, sharedstate.Options{Prefix: prefix})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(rc.Close)
		return cluster.New(rc, quiet())
	}
	return open(), open()
}

func TestAClientCannotMultiplyItsBudgetByTheInstances(t *testing.T) {
	a, b := twoInstances(t)
	ctx := context.Background()
	granted := 0
	for i := range 10 {
		s := a
		if i%2 == 1 {
			s = b
		}
		if _, ok, err := s.Take(ctx, "client:bot", 0.01, 4); err != nil {
			t.Fatal(err)
		} else if ok {
			granted++
		}
	}
	if granted != 4 {
		t.Fatalf("two instances granted %d requests of a burst of 4", granted)
	}
}

func TestInstancesShareTheNewestRanking(t *testing.T) {
	a, b := twoInstances(t)
	ctx := context.Background()
	if ok, err := a.Cache().PutIfNewer(ctx, "ranking:20261125", 2000, []byte("new"), time.Minute); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if ok, _ := b.Cache().PutIfNewer(ctx, "ranking:20261125", 1000, []byte("old"), time.Minute); ok {
		t.Fatal("an older build replaced a newer one")
	}
	d, v, ok, err := b.Cache().Get(ctx, "ranking:20261125")
	if err != nil || !ok || v != 2000 || !bytes.Equal(d, []byte("new")) {
		t.Fatalf("B reads %q v%d %v %v", d, v, ok, err)
	}
}

// down is a Redis that stopped answering.
type down struct{}

var errDown = errors.New("dial tcp 10.0.0.5:6379: connect: connection refused")

func (down) Take(context.Context, string, float64, int) (time.Duration, bool, error) {
	return 0, false, errDown
}
func (down) Version(context.Context, string) (int64, bool, error) { return 0, false, errDown }
func (down) Get(context.Context, string) ([]byte, int64, bool, error) {
	return nil, 0, false, errDown
}
func (down) PutIfNewer(context.Context, string, int64, []byte, time.Duration) (bool, error) {
	return false, errDown
}
func (down) Ping(context.Context) error { return errDown }
func (down) Addr() string               { return "redis://10.0.0.5:6379" }

// Losing Redis degrades an instance to its own memory, and it says so.
func TestLosingRedisDegradesToTheInstancesOwnState(t *testing.T) {
	s := cluster.New(down{}, quiet())
	ctx := context.Background()
	if _, ok, err := s.Take(ctx, "client:x", 1, 1); ok || err == nil {
		t.Fatalf("Take with Redis down = %v, %v; want an error for the caller's own bucket to answer", ok, err)
	}
	if _, _, err := s.Cache().Version(ctx, "ranking"); err == nil {
		t.Fatal("Version with Redis down: no error")
	}
	st := s.Status()
	if st.Up || st.Failures != 2 || st.Degraded == "" || st.LastError == "" {
		t.Fatalf("status = %+v; want down, 2 failures, and what it does instead", st)
	}
	// A request that ended by itself is no evidence against Redis.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	s.Take(cctx, "client:x", 1, 1)
	if s.Status().Failures != 2 {
		t.Fatal("a cancelled request counted as a Redis failure")
	}
}
