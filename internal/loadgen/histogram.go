package loadgen

import (
	"math/bits"
	"time"
)

// Histogram counts durations in log-linear buckets: exact below 256 ns,
// then 128 buckets per power of two (a bucket is under 0.8 % wide), so any
// percentile it reports is within 0.8 % of the true sample, whatever the
// range, in a fixed 58 KiB. It is not safe for concurrent use: each worker
// keeps its own and they are merged at the end.
type Histogram struct {
	counts [histBuckets]uint64
	n      uint64
	sum    time.Duration
	min    time.Duration
	max    time.Duration
}

const (
	histLinear  = 256 // values below are their own bucket
	histSub     = 128 // buckets per power of two above
	histBuckets = histLinear + 56*histSub
)

func bucketOf(v uint64) int {
	if v < histLinear {
		return int(v)
	}
	e := bits.Len64(v) - 8 // v>>e is in [128, 256)
	return histLinear + (e-1)*histSub + int(v>>e) - histSub
}

// bucketTop is the largest value a bucket holds.
func bucketTop(i int) uint64 {
	if i < histLinear {
		return uint64(i)
	}
	e := (i-histLinear)/histSub + 1
	m := uint64((i-histLinear)%histSub + histSub)
	return (m+1)<<e - 1
}

// Record adds one duration (negative counts as zero).
func (h *Histogram) Record(d time.Duration) {
	if d < 0 {
		d = 0
	}
	h.counts[bucketOf(uint64(d))]++
	if h.n == 0 || d < h.min {
		h.min = d
	}
	if d > h.max {
		h.max = d
	}
	h.n++
	h.sum += d
}

// Merge adds o's samples.
func (h *Histogram) Merge(o *Histogram) {
	if o.n == 0 {
		return
	}
	for i, c := range o.counts {
		h.counts[i] += c
	}
	if h.n == 0 || o.min < h.min {
		h.min = o.min
	}
	h.max = max(h.max, o.max)
	h.n += o.n
	h.sum += o.sum
}

// Count is the number of samples.
func (h *Histogram) Count() uint64 { return h.n }

// Max is the largest sample, exact.
func (h *Histogram) Max() time.Duration { return h.max }

// Min is the smallest sample, exact.
func (h *Histogram) Min() time.Duration { return h.min }

// Mean is the average sample.
func (h *Histogram) Mean() time.Duration {
	if h.n == 0 {
		return 0
	}
	return h.sum / time.Duration(h.n)
}

// Quantile is the q-quantile (0 < q ≤ 1): the top of the bucket holding
// the ceil(q·n)-th smallest sample, never above the exact maximum.
func (h *Histogram) Quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := uint64(q*float64(h.n) + 0.999999)
	rank = min(max(rank, 1), h.n)
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			return min(time.Duration(bucketTop(i)), h.max)
		}
	}
	return h.max
}
