package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"mdqs/internal/config"
)

const healthcheckSynopsis = `healthcheck [-addr HOST:PORT] [-config FILE] [-timeout 3s]
  GET /healthz of the server and exit 0 when it answers 200, 1 otherwise:
  a container's HEALTHCHECK (a scratch image has no curl or shell)`

// Healthcheck runs `mdqs healthcheck`: a liveness probe of the server at
// -addr, else at the configured server.addr. It dials the server directly
// (no proxy) and waits at most -timeout, so a hung server fails the probe
// rather than hanging it.
func Healthcheck(ctx context.Context, env Env, args []string) error {
	fs := newFlags("healthcheck", healthcheckSynopsis, env)
	addr := fs.String("addr", "", "server address HOST:PORT or URL (default: server.addr of the configuration, MDQS_SERVER_ADDR included; 0.0.0.0 and [::] are dialled as 127.0.0.1)")
	configPath := fs.String("config", "", "configuration file (default ./config.toml when present, else the built-in defaults)")
	timeout := fs.Duration("timeout", 3*time.Second, "how long to wait for the answer")
	if err := ParseFlags(env, fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return Usage("mdqs healthcheck: unexpected argument %q", fs.Arg(0))
	}
	target := *addr
	if target == "" {
		cfg, _, err := config.Load(env.ConfigInput(*configPath))
		if err != nil {
			return &ExitError{Code: 1, Err: err}
		}
		target = cfg.Server.Addr
	}
	u, err := healthURL(target)
	if err != nil {
		return Usage("mdqs healthcheck: -addr %v", err)
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return Usage("mdqs healthcheck: %v", err)
	}
	hc := &http.Client{Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
	start := time.Now()
	resp, err := hc.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("no answer within %v", *timeout)
		}
		return &ExitError{Code: 1, Err: fmt.Errorf("healthcheck: GET %s: %w", u, err)}
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return &ExitError{Code: 1, Err: fmt.Errorf("healthcheck: GET %s: HTTP %d %s", u, resp.StatusCode, http.StatusText(resp.StatusCode))}
	}
	fmt.Fprintf(env.Stdout, "ok: GET %s: HTTP 200 in %v\n", u, time.Since(start).Round(time.Millisecond))
	return nil
}

// healthURL is the /healthz URL of a server listening on addr (HOST:PORT
// or an http(s) URL). A host that means "every interface" (empty, 0.0.0.0,
// [::]) is dialled as 127.0.0.1: the probe runs beside the server, and a
// wildcard listener answers on loopback.
func healthURL(addr string) (string, error) {
	scheme, hostport := "http", addr
	if strings.Contains(addr, "://") {
		u, err := url.Parse(addr)
		if err != nil {
			return "", err
		}
		if u.Scheme != "http" && u.Scheme != "https" {
			return "", fmt.Errorf("%q: want http:// or https://", addr)
		}
		scheme, hostport = u.Scheme, u.Host
		if u.Port() == "" {
			hostport = net.JoinHostPort(u.Hostname(), map[string]string{"http": "80", "https": "443"}[u.Scheme])
		}
	}
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return "", fmt.Errorf("%q: want HOST:PORT (%v)", addr, err)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return "", fmt.Errorf("%q: the port must be a number 1-65535", addr)
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return scheme + "://" + net.JoinHostPort(host, port) + "/healthz", nil
}
