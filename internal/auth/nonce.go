package auth

import (
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
// longer pass the clock-skew check, and no longer. It never drops a live
// entry (unlike a cache) and is bounded (Add fails once capacity live
// entries are held). Sharded so concurrent requests rarely contend.
//
// A pair is held as two 64-bit hashes under independent random seeds, not
// as its string: the set then holds no pointers, so the collector never
// walks it (a busy minute holds hundreds of thousands of nonces, and
// marking them was most of what a signed request cost a small answer, issue
// 19). Two different pairs sharing 128 bits of hash can only make the later
// one be refused as a replay, never let a replay through, and with seeds no
// caller sees the chance is about n²/2¹²⁹.
type NonceSet struct {
	capacity int64
	size     atomic.Int64
	seeds    [2]maphash.Seed
	shards   [32]nonceShard
}

type nonceKey struct{ a, b uint64 }

// nonceShard keeps its entries in a map for the replay check and, for
// forgetting them, in buckets by the whole second they expire in: a
// request's expiry is its timestamp plus the skew, so a shard holds a few
// hundred distinct seconds at most, and appending to a bucket is all an Add
// costs, where a heap of every entry cost a sift of a dozen levels each way
// (half of Add with a busy minute held, issue 19).
type nonceShard struct {
	mu      sync.Mutex
	expires map[nonceKey]int64 // key -> expiry, Unix nanoseconds
	buckets map[int64][]expiryEntry
	seconds secondHeap // the buckets' seconds, soonest first
	spare   [][]expiryEntry
	_       [64]byte // keeps neighbouring shards' locks off one cache line
}

func NewNonceSet(capacity int) *NonceSet {
	s := &NonceSet{capacity: int64(capacity), seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}}
	for i := range s.shards {
		s.shards[i].expires = map[nonceKey]int64{}
		s.shards[i].buckets = map[int64][]expiryEntry{}
	}
	return s
}

// Add records key until expires. It returns false when key is already
// recorded and unexpired (a replay).
func (s *NonceSet) Add(key string, expires, now time.Time) (bool, error) {
	k := nonceKey{maphash.String(s.seeds[0], key), maphash.String(s.seeds[1], key)}
	sh := &s.shards[k.a%uint64(len(s.shards))]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	nowNS := now.UnixNano()
	s.size.Add(-int64(sh.expire(nowNS)))
	if exp, ok := sh.expires[k]; ok && exp > nowNS {
		return false, nil
	}
	if s.size.Load() >= s.capacity {
		// Other shards may hold expired entries nobody has swept yet.
		sh.mu.Unlock()
		s.Sweep(now)
		sh.mu.Lock()
		if exp, ok := sh.expires[k]; ok && exp > nowNS {
			return false, nil
		}
		if s.size.Load() >= s.capacity {
			return false, ErrNonceSetFull
		}
	}
	at := expires.UnixNano()
	if _, held := sh.expires[k]; !held {
		s.size.Add(1) // an expired entry not yet forgotten is reused, not counted twice
	}
	sh.expires[k] = at
	sh.schedule(expiryEntry{key: k, at: at})
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

// schedule files e under the first whole second at or after its expiry.
func (sh *nonceShard) schedule(e expiryEntry) {
	sec := (e.at + 1e9 - 1) / 1e9
	b, ok := sh.buckets[sec]
	if !ok {
		sh.seconds.push(sec)
		if n := len(sh.spare); n > 0 {
			b, sh.spare = sh.spare[n-1], sh.spare[:n-1]
		}
	}
	sh.buckets[sec] = append(b, e)
}

// expire forgets the entries of every second that has ended by now; it
// returns how many it removed. An entry re-added since (an expired nonce
// used again) carries a later expiry and stays.
func (sh *nonceShard) expire(now int64) int {
	n := 0
	for len(sh.seconds) > 0 && sh.seconds[0]*1e9 <= now {
		sec := sh.seconds.pop()
		b := sh.buckets[sec]
		delete(sh.buckets, sec)
		for _, e := range b {
			if at, ok := sh.expires[e.key]; ok && at == e.at {
				delete(sh.expires, e.key)
				n++
			}
		}
		if cap(b) <= 4096 && len(sh.spare) < 8 {
			sh.spare = append(sh.spare, b[:0])
		}
	}
	return n
}

type expiryEntry struct {
	key nonceKey
	at  int64
}

// secondHeap is a min-heap of seconds, written out rather than driven
// through container/heap, whose Pop boxes each value in an interface.
type secondHeap []int64

func (h *secondHeap) push(v int64) {
	q := append(*h, v)
	for i := len(q) - 1; i > 0; {
		p := (i - 1) / 2
		if q[p] <= q[i] {
			break
		}
		q[p], q[i] = q[i], q[p]
		i = p
	}
	*h = q
}

func (h *secondHeap) pop() int64 {
	q := *h
	top, last := q[0], len(q)-1
	q[0] = q[last]
	q = q[:last]
	for i := 0; ; {
		l, small := 2*i+1, i
		if l < len(q) && q[l] < q[small] {
			small = l
		}
		if r := l + 1; r < len(q) && q[r] < q[small] {
			small = r
		}
		if small == i {
			break
		}
		q[i], q[small] = q[small], q[i]
		i = small
	}
	*h = q
	return top
}
