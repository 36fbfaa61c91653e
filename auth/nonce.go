package auth

import (
	"container/heap"
	"errors"
	"hash/maphash"
	"sync"
	"sync/atomic"
	"time"
)

// ErrNonceSetFull is returned when the replay set holds its capacity of live
// nonces. Refusing is the only exact answer: forgetting a live nonce early
// would let a replay through.
var ErrNonceSetFull = errors.New("auth: replay-protection set is full")

// NonceSet remembers each (token, nonce) pair until its timestamp can no
// longer pass the clock-skew check, and no longer. It is exact (unlike a
// cache, it never drops a live entry) and bounded (Add fails once capacity
// live entries are held). Sharded so concurrent requests rarely contend.
type NonceSet struct {
	capacity int64
	size     atomic.Int64
	seed     maphash.Seed
	shards   [32]nonceShard
}

type nonceShard struct {
	mu      sync.Mutex
	expires map[string]int64 // key -> expiry, Unix nanoseconds
	queue   expiryHeap
}

func NewNonceSet(capacity int) *NonceSet {
	s := &NonceSet{capacity: int64(capacity), seed: maphash.MakeSeed()}
	for i := range s.shards {
		s.shards[i].expires = map[string]int64{}
	}
	return s
}

// Add records key until expires. It returns false when key is already
// recorded and unexpired (a replay).
func (s *NonceSet) Add(key string, expires, now time.Time) (bool, error) {
	sh := &s.shards[maphash.String(s.seed, key)%uint64(len(s.shards))]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	nowNS := now.UnixNano()
	s.size.Add(-int64(sh.expire(nowNS)))
	if exp, ok := sh.expires[key]; ok && exp > nowNS {
		return false, nil
	}
	if s.size.Load() >= s.capacity {
		// Other shards may hold expired entries nobody has swept yet.
		sh.mu.Unlock()
		s.Sweep(now)
		sh.mu.Lock()
		if exp, ok := sh.expires[key]; ok && exp > nowNS {
			return false, nil
		}
		if s.size.Load() >= s.capacity {
			return false, ErrNonceSetFull
		}
	}
	sh.expires[key] = expires.UnixNano()
	sh.queue = append(sh.queue, expiryEntry{key: key, at: expires.UnixNano()})
	heap.Fix(&sh.queue, len(sh.queue)-1) // Push without boxing the entry in an interface
	s.size.Add(1)
	return true, nil
}

// Sweep forgets every expired entry; a job calls it so memory is returned
// even for shards no request touches.
func (s *NonceSet) Sweep(now time.Time) {
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		s.size.Add(-int64(sh.expire(now.UnixNano())))
		sh.mu.Unlock()
	}
}

// Len is the number of live entries held.
func (s *NonceSet) Len() int { return int(s.size.Load()) }

// expire pops entries due by now; it returns how many it removed.
func (sh *nonceShard) expire(now int64) int {
	n := 0
	for sh.queue.Len() > 0 && sh.queue[0].at <= now {
		e := heap.Pop(&sh.queue).(expiryEntry)
		if at, ok := sh.expires[e.key]; ok && at == e.at {
			delete(sh.expires, e.key)
			n++
		}
	}
	return n
}

type expiryEntry struct {
	key string
	at  int64
}

type expiryHeap []expiryEntry

func (h expiryHeap) Len() int           { return len(h) }
func (h expiryHeap) Less(i, j int) bool { return h[i].at < h[j].at }
func (h expiryHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *expiryHeap) Push(x any)        { *h = append(*h, x.(expiryEntry)) }
func (h *expiryHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}
