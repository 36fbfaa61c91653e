package cache

import (
	"sync"
	"testing"
	"time"
)

func newTest(t *testing.T, maxCost int64) *Cache[string] {
	t.Helper()
	c, err := New[string](Config{Name: "t", MaxCost: maxCost, Entries: 100})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func TestSetSyncIsReadableAtOnce(t *testing.T) {
	c := newTest(t, 1000)
	if !c.SetSync("k", "v", 10, 0) {
		t.Fatal("SetSync = false, want true")
	}
	if got, ok := c.Get("k"); !ok || got != "v" {
		t.Fatalf("Get(k) = %q, %v; want v, true", got, ok)
	}
}

func TestSetSyncReportsSilentRejection(t *testing.T) {
	// ristretto accepts a Set bigger than the whole cache into its buffer
	// and then drops it without a word; SetSync must say so.
	c := newTest(t, 100)
	if c.SetSync("big", "v", 101, 0) {
		t.Fatal("SetSync of an item over MaxCost = true, want false")
	}
	if _, ok := c.Get("big"); ok {
		t.Fatal("oversized item is present")
	}
}

func TestEntryCostIsWhatTheCallerSays(t *testing.T) {
	// With ristretto's default internal cost a 100-unit cache holds one
	// item of cost 1; ours must hold all 100.
	c := newTest(t, 100)
	for i := range 100 {
		c.Set(string(rune('a'+i%26))+string(rune('0'+i/26)), "v", 1, 0)
	}
	c.Wait()
	if st := c.Stats(); st.KeysAdded != 100 || st.CostUsed != 100 {
		t.Fatalf("Stats = %+v, want 100 keys added, cost used 100", st)
	}
}

func TestStatsCountHitsAndMisses(t *testing.T) {
	c := newTest(t, 1000)
	c.SetSync("k", "v", 1, 0) // its read-back is one hit
	c.Get("k")
	c.Get("absent")
	st := c.Stats()
	if st.Hits != 2 || st.Misses != 1 {
		t.Fatalf("hits, misses = %d, %d; want 2, 1", st.Hits, st.Misses)
	}
	if st.HitRatio < 0.66 || st.HitRatio > 0.67 {
		t.Fatalf("HitRatio = %v, want 2/3", st.HitRatio)
	}
	if st.CostMax != 1000 {
		t.Fatalf("CostMax = %d, want 1000", st.CostMax)
	}
}

func TestTTLExpires(t *testing.T) {
	c := newTest(t, 1000)
	c.SetSync("k", "v", 1, 50*time.Millisecond)
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, ok := c.Get("k"); !ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("entry with a 50ms TTL still present after 5s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestDelIsImmediate(t *testing.T) {
	c := newTest(t, 1000)
	c.SetSync("k", "v", 1, 0)
	c.Del("k")
	if _, ok := c.Get("k"); ok {
		t.Fatal("key present after Del")
	}
}

func TestSetConcurrentWithCloseDoesNotPanic(t *testing.T) {
	// ristretto itself panics here (send on closed channel) in most runs.
	for range 50 {
		c, err := New[string](Config{Name: "t", MaxCost: 1 << 20, Entries: 1000})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 200 {
					c.Set(string(rune(w))+string(rune(i)), "v", 1, 0)
				}
			}()
		}
		c.Close()
		wg.Wait()
		if c.Set("after", "v", 1, 0) {
			t.Fatal("Set after Close = true, want false")
		}
	}
}
