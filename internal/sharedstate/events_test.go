package sharedstate_test

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"mdqs/internal/sharedstate"
	"mdqs/internal/sharedstate/redistest"
)

// Entries get the seq asked for while it is after the stream's last; a
// publisher whose clock is behind (a new leader) gets the next one after
// it instead; every entry names the one before it.
func TestAppendEventKeepsTheOrder(t *testing.T) {
	prefix := redistest.Prefix(t)
	a, b := open(t, prefix), open(t, prefix)
	ctx := context.Background()
	const t0 = int64(1795399200000000) // µs, past 2^50: Lua must not round it
	for i, tt := range []struct {
		c    *sharedstate.Client
		seq  int64
		want int64
	}{
		{a, t0, t0},
		{a, t0 + 7, t0 + 7},
		{b, t0 + 3, t0 + 8}, // behind the last: one past it
		{b, t0 + 8, t0 + 9}, // equal: one past it
		{a, t0 + 1000, t0 + 1000},
	} {
		got, err := tt.c.AppendEvent(ctx, tt.seq, map[string]string{"t": "ranking", "d": strconv.Itoa(i)})
		if err != nil || got != tt.want {
			t.Fatalf("step %d: AppendEvent(%d) = %d, %v; want %d", i, tt.seq, got, err, tt.want)
		}
	}
	all, err := b.ReadEvents(ctx, 0, 10*time.Millisecond, 100)
	if err != nil {
		t.Fatal(err)
	}
	var ids, prevs []int64
	for i, e := range all {
		ids, prevs = append(ids, e.ID-t0), append(prevs, e.Prev)
		if e.Fields["d"] != strconv.Itoa(i) || e.Fields["t"] != "ranking" || len(e.Fields) != 2 {
			t.Errorf("entry %d: fields %v", i, e.Fields)
		}
	}
	if want := []int64{0, 7, 8, 9, 1000}; !slices.Equal(ids, want) {
		t.Errorf("ids (after t0) %v, want %v", ids, want)
	}
	if want := []int64{0, t0, t0 + 7, t0 + 8, t0 + 9}; !slices.Equal(prevs, want) {
		t.Errorf("prevs %v, want %v", prevs, want)
	}
	recent, err := a.RecentEvents(ctx, 2)
	if err != nil || len(recent) != 2 || recent[0].ID != t0+9 || recent[1].ID != t0+1000 {
		t.Errorf("RecentEvents(2) = %v, %v; want the last two, oldest first", recent, err)
	}
	after, err := a.ReadEvents(ctx, t0+8, 10*time.Millisecond, 100)
	if err != nil || len(after) != 2 || after[0].ID != t0+9 {
		t.Errorf("ReadEvents after t0+8 = %v, %v; want t0+9 and t0+1000", after, err)
	}
}

// A blocking read returns as soon as an entry is added, and empty when
// none came within its block.
func TestReadEventsBlocks(t *testing.T) {
	prefix := redistest.Prefix(t)
	a, b := open(t, prefix), open(t, prefix)
	ctx := context.Background()
	began := time.Now()
	if got, err := a.ReadEvents(ctx, 0, 50*time.Millisecond, 10); err != nil || len(got) != 0 {
		t.Fatalf("a read of an empty stream = %v, %v", got, err)
	}
	if took := time.Since(began); took < 50*time.Millisecond {
		t.Errorf("the read returned after %v, before its block", took)
	}
	done := make(chan []sharedstate.Entry)
	go func() {
		got, err := a.ReadEvents(ctx, 0, 5*time.Second, 10)
		if err != nil {
			t.Error(err)
		}
		done <- got
	}()
	time.Sleep(20 * time.Millisecond)
	// Other commands of the same client are not held behind the blocked read.
	if _, err := a.AppendEvent(ctx, 42, map[string]string{"t": "quote"}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Wanted(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-done:
		if len(got) != 1 || got[0].ID != 42 {
			t.Fatalf("blocked read got %v", got)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("the blocked read did not return after an append")
	}
}

// The stream keeps about EventsMaxLen entries.
func TestEventsStreamIsBounded(t *testing.T) {
	prefix := redistest.Prefix(t)
	a := open(t, prefix)
	ctx := context.Background()
	n := sharedstate.EventsMaxLen + 500
	for i := range n {
		if _, err := a.AppendEvent(ctx, int64(i+1), map[string]string{"t": "quote"}); err != nil {
			t.Fatal(err)
		}
	}
	l, err := raw(t).Do(ctx, raw(t).B().Xlen().Key(prefix+"stream:events").Build()).AsInt64()
	if err != nil || l < sharedstate.EventsMaxLen || l >= int64(n) {
		t.Fatalf("XLEN after %d appends = %d, %v; want about %d", n, l, err, sharedstate.EventsMaxLen)
	}
}

// Wants: the union of the instances' codes, until each one's ttl passes
// or it withdraws.
func TestWantsExpire(t *testing.T) {
	prefix := redistest.Prefix(t)
	a, b := open(t, prefix), open(t, prefix)
	ctx := context.Background()
	if got, err := a.Wanted(ctx); err != nil || len(got) != 0 {
		t.Fatalf("Wanted before any want = %v, %v", got, err)
	}
	if err := a.Want(ctx, "a", []string{"600519.SH", "000001.SZ"}, time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := b.Want(ctx, "b", []string{"600519.SH"}, 100*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	got, err := b.Wanted(ctx)
	slices.Sort(got)
	if err != nil || !slices.Equal(got, []string{"000001.SZ", "600519.SH"}) {
		t.Fatalf("Wanted = %v, %v", got, err)
	}
	if err := a.Unwant(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if got, err := a.Wanted(ctx); err != nil || !slices.Equal(got, []string{"600519.SH"}) {
		t.Fatalf("Wanted after a withdrew = %v, %v; want b's", got, err)
	}
	time.Sleep(150 * time.Millisecond)
	if got, err := a.Wanted(ctx); err != nil || len(got) != 0 {
		t.Fatalf("Wanted after b's ttl = %v, %v; want none", got, err)
	}
}

// An append sent again after its answer was lost (the same token) adds
// nothing and answers the id the first got.
func TestAppendEventRetryAddsOnce(t *testing.T) {
	prefix := redistest.Prefix(t)
	a := open(t, prefix)
	ctx := context.Background()
	first, err := a.AppendEventAs(ctx, 500, "tok-1", map[string]string{"t": "ranking"})
	if err != nil {
		t.Fatal(err)
	}
	again, err := a.AppendEventAs(ctx, 900, "tok-1", map[string]string{"t": "ranking"})
	if err != nil || again != first {
		t.Fatalf("the same append again = %d, %v; want %d, the first's id", again, err, first)
	}
	other, err := a.AppendEventAs(ctx, 900, "tok-2", map[string]string{"t": "ranking"})
	if err != nil || other != 900 {
		t.Fatalf("another append = %d, %v; want 900", other, err)
	}
	all, err := a.ReadEvents(ctx, 0, 10*time.Millisecond, 10)
	if err != nil || len(all) != 2 {
		t.Fatalf("the stream holds %v, %v; want two entries", all, err)
	}
}
