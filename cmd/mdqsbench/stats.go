package main

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
)

// durations collects the server handler's times from its goroutines. A
// handler records after its response is written, so the client may see
// the answer first: reset waits for the handlers still running.
type durations struct {
	mu       sync.Mutex
	d        []time.Duration
	inflight int
}

func (s *durations) begin() {
	s.mu.Lock()
	s.inflight++
	s.mu.Unlock()
}

func (s *durations) add(d time.Duration) {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.inflight--
	s.mu.Unlock()
}

// reset drops what was recorded so far.
func (s *durations) reset() { s.settled(func() { s.d = s.d[:0] }) }

// sorted is what was recorded, in order.
func (s *durations) sorted() []time.Duration {
	var out []time.Duration
	s.settled(func() { out = slices.Clone(s.d) })
	slices.Sort(out)
	return out
}

// from is what was recorded from the i-th entry on, in order, and how
// many entries there are now.
func (s *durations) from(i int) ([]time.Duration, int) {
	var out []time.Duration
	s.settled(func() { out = slices.Clone(s.d[min(i, len(s.d)):]) })
	slices.Sort(out)
	return out, i + len(out)
}

// settled runs fn, locked, once no handler is running.
func (s *durations) settled(fn func()) {
	for {
		s.mu.Lock()
		if s.inflight == 0 {
			fn()
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
		time.Sleep(time.Millisecond)
	}
}

// percentile is the nearest-rank percentile (p in 0..100) of sorted
// durations: the smallest value at least p % of them do not exceed.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p/100*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// summarize prints the figures docs/performance.md quotes.
func summarize(sorted []time.Duration) string {
	if len(sorted) == 0 {
		return "no samples"
	}
	var sum time.Duration
	for _, d := range sorted {
		sum += d
	}
	return fmt.Sprintf("p50 %s  p90 %s  p99 %s  max %s  mean %s  (%d samples)",
		ms(percentile(sorted, 50)), ms(percentile(sorted, 90)), ms(percentile(sorted, 99)), ms(sorted[len(sorted)-1]),
		ms(sum/time.Duration(len(sorted))), len(sorted))
}

func ms(d time.Duration) string { return fmt.Sprintf("%.3f ms", float64(d)/float64(time.Millisecond)) }

// memory is the process's memory as the Go runtime and the kernel see it.
type memory struct {
	heapInuse, sys uint64
	rss, hwm       string // from /proc/self/status; "" off Linux
}

func readMemory() memory {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m := memory{heapInuse: ms.HeapInuse, sys: ms.Sys}
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return m
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		switch k {
		case "VmRSS":
			m.rss = strings.TrimSpace(v)
		case "VmHWM":
			m.hwm = strings.TrimSpace(v)
		}
	}
	return m
}

func (m memory) String() string {
	s := fmt.Sprintf("Go heap in use %.1f MiB, runtime Sys %.1f MiB", mib(m.heapInuse), mib(m.sys))
	if m.rss != "" {
		s += fmt.Sprintf(", process RSS %s (peak %s)", m.rss, m.hwm)
	}
	return s
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

var countRE = regexp.MustCompile(`"count":(\d+)`)

// rowsOf reads the row count of a K-line answer.
func rowsOf(body []byte) string {
	if m := countRE.FindSubmatch(body); m != nil {
		return string(m[1]) + " rows"
	}
	return "row count not found"
}
