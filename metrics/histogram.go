package metrics

import (
	"math"
	"slices"
	"sync/atomic"
	"time"
)

// LatencyBuckets are upper bounds in seconds for request and upstream call
// latencies: sub-millisecond cache hits up to upstream timeouts.
var LatencyBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}

// Histogram counts observations into fixed buckets. Observe is safe for
// concurrent use and takes no lock.
type Histogram struct {
	bounds []float64
	counts []atomic.Uint64 // per bucket, not cumulative; the last is +Inf
	sum    atomic.Uint64   // float64 bits
	count  atomic.Uint64
}

// NewHistogram takes ascending upper bounds; +Inf is implied.
func NewHistogram(bounds []float64) *Histogram {
	b := slices.Clone(bounds)
	slices.Sort(b)
	return &Histogram{bounds: b, counts: make([]atomic.Uint64, len(b)+1)}
}

func (h *Histogram) Observe(v float64) {
	i, _ := slices.BinarySearch(h.bounds, v) // first bound >= v: "le" is inclusive
	h.counts[i].Add(1)
	for {
		old := h.sum.Load()
		if h.sum.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+v)) {
			break
		}
	}
	h.count.Add(1)
}

// ObserveDuration records d in seconds.
func (h *Histogram) ObserveDuration(d time.Duration) { h.Observe(d.Seconds()) }

// HistogramSnapshot is a histogram at one moment, buckets cumulative as the
// exposition format wants them.
type HistogramSnapshot struct {
	Bounds     []float64
	Cumulative []uint64 // len(Bounds)+1; the last is the +Inf bucket
	Sum        float64
	Count      uint64
}

func (h *Histogram) Snapshot() HistogramSnapshot {
	s := HistogramSnapshot{Bounds: h.bounds, Cumulative: make([]uint64, len(h.counts))}
	var run uint64
	for i := range h.counts {
		run += h.counts[i].Load()
		s.Cumulative[i] = run
	}
	// Count is the +Inf bucket, so the two never disagree within one
	// snapshot even while observations race in.
	s.Count = run
	s.Sum = math.Float64frombits(h.sum.Load())
	return s
}

// Quantile estimates the q-quantile (0..1) by linear interpolation inside
// the bucket that holds it, as Prometheus's histogram_quantile does. It is
// NaN without observations.
func (s HistogramSnapshot) Quantile(q float64) float64 {
	if s.Count == 0 {
		return math.NaN()
	}
	rank := q * float64(s.Count)
	for i, c := range s.Cumulative {
		if float64(c) < rank {
			continue
		}
		if i == len(s.Bounds) {
			return s.Bounds[len(s.Bounds)-1] // beyond the last bound: its value is all we know
		}
		lo, prev := 0.0, uint64(0)
		if i > 0 {
			lo, prev = s.Bounds[i-1], s.Cumulative[i-1]
		}
		inBucket := c - prev
		if inBucket == 0 {
			return s.Bounds[i]
		}
		return lo + (s.Bounds[i]-lo)*(rank-float64(prev))/float64(inBucket)
	}
	return s.Bounds[len(s.Bounds)-1]
}

// Merge adds o's observations to s; both must come from histograms with the
// same bounds (a snapshot of nothing takes o's).
func (s HistogramSnapshot) Merge(o HistogramSnapshot) HistogramSnapshot {
	if len(s.Cumulative) == 0 {
		return o
	}
	if len(o.Cumulative) != len(s.Cumulative) {
		return s
	}
	m := HistogramSnapshot{Bounds: s.Bounds, Cumulative: make([]uint64, len(s.Cumulative)), Sum: s.Sum + o.Sum, Count: s.Count + o.Count}
	for i := range s.Cumulative {
		m.Cumulative[i] = s.Cumulative[i] + o.Cumulative[i]
	}
	return m
}
