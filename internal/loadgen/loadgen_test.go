package loadgen

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func TestHistogramQuantilesWithinABucket(t *testing.T) {
	var h Histogram
	rng := rand.New(rand.NewPCG(1, 2))
	var all []time.Duration
	for range 20000 {
		d := time.Duration(rng.ExpFloat64() * float64(3*time.Millisecond))
		all = append(all, d)
		h.Record(d)
	}
	slices.Sort(all)
	for _, q := range []float64{0.5, 0.9, 0.99, 0.999, 1} {
		exact := all[int(q*float64(len(all))+0.999999)-1]
		got := h.Quantile(q)
		if got < exact || float64(got) > float64(exact)*1.008+1 {
			t.Errorf("q%.3f = %v, exact %v", q, got, exact)
		}
	}
	if h.Max() != all[len(all)-1] || h.Min() != all[0] || h.Count() != uint64(len(all)) {
		t.Errorf("max %v min %v n %d", h.Max(), h.Min(), h.Count())
	}
	var m Histogram
	m.Merge(&h)
	m.Merge(&Histogram{})
	if m.Quantile(0.99) != h.Quantile(0.99) || m.Count() != h.Count() {
		t.Error("merge changed the figures")
	}
	for _, v := range []uint64{0, 1, 255, 256, 257, 511, 512, 1 << 40, 1<<63 - 1} {
		if b := bucketOf(v); bucketTop(b) < v || (b > 0 && bucketTop(b-1) >= v) {
			t.Errorf("value %d in bucket %d (top %d)", v, b, bucketTop(b))
		}
	}
}

func TestParseMix(t *testing.T) {
	m, err := ParseMix("top50=2, kline=1,movements=0")
	if err != nil || m[Top50] != 2 || m[Kline] != 1 || m[Movements] != 0 || m.String() != "top50=2,kline=1" {
		t.Fatalf("%v %v", m, err)
	}
	for _, bad := range []string{"", "top50", "top50=x", "bogus=1", "top50=0", "kline=-1"} {
		if _, err := ParseMix(bad); err == nil {
			t.Errorf("ParseMix(%q) accepted", bad)
		}
	}
}
