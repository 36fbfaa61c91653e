//go:build load

package loadtest

import (
	"context"
	"flag"
	"fmt"
	"testing"
	"time"

	"mdqs/internal/loadgen"
)

var (
	loadDuration = flag.Duration("load.duration", 60*time.Second, "how long the sustained load runs")
	loadConc     = flag.Int("load.c", 8, "workers")
	loadClients  = flag.Int("load.clients", 0, "API clients the workers share (0: min(c, 20))")
	loadRate     = flag.Float64("load.rate", 0, "0: closed loop; > 0: open loop at this many requests/s")
	loadMix      = flag.String("load.mix", "top50=1,kline=1,movements=1", "endpoint weights")
	loadStocks   = flag.Int("load.stocks", realSize.stocks, "stocks in the demo market")
	loadMaxRSS   = flag.Float64("load.maxrss", 1.5, "GiB the server's RSS may reach")
)

// TestSustainedLoad drives a real-size demo server for -load.duration:
// no error answer, RSS within -load.maxrss, and RSS not growing through
// the second half of the run.
func TestSustainedLoad(t *testing.T) {
	m := realSize
	if *loadStocks != m.stocks {
		m = market{stocks: *loadStocks, industries: max(10, *loadStocks*90/5300), concepts: max(20, *loadStocks*450/5300), historyDays: m.historyDays}
	}
	start := time.Now()
	p := startDemo(t, m)
	t.Logf("server ready in %v (start-up jobs done), RSS %s", time.Since(start).Round(time.Millisecond), rssText(p))
	mix, err := loadgen.ParseMix(*loadMix)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *loadDuration+5*time.Minute)
	defer cancel()
	res, err := loadgen.Run(ctx, loadgen.Config{Addr: p.Addr, Duration: *loadDuration, Concurrency: *loadConc,
		Clients: *loadClients, Rate: *loadRate, Mix: mix, Memory: p.RSS})
	if err != nil {
		t.Fatalf("%v\n%s", err, p.Logs())
	}
	report(t, res)
	limit := uint64(*loadMaxRSS * (1 << 30))
	if res.MemoryPeak > limit {
		t.Errorf("server RSS peaked at %.1f MiB, over the %.2f GiB bound", float64(res.MemoryPeak)/(1<<20), *loadMaxRSS)
	}
	if err := notGrowing(res.Memory, res.Elapsed); err != nil {
		t.Error(err)
	}
	if t.Failed() {
		t.Logf("server log:\n%s", p.Logs())
	}
}

// notGrowing compares the peak RSS of the last quarter of the run with the
// peak of the quarter before it: a leak keeps raising the peak, while a
// settled heap (the GC returns memory in steps) stays within 10 % + 32 MiB.
func notGrowing(samples []loadgen.MemorySample, elapsed time.Duration) error {
	var third, fourth uint64
	for _, s := range samples {
		switch {
		case s.At >= elapsed*3/4:
			fourth = max(fourth, s.Bytes)
		case s.At >= elapsed/2:
			third = max(third, s.Bytes)
		}
	}
	if third == 0 || fourth == 0 {
		return fmt.Errorf("too few memory samples (%d) to judge growth", len(samples))
	}
	if float64(fourth) > float64(third)*1.10+32*(1<<20) {
		return fmt.Errorf("server RSS still growing in the second half: peak %.1f MiB in the third quarter, %.1f MiB in the last",
			float64(third)/(1<<20), float64(fourth)/(1<<20))
	}
	return nil
}

func rssText(p *loadgen.Process) string {
	b, err := p.RSS()
	if err != nil {
		return "unknown"
	}
	return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
}
