// Package loadgen drives an mdqs server with signed requests and measures
// what it answers: the core of cmd/mdqsload and of the load tests in
// package loadtest.
//
// Every request is signed by the reference client (mdqs/internal/client). Workers
// share at most Clients clients (default: one per worker, up to 20), since
// a client holds at most auth.token_max_per_client live tokens and a 21st
// would evict the oldest, failing the worker that holds it.
//
// Closed loop (Rate 0): each worker sends its next request when the last
// one is answered, which measures throughput but hides queueing (a stalled
// server slows the load down with it). Open loop (Rate > 0): requests are
// due at fixed intervals whatever the server does, and a request's latency
// is counted from when it was due, not when a worker got to send it, so a
// stall shows in the percentiles (no coordinated omission).
package loadgen

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"mdqs/internal/client"
)

// Endpoint names of the mix.
const (
	Top50     = "top50"
	Kline     = "kline"
	Movements = "movements"
)

// Endpoints lists the endpoint names in report order.
var Endpoints = []string{Top50, Kline, Movements}

// Mix is the relative weight of each endpoint; a missing one is 0.
type Mix map[string]int

// DefaultMix weighs the three endpoints alike.
func DefaultMix() Mix { return Mix{Top50: 1, Kline: 1, Movements: 1} }

// ParseMix reads "top50=2,kline=1,movements=1".
func ParseMix(s string) (Mix, error) {
	m := Mix{}
	total := 0
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, w, ok := strings.Cut(part, "=")
		if !ok {
			return nil, fmt.Errorf("mix %q: want NAME=WEIGHT", part)
		}
		name = strings.TrimSpace(name)
		if !slices.Contains(Endpoints, name) {
			return nil, fmt.Errorf("mix: unknown endpoint %q (want %s)", name, strings.Join(Endpoints, ", "))
		}
		n, err := strconv.Atoi(strings.TrimSpace(w))
		if err != nil || n < 0 {
			return nil, fmt.Errorf("mix %q: weight must be a whole number ≥ 0", part)
		}
		m[name] = n
		total += n
	}
	if total == 0 {
		return nil, fmt.Errorf("mix %q: no endpoint has a weight", s)
	}
	return m, nil
}

// String is the mix in ParseMix's form.
func (m Mix) String() string {
	var parts []string
	for _, e := range Endpoints {
		if m[e] > 0 {
			parts = append(parts, fmt.Sprintf("%s=%d", e, m[e]))
		}
	}
	return strings.Join(parts, ",")
}

// Config is one load run.
type Config struct {
	Addr        string // host:port or URL of the server
	ID, Secret  string // the API client (default demo / demo-secret)
	APIKey      string
	Duration    time.Duration // how long requests are started (default 10s)
	Concurrency int           // workers (default 4)
	Clients     int           // API clients (tokens) the workers share; 0: min(Concurrency, 20)
	Rate        float64       // 0: closed loop; > 0: open loop at this many requests per second in all
	Mix         Mix           // default DefaultMix
	// Codes are the K-line codes, asked for in turn; empty: the leading
	// stocks of the server's sectors (from /v1/api/market/movements), else
	// a built-in list.
	Codes []string
	// KlineDays is the span of a K-line request, ending today (default 365).
	KlineDays int
	// Timeout bounds one request (default 30s).
	Timeout time.Duration
	// Memory, when set, reads the server's memory (e.g. its RSS); it is
	// sampled before, every SampleEvery (default 1s) during, and after the
	// run.
	Memory      func() (uint64, error)
	SampleEvery time.Duration
	// Now stamps the signatures (default time.Now).
	Now func() time.Time
}

func (c *Config) defaults() error {
	if c.Addr == "" {
		return errors.New("loadgen: no server address")
	}
	if c.ID == "" {
		c.ID, c.Secret = "demo", "demo-secret"
	}
	if c.Duration <= 0 {
		c.Duration = 10 * time.Second
	}
	if c.Concurrency <= 0 {
		c.Concurrency = 4
	}
	if c.Clients <= 0 {
		c.Clients = min(c.Concurrency, 20)
	}
	c.Clients = min(c.Clients, c.Concurrency)
	if c.Rate < 0 {
		return errors.New("loadgen: negative rate")
	}
	if c.Mix == nil {
		c.Mix = DefaultMix()
	}
	total := 0
	for _, e := range Endpoints {
		total += c.Mix[e]
	}
	if total <= 0 {
		return errors.New("loadgen: the mix weighs nothing")
	}
	if c.KlineDays <= 0 {
		c.KlineDays = 365
	}
	if c.Timeout <= 0 {
		c.Timeout = 30 * time.Second
	}
	if c.SampleEvery <= 0 {
		c.SampleEvery = time.Second
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return nil
}

// Stats is one endpoint's figures.
type Stats struct {
	Name     string
	Requests int64 // answered or failed
	Errors   int64 // non-2xx answers and transport failures
	Statuses map[int]int64
	// Transport counts failures without an HTTP answer.
	Transport int64
	Latency   Histogram
	// Samples holds the first few failures, for the report.
	Samples []string
}

func newStats(name string) *Stats { return &Stats{Name: name, Statuses: map[int]int64{}} }

func (s *Stats) merge(o *Stats) {
	s.Requests += o.Requests
	s.Errors += o.Errors
	s.Transport += o.Transport
	for k, v := range o.Statuses {
		s.Statuses[k] += v
	}
	s.Latency.Merge(&o.Latency)
	for _, x := range o.Samples {
		if len(s.Samples) < maxSamples {
			s.Samples = append(s.Samples, x)
		}
	}
}

const maxSamples = 5

// MemorySample is the server's memory at a moment of the run.
type MemorySample struct {
	At    time.Duration // since the run started
	Bytes uint64
}

// Result is a run's figures.
type Result struct {
	Config    Config
	Elapsed   time.Duration // from the first request to the last answer
	Endpoints []*Stats      // in Endpoints order, those in the mix
	Total     *Stats
	// Unsent counts open-loop requests that were due but never sent
	// because the run ended with every worker still busy.
	Unsent int64
	// Memory: before and after the run (0 when unknown) and the samples.
	MemoryBefore, MemoryAfter, MemoryPeak uint64
	Memory                                []MemorySample
	Codes                                 int // K-line codes in rotation
}

// PerSecond is a count over the run's elapsed time.
func (r *Result) PerSecond(n int64) float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(n) / r.Elapsed.Seconds()
}

// Run drives the server for cfg.Duration and returns the figures. It fails
// only when it cannot start (no token, a bad configuration); request
// failures are counted, not returned.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	res := &Result{Config: cfg, Total: newStats("total")}
	sampleMemory := func(at time.Duration) {
		if cfg.Memory == nil {
			return
		}
		if b, err := cfg.Memory(); err == nil {
			res.Memory = append(res.Memory, MemorySample{At: at, Bytes: b})
			res.MemoryPeak = max(res.MemoryPeak, b)
		}
	}
	// Before anything is asked: the token requests below cost an argon2id
	// hash of 19 MiB each, which shows in the RSS for a while.
	sampleMemory(0)
	if len(res.Memory) > 0 {
		res.MemoryBefore = res.Memory[0].Bytes
	}
	clients, closeClients := makeClients(cfg)
	defer closeClients()
	// Every client gets its token before the clock starts.
	var wg sync.WaitGroup
	errs := make([]error, len(clients))
	for i, c := range clients {
		wg.Go(func() {
			_, errs[i] = c.Token(ctx)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("loadgen: token: %w", err)
	}
	codes := cfg.Codes
	if len(codes) == 0 {
		codes = discoverCodes(ctx, clients[0])
	}
	res.Codes = len(codes)
	paths := newPaths(cfg, codes)

	start := time.Now()
	deadline := start.Add(cfg.Duration)
	runCtx, cancel := context.WithDeadline(ctx, deadline.Add(cfg.Timeout))
	defer cancel()

	stopSampler := make(chan struct{})
	samplerDone := make(chan []MemorySample, 1)
	go func() {
		var out []MemorySample
		t := time.NewTicker(cfg.SampleEvery)
		defer t.Stop()
		for {
			select {
			case <-stopSampler:
				samplerDone <- out
				return
			case now := <-t.C:
				if cfg.Memory != nil {
					if b, err := cfg.Memory(); err == nil {
						out = append(out, MemorySample{At: now.Sub(start), Bytes: b})
					}
				}
			}
		}
	}()

	// due carries the open loop's schedule: when each request was due.
	var due chan time.Time
	var unsent atomic.Int64
	if cfg.Rate > 0 {
		due = make(chan time.Time, 1<<16)
		go schedule(runCtx, cfg.Rate, start, deadline, due)
	}
	workers := make([]*worker, cfg.Concurrency)
	for i := range workers {
		w := &worker{
			cfg: cfg, client: clients[i%len(clients)], paths: paths,
			rng:   rand.New(rand.NewPCG(uint64(i)+1, uint64(start.UnixNano()))),
			stats: map[string]*Stats{},
		}
		for _, e := range Endpoints {
			w.stats[e] = newStats(e)
		}
		workers[i] = w
		wg.Go(func() {
			if due == nil {
				w.closedLoop(runCtx, deadline)
			} else {
				w.openLoop(runCtx, due, deadline.Add(cfg.Timeout), &unsent)
			}
		})
	}
	wg.Wait()
	res.Elapsed = time.Since(start)
	close(stopSampler)
	res.Memory = append(res.Memory, <-samplerDone...)
	sampleMemory(res.Elapsed)
	if cfg.Memory != nil && len(res.Memory) > 0 {
		res.MemoryAfter = res.Memory[len(res.Memory)-1].Bytes
		for _, m := range res.Memory {
			res.MemoryPeak = max(res.MemoryPeak, m.Bytes)
		}
	}
	res.Unsent = unsent.Load()

	for _, e := range Endpoints {
		if cfg.Mix[e] <= 0 {
			continue
		}
		s := newStats(e)
		for _, w := range workers {
			s.merge(w.stats[e])
		}
		res.Endpoints = append(res.Endpoints, s)
		res.Total.merge(s)
	}
	return res, nil
}

// makeClients builds the API clients, each with its own connection pool
// sized for the workers that share it.
func makeClients(cfg Config) ([]*client.Client, func()) {
	per := (cfg.Concurrency + cfg.Clients - 1) / cfg.Clients
	var transports []*http.Transport
	out := make([]*client.Client, cfg.Clients)
	for i := range out {
		tr := &http.Transport{
			Proxy:               nil, // loopback: never through a proxy
			DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			MaxIdleConns:        per * 2,
			MaxIdleConnsPerHost: per * 2,
			IdleConnTimeout:     90 * time.Second,
		}
		transports = append(transports, tr)
		c := client.New(cfg.Addr, cfg.ID, cfg.Secret)
		c.APIKey = cfg.APIKey
		c.HTTP = &http.Client{Transport: tr, Timeout: cfg.Timeout}
		c.Now = cfg.Now
		out[i] = c
	}
	return out, func() {
		for _, tr := range transports {
			tr.CloseIdleConnections()
		}
	}
}

// schedule sends the time each open-loop request is due, at rate per
// second from start until deadline. A full channel delays the sending,
// never the due times.
func schedule(ctx context.Context, rate float64, start, deadline time.Time, due chan<- time.Time) {
	defer close(due)
	interval := time.Duration(float64(time.Second) / rate)
	if interval <= 0 {
		interval = 1
	}
	timer := time.NewTimer(0)
	defer timer.Stop()
	for i := int64(0); ; i++ {
		at := start.Add(time.Duration(i) * interval)
		if !at.Before(deadline) {
			return
		}
		if wait := time.Until(at); wait > 0 {
			timer.Reset(wait)
			select {
			case <-ctx.Done():
				return
			case <-timer.C:
			}
		}
		select {
		case due <- at:
		case <-ctx.Done():
			return
		}
	}
}

// paths builds each endpoint's next request path.
type paths struct {
	codes      []string
	start, end string
	next       atomic.Uint64
	kind       atomic.Uint64
}

func newPaths(cfg Config, codes []string) *paths {
	sh, _ := time.LoadLocation("Asia/Shanghai")
	if sh == nil {
		sh = time.FixedZone("CST", 8*3600)
	}
	today := cfg.Now().In(sh)
	return &paths{
		codes: codes,
		start: today.AddDate(0, 0, -cfg.KlineDays).Format(time.DateOnly),
		end:   today.Format(time.DateOnly),
	}
}

func (p *paths) path(endpoint string) string {
	switch endpoint {
	case Top50:
		return "/v1/api/boards/top50"
	case Kline:
		code := p.codes[int(p.next.Add(1)-1)%len(p.codes)]
		return "/v1/api/kline?code=" + url.QueryEscape(code) + "&freq=D&start=" + p.start + "&end=" + p.end + "&indicators=ma5,ma20"
	default:
		if p.kind.Add(1)%2 == 0 {
			return "/v1/api/market/movements?type=concept"
		}
		return "/v1/api/market/movements?type=industry"
	}
}

// fallbackCodes are demo-market stocks, for a server that lists no leaders.
var fallbackCodes = []string{"600519.SH", "000001.SZ", "300750.SZ", "601318.SH", "600036.SH", "000858.SZ", "002594.SZ", "600030.SH"}

// discoverCodes collects the leading stocks of both sector families, so a
// K-line run rotates over codes the server knows.
func discoverCodes(ctx context.Context, c *client.Client) []string {
	seen := map[string]bool{}
	var out []string
	for _, kind := range []string{"industry", "concept"} {
		resp, err := c.Do(ctx, http.MethodGet, "/v1/api/market/movements?type="+kind, nil)
		if err != nil || resp.Status != http.StatusOK {
			continue
		}
		var env struct {
			Data []struct {
				LeaderCode string `json:"leader_code"`
			} `json:"data"`
		}
		if json.Unmarshal(resp.Body, &env) != nil {
			continue
		}
		for _, r := range env.Data {
			if r.LeaderCode != "" && !seen[r.LeaderCode] {
				seen[r.LeaderCode] = true
				out = append(out, r.LeaderCode)
			}
		}
	}
	if len(out) == 0 {
		return slices.Clone(fallbackCodes)
	}
	sort.Strings(out)
	return out
}

type worker struct {
	cfg    Config
	client *client.Client
	paths  *paths
	rng    *rand.Rand
	stats  map[string]*Stats
}

func (w *worker) pick() string {
	total := 0
	for _, e := range Endpoints {
		total += w.cfg.Mix[e]
	}
	n := w.rng.IntN(total)
	for _, e := range Endpoints {
		if n < w.cfg.Mix[e] {
			return e
		}
		n -= w.cfg.Mix[e]
	}
	return Endpoints[0]
}

func (w *worker) closedLoop(ctx context.Context, deadline time.Time) {
	for time.Now().Before(deadline) && ctx.Err() == nil {
		w.one(ctx, time.Now())
	}
}

func (w *worker) openLoop(ctx context.Context, due <-chan time.Time, giveUp time.Time, unsent *atomic.Int64) {
	for at := range due {
		if ctx.Err() != nil || time.Now().After(giveUp) {
			unsent.Add(1)
			continue
		}
		w.one(ctx, at)
	}
}

// one sends one request and records its latency from since.
func (w *worker) one(ctx context.Context, since time.Time) {
	e := w.pick()
	path := w.paths.path(e)
	resp, err := w.client.Do(ctx, http.MethodGet, path, nil)
	lat := time.Since(since)
	if err != nil && ctx.Err() != nil {
		// The run was interrupted (or ran a whole timeout past its end):
		// the request says nothing about the server.
		return
	}
	s := w.stats[e]
	s.Requests++
	s.Latency.Record(lat)
	switch {
	case err != nil:
		s.Errors++
		s.Transport++
		w.sample(s, fmt.Sprintf("GET %s: %v", path, err))
	case resp.Status < 200 || resp.Status > 299:
		s.Errors++
		s.Statuses[resp.Status]++
		w.sample(s, fmt.Sprintf("GET %s: HTTP %d: %.200s", path, resp.Status, resp.Body))
	default:
		s.Statuses[resp.Status]++
	}
}

func (w *worker) sample(s *Stats, text string) {
	if len(s.Samples) < maxSamples {
		s.Samples = append(s.Samples, text)
	}
}

// Print writes the figures as a table.
func (r *Result) Print(out io.Writer) {
	mode := "closed loop"
	if r.Config.Rate > 0 {
		mode = fmt.Sprintf("open loop at %.0f req/s", r.Config.Rate)
	}
	fmt.Fprintf(out, "mdqsload: %s, %d workers, %d clients, mix %s, %s elapsed, %d kline codes\n",
		mode, r.Config.Concurrency, r.Config.Clients, r.Config.Mix, r.Elapsed.Round(time.Millisecond), r.Codes)
	fmt.Fprintf(out, "%-10s %9s %7s %9s %9s %9s %9s %9s\n", "endpoint", "requests", "errors", "req/s", "p50", "p90", "p99", "max")
	row := func(s *Stats) {
		fmt.Fprintf(out, "%-10s %9d %7d %9.1f %9s %9s %9s %9s\n", s.Name, s.Requests, s.Errors, r.PerSecond(s.Requests),
			ms(s.Latency.Quantile(0.50)), ms(s.Latency.Quantile(0.90)), ms(s.Latency.Quantile(0.99)), ms(s.Latency.Max()))
	}
	for _, s := range r.Endpoints {
		row(s)
	}
	row(r.Total)
	if r.Unsent > 0 {
		fmt.Fprintf(out, "unsent: %d requests were due but every worker was busy until the end\n", r.Unsent)
	}
	if r.MemoryBefore > 0 || r.MemoryAfter > 0 {
		fmt.Fprintf(out, "server RSS: before %s, after %s, peak %s\n", mib(r.MemoryBefore), mib(r.MemoryAfter), mib(r.MemoryPeak))
	}
	if r.Total.Statuses[http.StatusTooManyRequests] > 0 {
		fmt.Fprintf(out, "429s: the server's per-client rate limit (limits.client_rate) is below this load; lift it for the load client in its config.toml:\n"+
			"  [limits.clients]\n  %s = { rate = 0.0, burst = 1 }\n", r.Config.ID)
	}
	for _, s := range r.Endpoints {
		for _, x := range s.Samples {
			fmt.Fprintf(out, "  %s error: %s\n", s.Name, x)
		}
	}
}

func ms(d time.Duration) string {
	switch {
	case d < 10*time.Millisecond:
		return fmt.Sprintf("%.2fms", float64(d)/1e6)
	case d < time.Second:
		return fmt.Sprintf("%.1fms", float64(d)/1e6)
	}
	return fmt.Sprintf("%.2fs", d.Seconds())
}

func mib(b uint64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
