package demo

// lru is a small least-recently-used map. Its capacities are a handful of
// entries, so a slice keeps the order. Callers hold their own lock.
type lru[K comparable, V any] struct {
	cap  int
	keys []K
	vals map[K]V
}

func newLRU[K comparable, V any](capacity int) *lru[K, V] {
	return &lru[K, V]{cap: capacity, vals: make(map[K]V, capacity+1)}
}

func (c *lru[K, V]) get(k K) (V, bool) {
	v, ok := c.vals[k]
	if ok {
		c.touch(k)
	}
	return v, ok
}

func (c *lru[K, V]) put(k K, v V) {
	if _, ok := c.vals[k]; ok {
		c.vals[k] = v
		c.touch(k)
		return
	}
	c.vals[k] = v
	c.keys = append(c.keys, k)
	if len(c.keys) > c.cap {
		delete(c.vals, c.keys[0])
		c.keys = append(c.keys[:0], c.keys[1:]...)
	}
}

func (c *lru[K, V]) touch(k K) {
	for i, x := range c.keys {
		if x == k {
			copy(c.keys[i:], c.keys[i+1:])
			c.keys[len(c.keys)-1] = k
			return
		}
	}
}
