// Package sharedstate is the state several mdqs instances share through
// one Redis server: rate-limit budgets (N instances do not multiply a
// client's budget by N) and versioned blobs (a ranking one instance builds
// and all of them serve). Request nonces are not here: a replay must be
// refused whatever Redis does, so the team records them in its
// PostgreSQL store (auth, issue 27).
//
// Every operation is one Redis command or one Lua script, so it is atomic on
// the server and no instance holds a lock. Time comes from Redis (TIME inside
// the scripts, PX expiries), so the instances' clocks do not matter. The
// client is rueidis (github.com/redis/rueidis): it pipelines concurrent
// commands over a few connections without a pool to size, and its
// server-assisted client-side cache makes Version a read of process memory
// that Redis invalidates; clientchoice_bench_test.go measures it against
// go-redis. The package knows nothing of HTTP.
package sharedstate

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/redis/rueidis"
)

// Options tune a Client; the zero value is usable.
type Options struct {
	// Prefix goes before every key, so several deployments (or tests) can
	// share one Redis without seeing each other's keys. Default "mdqs:".
	Prefix string
	// Timeout bounds each command (and the connection's dial), so a Redis
	// that stops answering turns into an error on the request rather than a
	// request that hangs. Default 500ms.
	Timeout time.Duration
}

// Defaults for Options' zero fields.
const (
	DefaultPrefix  = "mdqs:"
	DefaultTimeout = 500 * time.Millisecond
)

// Client is a connection to the Redis server that holds the shared state.
// It is safe for concurrent use; concurrent calls are pipelined.
type Client struct {
	rdb     rueidis.Client
	prefix  string
	timeout time.Duration
	addr    string // the URL without its password, for errors and logs
	errs    atomic.Int64
}

// Open connects to the Redis server the URL names,
// redis://[user:pass@]host:port[/db] (rueidis.ParseURL: rediss:// for TLS,
// unix:// and query options such as dial_timeout work too), and PINGs it
// once, so a wrong address or password is found at start rather than on the
// first request.
func Open(ctx context.Context, rawURL string, opt Options) (*Client, error) {
	if opt.Prefix == "" {
		opt.Prefix = DefaultPrefix
	}
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultTimeout
	}
	addr := redactURL(rawURL)
	ro, err := rueidis.ParseURL(rawURL)
	if err != nil {
		// url.Parse's error repeats the whole URL, password included.
		if ue := (*url.Error)(nil); errors.As(err, &ue) {
			return nil, fmt.Errorf("sharedstate: the redis URL is not valid: %w (want redis://[user:pass@]host:port[/db])", ue.Err)
		}
		return nil, fmt.Errorf("sharedstate: redis URL %s: %w (want redis://[user:pass@]host:port[/db])", addr, err)
	}
	if ro.Dialer.Timeout == 0 { // the URL's dial_timeout wins
		ro.Dialer.Timeout = opt.Timeout
	}
	ro.ClientName = "mdqs"
	// mdqs uses one server, not a cluster: skip rueidis's CLUSTER SLOTS
	// probe, whose error would otherwise hide a bad address or password.
	ro.ForceSingleClient = true
	rdb, err := rueidis.NewClient(ro)
	if err != nil {
		if rdb != nil { // ForceSingleClient returns the client with the dial's error
			rdb.Close()
		}
		return nil, openError(addr, err)
	}
	c := &Client{rdb: rdb, prefix: opt.Prefix, timeout: opt.Timeout, addr: addr}
	if err := c.Ping(ctx); err != nil {
		rdb.Close()
		return nil, openError(addr, errors.Unwrap(err))
	}
	return c, nil
}

// Close closes the connections; calls after it fail.
func (c *Client) Close() { c.rdb.Close() }

// Addr is the server's URL with its password redacted, for logs.
func (c *Client) Addr() string { return c.addr }

// Errors counts the commands that failed (timeouts, lost connections, Redis
// errors) since Open; a replayed nonce or a refused Take is not an error.
// It lets a health endpoint or a metric show a Redis in trouble.
func (c *Client) Errors() int64 { return c.errs.Load() }

// Ping checks that Redis answers within the timeout.
func (c *Client) Ping(ctx context.Context) error {
	ctx, cancel := c.ctx(ctx)
	defer cancel()
	return c.fail("PING", c.rdb.Do(ctx, c.rdb.B().Ping().Build()).Error())
}

// openError tells a server that is not there (the usual mistake: Redis not
// started, a wrong port) from one that answered but refused, such as a
// wrong password.
func openError(addr string, err error) error {
	if _, ok := rueidis.IsRedisErr(err); ok {
		return fmt.Errorf("sharedstate: redis at %s refused the connection: %w", addr, err)
	}
	return fmt.Errorf("sharedstate: redis at %s is unreachable: %w", addr, err)
}

// ctx bounds one command by the client's timeout.
func (c *Client) ctx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, c.timeout)
}

// fail wraps a command's error with the server and the operation, so a log
// line says it was Redis, and counts it.
func (c *Client) fail(op string, err error) error {
	if err == nil {
		return nil
	}
	c.errs.Add(1)
	return fmt.Errorf("sharedstate: redis %s: %s: %w", c.addr, op, err)
}

// redactURL is the URL fit for a log: its password replaced by "xxxxx".
// An unparsable URL is not shown at all, since where its password ends
// cannot be known.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}
