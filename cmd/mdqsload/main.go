// Command mdqsload drives a running mdqs server with signed requests to
// GET /v1/api/boards/top50, /v1/api/kline (one year of daily bars with
// ma5,ma20 for a rotating set of codes) and /v1/api/market/movements, and
// prints per endpoint the requests, errors (non-2xx or transport), p50,
// p90, p99, max latency and requests per second.
//
//	go run . &                                   # the demo server on 127.0.0.1:8080
//	go run ./cmd/mdqsload -duration 30s -c 8     # closed loop, 8 workers
//	go run ./cmd/mdqsload -rate 500 -c 32        # open loop at 500 req/s
//
// With -pid (Linux) it also reads the server's resident memory (VmRSS)
// before, during and after the run.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"mdqs/internal/loadgen"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "mdqsload:", err)
		os.Exit(1)
	}
}

// errFailures is returned when requests failed, so scripts can check the
// exit status.
var errFailures = errors.New("some requests failed")

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mdqsload", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", envOr("MDQS_ADDR", "127.0.0.1:8080"), "server HOST:PORT or URL")
	id := fs.String("id", envOr("MDQS_CLIENT_ID", "demo"), "API client id")
	secret := fs.String("secret", envOr("MDQS_CLIENT_SECRET", "demo-secret"), "API client secret")
	apiKey := fs.String("api-key", os.Getenv("MDQS_API_KEY"), "api-key header, for clients created with one")
	duration := fs.Duration("duration", 30*time.Second, "how long to send requests")
	conc := fs.Int("c", 8, "concurrency: workers sending requests")
	clients := fs.Int("clients", 0, "tokens the workers share (default min(c, 20): a client holds at most auth.token_max_per_client tokens)")
	rate := fs.Float64("rate", 0, "0: closed loop (each worker sends when answered); >0: open loop at this many requests/s in all, latency counted from when each request was due")
	mixArg := fs.String("mix", "top50=1,kline=1,movements=1", "weights of the endpoints")
	codes := fs.String("codes", "", "K-line codes, comma-separated (default: the sectors' leading stocks the server lists)")
	days := fs.Int("kline-days", 365, "days of daily bars per K-line request, ending today")
	timeout := fs.Duration("timeout", 30*time.Second, "per-request timeout")
	pid := fs.Int("pid", 0, "the server's process id, to report its RSS (Linux /proc)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: mdqsload [-addr HOST:PORT] [-id ID -secret S] [-duration 30s] [-c 8] [-rate 0] [-mix top50=1,kline=1,movements=1] [-pid PID]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	mix, err := loadgen.ParseMix(*mixArg)
	if err != nil {
		return err
	}
	cfg := loadgen.Config{
		Addr: *addr, ID: *id, Secret: *secret, APIKey: *apiKey,
		Duration: *duration, Concurrency: *conc, Clients: *clients, Rate: *rate, Mix: mix,
		KlineDays: *days, Timeout: *timeout,
	}
	if *codes != "" {
		for _, c := range strings.Split(*codes, ",") {
			if c = strings.TrimSpace(c); c != "" {
				cfg.Codes = append(cfg.Codes, c)
			}
		}
	}
	if *pid > 0 {
		p := *pid
		if _, err := loadgen.ProcRSS(p); err != nil {
			return fmt.Errorf("-pid: %w", err)
		}
		cfg.Memory = func() (uint64, error) { return loadgen.ProcRSS(p) }
	}
	res, err := loadgen.Run(ctx, cfg)
	if err != nil {
		return err
	}
	res.Print(stdout)
	if res.Total.Errors > 0 {
		return errFailures
	}
	return nil
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}
