package api

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"mdqs/internal/stream"
)

// BenchmarkStream1000 holds 1,000 open streams (real HTTP on loopback, a
// connection each) and fans an event out to all of them every 100 ms, b.N
// times: the memory each open stream costs and the delay from Publish to
// the client's read of the event.
//
//	go test ./api -run '^$' -bench Stream1000 -benchtime 50x
//
// The memory is the heap and stack growth of the whole process, the
// clients' ends (a goroutine, a connection and a 4 KiB reader each)
// included: an upper bound of the server's share.
func BenchmarkStream1000(b *testing.B) {
	const streams = 1000
	h := newHarness(b, withStream(stream.Config{MaxPerClient: streams}))
	h.addClient("c", "secret-c", clientOpts{scopes: "market"})
	tok := h.token("c", "secret-c")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tr := &http.Transport{MaxIdleConnsPerHost: -1}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}

	before := memInUse()
	var (
		mu     sync.Mutex
		delays []time.Duration
		got    sync.WaitGroup // one per stream and event
		opened sync.WaitGroup
		sem    = make(chan struct{}, 50)
	)
	got.Add(streams * b.N)
	opened.Add(streams)
	for range streams {
		sem <- struct{}{}
		go func() {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, h.srv.URL+"/v1/api/stream?topics=ranking", nil)
			req.Header = h.signedHeader(tok, nil)
			res, err := hc.Do(req)
			<-sem
			if err != nil || res.StatusCode != http.StatusOK {
				b.Errorf("open: %v %v", err, res)
				opened.Done()
				return
			}
			defer res.Body.Close()
			br := bufio.NewReaderSize(res.Body, 4096)
			mine := make([]time.Duration, 0, b.N)
			first := true
			for len(mine) < b.N {
				line, err := br.ReadSlice('\n')
				if err != nil {
					b.Errorf("read: %v", err)
					return
				}
				if first && bytes.HasPrefix(line, []byte("event: open")) {
					first = false
					opened.Done()
				}
				if rest, ok := bytes.CutPrefix(line, []byte(`data: {"t":`)); ok {
					sent, _ := strconv.ParseInt(string(bytes.TrimRight(rest, "}\n")), 10, 64)
					mine = append(mine, time.Since(time.Unix(0, sent)))
					got.Done()
				}
			}
			mu.Lock()
			delays = append(delays, mine...)
			mu.Unlock()
		}()
	}
	opened.Wait()
	if n := h.api.Stream.Subscribers(); n != streams {
		b.Fatalf("%d streams open, want %d", n, streams)
	}
	perStream := float64(memInUse()-before) / streams

	b.ResetTimer()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for range b.N {
		<-tick.C
		h.api.Stream.Publish(stream.Event{Topic: stream.Ranking,
			Data: []byte(`{"t":` + strconv.FormatInt(time.Now().UnixNano(), 10) + `}`)})
	}
	got.Wait()
	b.StopTimer()

	slices.Sort(delays)
	pct := func(p float64) time.Duration { return delays[min(len(delays)-1, int(p*float64(len(delays))))] }
	b.ReportMetric(perStream, "B/stream")
	b.ReportMetric(float64(pct(0.50).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(pct(0.99).Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(delays[len(delays)-1].Microseconds())/1000, "max-ms")
	b.Logf("%d streams, %d fan-outs: %.1f KiB per open stream (both ends); delivery p50 %v, p99 %v, max %v",
		streams, b.N, perStream/1024, pct(0.50), pct(0.99), delays[len(delays)-1])
	cancel()
}

// memInUse is the heap and goroutine stacks in use after a collection.
func memInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse + m.StackInuse
}
