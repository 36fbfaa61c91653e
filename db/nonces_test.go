package db_test

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"mdqs/db/dbtest"
)

// The store's nonce record is the team's replay protection: a key is fresh
// once while live, an expired key is fresh again, and of many processes
// racing on one key exactly one wins.
func TestANonceIsFreshOnceWhileLive(t *testing.T) {
	s := dbtest.Open(t)
	ctx := context.Background()
	now := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	exp := now.Add(61 * time.Second)
	for i, c := range []struct {
		key     string
		at, exp time.Time
		want    bool
	}{
		{"tok:n1", now, exp, true},
		{"tok:n1", now.Add(time.Second), exp, false},
		{"tok:n2", now, exp, true},
		{"tok:n1", exp.Add(-time.Millisecond), exp, false},
		{"tok:n1", exp, exp.Add(61 * time.Second), true}, // expired at its expiry: the timestamp no longer passes
		{"tok:n1", exp.Add(time.Second), exp.Add(61 * time.Second), false},
	} {
		fresh, err := s.RecordNonce(ctx, c.key, c.exp, c.at)
		if err != nil || fresh != c.want {
			t.Fatalf("step %d: RecordNonce(%s at +%v) = %v, %v; want %v", i, c.key, c.at.Sub(now), fresh, err, c.want)
		}
	}
	live, err := s.LiveNonces(ctx, now.Add(70*time.Second))
	if err != nil || len(live) != 1 || live[0].Key != "tok:n1" {
		t.Fatalf("live at +70s = %+v, %v; want tok:n1 only (re-recorded at +61s)", live, err)
	}
	if n, err := s.PurgeNonces(ctx, now.Add(200*time.Second)); err != nil || n != 2 {
		t.Fatalf("purge = %d, %v; want 2", n, err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := 0
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fresh, err := s.RecordNonce(ctx, "tok:race", exp, now)
			if err != nil {
				t.Error(err)
			}
			if fresh {
				mu.Lock()
				wins++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if wins != 1 {
		t.Fatalf("16 racers on one nonce: %d accepted, want 1", wins)
	}
}

// Two stores on one database (two instances of a team, two processes on
// a file) see each other's nonces.
func TestANonceOneStoreRecordedAnotherRefuses(t *testing.T) {
	target := dbtest.Target(t)
	a, b := dbtest.OpenAt(t, target), dbtest.OpenAt(t, target)
	ctx, now := context.Background(), time.Now()
	if fresh, err := a.RecordNonce(ctx, "tok:n", now.Add(time.Minute), now); !fresh || err != nil {
		t.Fatalf("a: %v %v", fresh, err)
	}
	if fresh, err := b.RecordNonce(ctx, "tok:n", now.Add(time.Minute), now); fresh || err != nil {
		t.Fatalf("b accepted a's nonce: %v %v", fresh, err)
	}
}

// One RecordNonce per signed request on a team (a fresh nonce each
// time), against the same store as SQLite sees it (a lone server records
// only the requests dated ahead of its clock). On PostgreSQL:
//
//	MDQS_TEST_STORE=postgres MDQS_TEST_POSTGRES=... go test -run '^$' -bench RecordNonce -benchmem ./db
func BenchmarkRecordNonce(b *testing.B) {
	s := dbtest.Open(b)
	ctx := context.Background()
	var n atomic.Int64
	now := time.Now()
	record := func(b *testing.B) {
		fresh, err := s.RecordNonce(ctx, "tok:"+strconv.FormatInt(n.Add(1), 36), now.Add(time.Minute), now)
		if err != nil || !fresh {
			b.Error(fresh, err)
		}
	}
	b.Run("serial", func(b *testing.B) {
		for b.Loop() {
			record(b)
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.SetParallelism(16) // requests in flight, as an HTTP server under load
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				record(b)
			}
		})
	})
}
