package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"mdqs/api"
	"mdqs/cache"
	"mdqs/db"
	"mdqs/internal/auth"
	"mdqs/internal/client"
	"mdqs/internal/config"
	"mdqs/internal/kline"
	"mdqs/internal/market"
	"mdqs/internal/sources"
)

const klineAbout = `Starts the server in-process on 127.0.0.1 over a database made by gen,
wired as serve wires it (store, auth with signatures required, the demo
client, K-line service and pager on the demo configuration, the real
router and middleware, the shipped rate limits with the benchmark's client
lifted; the background jobs do not run), and sends -n signed
GET /v1/api/kline requests for one stock from -c concurrent loops using
mdqs/client (a fresh nonce and signature each): -freq D one year of daily
bars ending on the stock's last covered day with indicators=ma5,ma20, 1m
that last day's 1-minute bars, 5m the month up to it in 5-minute bars
(gen stores no 5m bars: the warm-up fetches them from the demo source and
stores them). No measured request fetches (checked: the demo source must
see no call after the warm-up).

The floor, measured in the same run: the same rows (the answer's own
range) read with one prepared SELECT over database/sql on its own
connection pool, scanned into plain variables: what the store's read costs
before mdqs does anything. The server and the floor alternate in -rounds
rounds, so a busy neighbour slows both alike; the ratio is the handler's
p50 over the floor's.

Prints the latency the client sees (signing and loopback HTTP included)
as p50/p90/p99/max, the time inside the server's handler, the floor,
requests/s, and memory: Go heap in use and runtime Sys after the run, and
the process's RSS and peak RSS (VmRSS/VmHWM) from /proc/self/status, which
include the load loop since both run in one process.`

func klineBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("kline", klineAbout, stderr)
	path := fs.String("db", "", "database file or postgres:// URL made by gen (required)")
	n := fs.Int("n", 2000, "requests measured")
	conc := fs.Int("c", 1, "concurrent request loops")
	warm := fs.Int("warmup", 200, "requests sent before measuring")
	rounds := fs.Int("rounds", 10, "alternating rounds of server requests and floor queries")
	codeArg := fs.String("code", "600519.SH", "the stock asked for")
	freqArg := fs.String("freq", "D", "D (a year, ma5,ma20), 1m (a day) or 5m (a month)")
	rotate := fs.Bool("rotate", false, "ask for a different stock each request (every stock of the stocks table in turn)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the measured rounds to this file")
	if err := parse(fs, args); err != nil {
		return err
	}
	switch {
	case *path == "":
		return usageError{"kline: -db is required (make one with mdqsbench gen)"}
	case *n < 1 || *conc < 1 || *warm < 0 || *rounds < 1:
		return usageError{"kline: -n, -c and -rounds must be positive, -warmup not negative"}
	}
	code, err := market.ParseCode(*codeArg)
	if err != nil {
		return usageError{"kline: -code: " + err.Error()}
	}
	freq, err := market.ParseFreq(*freqArg)
	if err != nil {
		return usageError{"kline: -freq: " + err.Error()}
	}
	srv, err := startServer(ctx, *path)
	if err != nil {
		return err
	}
	defer srv.close()

	covFreq := freq
	if freq == market.Min5 {
		covFreq = market.Daily // the month's days exist; their 5m bars come with the warm-up
	}
	cov, _, ok, err := srv.store.Coverage(ctx, code, covFreq)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%s holds no %s bars of %v: run mdqsbench gen first", db.Redact(*path), covFreq, code)
	}
	end := cov.Last
	var start market.Day
	indicators := ""
	switch freq {
	case market.Daily:
		start = market.NewDay(end.Year()-1, end.Month(), end.Dom()).AddDays(1)
		indicators = "ma5,ma20"
	case market.Min1:
		start = end
	default:
		start = market.NewDay(end.Year(), end.Month()-1, end.Dom()).AddDays(1)
	}
	if start < cov.First {
		return fmt.Errorf("%s covers %v..%v of %v: less than the range asked (%v..%v)", db.Redact(*path), cov.First, cov.Last, code, start, end)
	}
	codes := []market.Code{code}
	if *rotate {
		if codes, err = storedCodes(ctx, srv.store); err != nil {
			return err
		}
	}
	paths := make([]string, len(codes))
	for i, c := range codes {
		q := url.Values{"code": {c.String()}, "freq": {string(freq)}, "start": {start.String()}, "end": {end.String()}}
		if indicators != "" {
			q.Set("indicators", indicators)
		}
		paths[i] = "/v1/api/kline?" + q.Encode()
	}

	cl := client.New(srv.addr, auth.DemoClientID, auth.DemoSecret)
	cl.HTTP = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: *conc + 1}}
	if _, err := cl.Token(ctx); err != nil {
		return err
	}
	first, err := cl.Do(ctx, http.MethodGet, paths[0], nil)
	if err != nil {
		return err
	}
	if first.Status != http.StatusOK {
		return fmt.Errorf("GET %s: HTTP %d: %s", paths[0], first.Status, bytes.TrimSpace(first.Body))
	}
	serverLoad := func(count int) ([]time.Duration, error) {
		return load(ctx, count, *conc, func(i int) error {
			resp, err := cl.Do(ctx, http.MethodGet, paths[i%len(paths)], nil)
			if err == nil && (resp.Status != http.StatusOK || !bytes.HasPrefix(resp.Body, []byte(`{"code":1,`))) {
				err = fmt.Errorf("HTTP %d: %.200s", resp.Status, resp.Body)
			}
			return err
		})
	}
	if *rotate {
		// every stock's first request may fetch its warm-up: not measured
		if _, err := serverLoad(len(paths)); err != nil {
			return err
		}
	}
	if _, err := serverLoad(*warm); err != nil {
		return err
	}
	fl, err := openFloor(ctx, *path)
	if err != nil {
		return err
	}
	defer fl.close()
	from, to := start.Start().Unix(), end.At(23, 59, 59).Unix()
	floorRows := 0
	floorLoad := func(count int) ([]time.Duration, error) {
		return load(ctx, count, *conc, func(i int) error {
			rows, err := fl.read(ctx, codes[i%len(codes)], freq, from, to)
			floorRows = rows
			return err
		})
	}
	if _, err := floorLoad(*warm); err != nil {
		return err
	}
	calls := srv.src.Demo.Status().Calls
	srv.handlerTimes.reset() // waits for the warm-up's last handler to record
	runtime.GC()
	before := readMemory()

	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	var lat, floor []time.Duration
	var wall time.Duration
	// Each round's own ratio as well: the machine's speed moves between
	// rounds (a neighbour on the other core comes and goes), and a ratio
	// of the whole run's medians shifts with which rounds were slow.
	var roundRatios []float64
	seen := 0
	per := max(*n / *rounds, 1)
	for r := range *rounds {
		count := per
		if r == *rounds-1 {
			count = *n - per*(*rounds-1)
		}
		// Which goes first swaps every round: the second may find the
		// first's garbage to collect, or the other core's neighbour gone.
		var l, f []time.Duration
		server := func() error {
			t0 := time.Now()
			var err error
			l, err = serverLoad(count)
			wall += time.Since(t0)
			return err
		}
		floorTurn := func() (err error) { f, err = floorLoad(count); return err }
		first, second := server, floorTurn
		if r%2 == 1 {
			first, second = floorTurn, server
		}
		if err := first(); err != nil {
			return err
		}
		if err := second(); err != nil {
			return err
		}
		lat, floor = append(lat, l...), append(floor, f...)
		var h []time.Duration
		h, seen = srv.handlerTimes.from(seen)
		slices.Sort(f)
		roundRatios = append(roundRatios, float64(percentile(h, 50))/float64(max(percentile(f, 50), 1)))
	}
	slices.Sort(lat)
	slices.Sort(floor)
	after := readMemory()
	handler := srv.handlerTimes.sorted()
	calls = srv.src.Demo.Status().Calls - calls

	fmt.Fprintf(stdout, "GET %s\n", paths[0])
	if *rotate {
		fmt.Fprintf(stdout, "  (rotating over %d stocks)\n", len(codes))
	}
	fmt.Fprintf(stdout, "response: %d bytes (%s); the floor reads %d rows\n", len(first.Body), rowsOf(first.Body), floorRows)
	fmt.Fprintf(stdout, "requests: %d after %d warm-up, %d concurrent, %d rounds, %.2f s in the server's turns, %.0f req/s\n",
		*n, *warm, *conc, *rounds, wall.Seconds(), float64(*n)/wall.Seconds())
	fmt.Fprintf(stdout, "latency (client, signed, over loopback HTTP): %s\n", summarize(lat))
	fmt.Fprintf(stdout, "inside the server's handler:                  %s\n", summarize(handler))
	fmt.Fprintf(stdout, "floor (prepared SELECT of the same rows):     %s\n", summarize(floor))
	fmt.Fprintf(stdout, "handler p50 / floor p50: %.2fx\n", float64(percentile(handler, 50))/float64(max(percentile(floor, 50), 1)))
	slices.Sort(roundRatios)
	fmt.Fprintf(stdout, "per round, handler p50 / floor p50: median %.2fx (rounds from %.2fx to %.2fx)\n",
		roundRatios[len(roundRatios)/2], roundRatios[0], roundRatios[len(roundRatios)-1])
	fmt.Fprintf(stdout, "memory before the run: %s\n", before)
	fmt.Fprintf(stdout, "memory after the run:  %s\n", after)
	if calls > 0 {
		fmt.Fprintf(stdout, "WARNING: the demo source was called %d times: the store did not cover every request\n", calls)
	} else {
		fmt.Fprintln(stdout, "source calls during the run: 0 (every bar came from the store)")
	}
	return nil
}

// benchServer is the server of the kline benchmark, in this process.
type benchServer struct {
	addr         string
	store        *db.Store
	src          *sources.Set
	handlerTimes *durations
	close        func()
}

// startServer wires the parts of serve that GET /v1/api/kline uses, on
// the shipped configuration's demo mode with the database given.
func startServer(ctx context.Context, path string) (*benchServer, error) {
	cfg := config.Default()
	cfg.Server.DB = path
	cfg.Sources.Default = "demo"
	cfg.Demo.Enabled = true
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	clock := market.SystemClock{}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	var cleanup []func()
	closeAll := func() {
		for i := len(cleanup) - 1; i >= 0; i-- {
			cleanup[i]()
		}
	}
	fail := func(err error) (*benchServer, error) {
		closeAll()
		return nil, err
	}
	store, err := openStore(ctx, path, db.Options{Readers: cfg.Server.DBReaders})
	if err != nil {
		return nil, err
	}
	cleanup = append(cleanup, func() { store.Close() })
	authSvc, err := auth.New(store, clock, auth.FromConfig(cfg.Auth))
	if err != nil {
		return fail(err)
	}
	cleanup = append(cleanup, func() { authSvc.Close() })
	if _, err := auth.EnsureDemoClient(ctx, store, clock.Now(), auth.DefaultKDF); err != nil {
		return fail(err)
	}
	cal := market.DefaultCalendar()
	src, err := sources.New(cfg, cal, clock)
	if err != nil {
		return fail(err)
	}
	svc, err := kline.FromConfig(cfg, store, src, cal, clock, log, nil)
	if err != nil {
		return fail(err)
	}
	pager, err := kline.NewPager(svc, cfg.Kline.Refresh.Duration, nil)
	if err != nil {
		return fail(err)
	}
	cleanup = append(cleanup, pager.Close)
	a := api.New(api.Deps{
		Auth: authSvc, Store: store, Klines: svc, Pager: pager, Calendar: cal, Log: log, Clock: clock,
		MaxBodyBytes: cfg.Server.MaxBodyBytes, Version: "mdqsbench", UpstreamWait: cfg.Server.UpstreamWait.Duration,
		CacheStats: []func() cache.Stats{pager.CacheStats}, Sources: src.Statuses, SourceMode: cfg.Sources.Default,
		// The shipped limits, with the benchmark's client lifted as the
		// load test lifts its own: this measures latency, not 429s.
		Limits: api.Limits{
			Client:  api.RateLimit{Rate: cfg.Limits.ClientRate, Burst: cfg.Limits.ClientBurst},
			Token:   api.RateLimit{Rate: cfg.Limits.TokenRate, Burst: cfg.Limits.TokenBurst},
			Clients: map[string]api.RateLimit{auth.DemoClientID: {}},
		},
	})
	times := &durations{}
	inner := a.Handler()
	httpSrv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			times.begin()
			t0 := time.Now()
			inner.ServeHTTP(w, r)
			times.add(time.Since(t0))
		}),
		ReadHeaderTimeout: cfg.Server.ReadHeaderTimeout.Duration,
		ReadTimeout:       cfg.Server.ReadTimeout.Duration,
		WriteTimeout:      cfg.Server.WriteTimeout.Duration,
		IdleTimeout:       cfg.Server.IdleTimeout.Duration,
		MaxHeaderBytes:    64 << 10,
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fail(err)
	}
	go httpSrv.Serve(ln)
	cleanup = append(cleanup, func() { httpSrv.Close() })
	return &benchServer{addr: ln.Addr().String(), store: store, src: src, handlerTimes: times, close: closeAll}, nil
}

// storedCodes is every stock of the stocks table, in code order.
func storedCodes(ctx context.Context, store *db.Store) ([]market.Code, error) {
	names, err := store.StockNames(ctx)
	if err != nil {
		return nil, err
	}
	var out []market.Code
	for c := range names {
		if code, err := market.ParseCode(c); err == nil {
			out = append(out, code)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("the stocks table is empty: run mdqsbench gen first")
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out, nil
}

// load runs do(i) for i in [0, n) from conc loops and returns each call's
// latency, sorted; the first error stops it.
func load(ctx context.Context, n, conc int, do func(i int) error) ([]time.Duration, error) {
	lat := make([]time.Duration, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, conc)
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				t0 := time.Now()
				err := do(i)
				lat[i] = time.Since(t0)
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	slices.Sort(lat)
	return lat, nil
}
