package metrics

import (
	"bytes"
	"math"
	"strings"
	"sync"
	"testing"
)

// "le" is inclusive: a value equal to a bound lands in that bound's bucket.
func TestHistogramBucketsAreInclusiveAndCumulative(t *testing.T) {
	h := NewHistogram([]float64{1, 2, 5})
	for _, v := range []float64{0.5, 1, 1.5, 2, 4.9, 5, 7, 100} {
		h.Observe(v)
	}
	s := h.Snapshot()
	want := []uint64{2, 4, 6, 8}
	for i := range want {
		if s.Cumulative[i] != want[i] {
			t.Fatalf("cumulative = %v, want %v", s.Cumulative, want)
		}
	}
	if s.Count != 8 || s.Sum != 0.5+1+1.5+2+4.9+5+7+100 {
		t.Errorf("count %d sum %v", s.Count, s.Sum)
	}
}

// Observe takes no lock; the sum must still add up under contention (run
// with -race).
func TestHistogramConcurrentObserve(t *testing.T) {
	h := NewHistogram(LatencyBuckets)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 1000 {
				h.Observe(float64(g) * 0.001)
			}
		}()
	}
	wg.Wait()
	s := h.Snapshot()
	if s.Count != 8000 || math.Abs(s.Sum-28) > 1e-9 {
		t.Errorf("count %d sum %v, want 8000 and 28", s.Count, s.Sum)
	}
}

func TestQuantileInterpolatesInsideTheBucket(t *testing.T) {
	h := NewHistogram([]float64{1, 2, 4})
	for range 50 {
		h.Observe(0.5)
	}
	for range 50 {
		h.Observe(3)
	}
	s := h.Snapshot()
	for _, tc := range []struct{ q, want float64 }{
		{0.5, 1},    // rank 50 is the top of the first bucket
		{0.75, 3},   // rank 75: half-way through the (2,4] bucket
		{0.25, 0.5}, // rank 25: half-way through (0,1]
		{1, 4},
	} {
		if got := s.Quantile(tc.q); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("q%.2f = %v, want %v", tc.q, got, tc.want)
		}
	}
	if !math.IsNaN(NewHistogram([]float64{1}).Snapshot().Quantile(0.5)) {
		t.Error("quantile of nothing is not NaN")
	}
	over := NewHistogram([]float64{1})
	over.Observe(9)
	if got := over.Snapshot().Quantile(0.99); got != 1 {
		t.Errorf("quantile beyond the last bound = %v, want that bound", got)
	}
}

func TestWriterFormat(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b)
	w.Family("mdqs_requests_total", Counter, "Requests.\nBy route.")
	w.Sample("mdqs_requests_total", Labels{"route": `/v1/"x"\y`, "code": "200"}, 3)
	w.Sample("mdqs_requests_total", nil, math.Inf(1))
	w.Family("mdqs_latency_seconds", HistogramT, "Latency.")
	h := NewHistogram([]float64{0.1, 1})
	h.Observe(0.05)
	h.Observe(2)
	w.Histogram("mdqs_latency_seconds", Labels{"route": "r"}, h.Snapshot())
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		`# HELP mdqs_requests_total Requests.\nBy route.`,
		`# TYPE mdqs_requests_total counter`,
		`mdqs_requests_total{code="200",route="/v1/\"x\"\\y"} 3`,
		`mdqs_requests_total +Inf`,
		`# HELP mdqs_latency_seconds Latency.`,
		`# TYPE mdqs_latency_seconds histogram`,
		`mdqs_latency_seconds_bucket{route="r",le="0.1"} 1`,
		`mdqs_latency_seconds_bucket{route="r",le="1"} 1`,
		`mdqs_latency_seconds_bucket{route="r",le="+Inf"} 2`,
		`mdqs_latency_seconds_sum{route="r"} 2.05`,
		`mdqs_latency_seconds_count{route="r"} 2`,
	}, "\n") + "\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestSnapshotMerge(t *testing.T) {
	a, b := NewHistogram([]float64{1, 2}), NewHistogram([]float64{1, 2})
	a.Observe(0.5)
	b.Observe(1.5)
	b.Observe(3)
	m := a.Snapshot().Merge(b.Snapshot())
	if m.Count != 3 || m.Sum != 5 || m.Cumulative[0] != 1 || m.Cumulative[1] != 2 || m.Cumulative[2] != 3 {
		t.Errorf("merged %+v", m)
	}
	if e := (HistogramSnapshot{}).Merge(b.Snapshot()); e.Count != 2 {
		t.Errorf("empty merged with b: %+v", e)
	}
}
