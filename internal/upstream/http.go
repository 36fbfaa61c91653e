package upstream

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"golang.org/x/time/rate"

	"mdqs/internal/market"
)

// fetcher is the machinery every client shares: one *http.Client per source
// (own timeout, own proxy), browser-like headers, the host's shared rate
// limiter, retries with exponential backoff and full jitter, failover
// across the source's hosts, and the per-source Status.
type fetcher struct {
	source string
	cfg    SourceConfig
	base   *url.URL // the first host's; errors that name no request's host use it
	hosts  *hostList
	client *http.Client
	lim    *rate.Limiter
	clock  market.Clock
	status *tracker
	brk    *breaker

	// Seams for tests: waiting (limiter and backoff) and the jitter draw.
	sleep  func(ctx context.Context, d time.Duration) error
	jitter func(ceil time.Duration) time.Duration
}

// request is one GET, or one POST when body is set. Referer is per
// endpoint: the EastMoney page that would issue this XHR in a browser.
type request struct {
	path    string
	query   url.Values
	referer string
	// body, when not nil, makes the request a POST of this JSON text (the
	// emappdata hot-rank API reads its parameters from a JSON body). Such
	// POSTs are reads, so retrying them is as safe as retrying a GET.
	body []byte
}

func newFetcher(source string, cfg SourceConfig, lims *Limiters, clock market.Clock) (*fetcher, error) {
	if lims == nil {
		return nil, fmt.Errorf("upstream %s: nil Limiters; create one per process with NewLimiters", source)
	}
	if clock == nil {
		clock = market.SystemClock{}
	}
	var bases []*url.URL
	for _, s := range cfg.Hosts() {
		u, err := url.Parse(s)
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
			return nil, fmt.Errorf("upstream %s: base and fallback URLs must be http(s)://host[:port][/prefix]", source)
		}
		bases = append(bases, u)
	}
	base := bases[0]
	proxy, err := proxyFunc(cfg.Proxy)
	if err != nil {
		return nil, fmt.Errorf("upstream %s: %w", source, err)
	}
	tr := &http.Transport{
		Proxy:                 proxy,
		DialContext:           (&net.Dialer{Timeout: min(cfg.Timeout, 10*time.Second), KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          8,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
		DisableCompression:    true, // we send Accept-Encoding and decode ourselves (body.go)
	}
	f := &fetcher{
		source: source,
		cfg:    cfg,
		base:   base,
		hosts:  newHostList(bases, cfg.FailoverCooldown),
		client: &http.Client{Transport: tr, Timeout: cfg.Timeout},
		// One limiter for all the source's hosts, keyed by the first: the
		// numbered and delayed hosts are one operator's servers, whose bans
		// are reported to cover them all (eastmoney-part2.md section f), so
		// a failover must move our requests, not add to their rate.
		lim:    lims.For(cmp.Or(cfg.RateGroup, base.Host), cfg.Rate, cfg.Burst),
		clock:  clock,
		status: newTracker(source),
		brk:    newBreaker(cfg.BreakerFailures, cfg.BreakerCooldown),
		sleep:  sleepCtx,
		jitter: fullJitter,
	}
	return f, nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func fullJitter(ceil time.Duration) time.Duration {
	if ceil <= 0 {
		return 0
	}
	return time.Duration(rand.Int64N(int64(ceil) + 1))
}

// observe records one client method call in Status; use as
// defer f.observe(f.clock.Now(), &err).
func (f *fetcher) observe(start time.Time, errp *error) {
	f.status.done(start, f.clock.Now(), *errp)
}

// snapshot is the source's Status with its breaker and host state.
func (f *fetcher) snapshot() Status {
	s := f.status.snapshot()
	f.brk.fill(&s)
	f.hosts.fill(&s)
	return s
}

// suspectBan takes a caller's word that the last answer came from a host
// that is banning us (see hostList.suspectBan).
func (f *fetcher) suspectBan() { f.hosts.suspectBan(f.clock.Now()) }

func (f *fetcher) noteDrift(c *check) {
	if t := c.driftText(); t != "" {
		f.status.drift(f.clock.Now(), t)
	}
}

// get fetches req (a GET, or a POST when req.body is set) and hands every
// 2xx, non-HTML body to decode. Transport errors, timeouts, 5xx, 429 and
// truncated bodies (including a decode that finds the JSON cut short) are
// retried after a backoff; everything else is returned at once. Every
// attempt, retries included, waits for the source's rate limiter. A host
// that still fails after its retries hands the request to the next host
// (hostList). While the source's circuit breaker is open, get fails at
// once with KindCircuitOpen.
func (f *fetcher) get(ctx context.Context, req request, decode func(body []byte) error) error {
	probe, e := f.brk.allow(f.clock.Now())
	if e != nil {
		e.Source, e.Path = f.source, f.fullPath(req.path)
		return e
	}
	err := f.failover(ctx, req, decode, probe)
	f.brk.record(f.clock.Now(), err)
	return err
}

// failover tries req on the hosts of the plan in turn until one answers or
// fails in a way another host would not mend; a probe (breaker.allow)
// tries each host once.
func (f *fetcher) failover(ctx context.Context, req request, decode func(body []byte) error, probe bool) error {
	plan := f.hosts.plan(f.clock.Now())
	sent := 0
	for n := 0; ; n++ {
		i, more := plan[n], n < len(plan)-1
		retries := f.cfg.Retries
		if probe || more && f.hosts.probing(i) {
			retries = 0
		}
		u := *f.hosts.base(i)
		u.Path = strings.TrimRight(u.Path, "/") + req.path
		u.RawPath = ""
		u.RawQuery = req.query.Encode()
		err := f.attempts(ctx, u.String(), u.Path, req, decode, retries, more)
		if err == nil {
			f.hosts.answered(i)
			return nil
		}
		e := asError(err)
		sent += e.Attempts
		e.Attempts = sent
		if !hostFailure(e) {
			return e
		}
		f.hosts.failed(i, f.clock.Now(), banSign(e))
		if !more {
			return e
		}
		f.hosts.movedOn()
	}
}

// attempts sends req to one host, retrying up to retries times; more says
// another host is left, so a ban sign ends the retries at once.
func (f *fetcher) attempts(ctx context.Context, target, path string, req request, decode func(body []byte) error, retries int, more bool) error {
	for attempt := 1; ; attempt++ {
		err := f.wait(ctx)
		if err == nil {
			var body []byte
			body, err = f.roundTrip(ctx, target, req)
			if err == nil {
				err = decode(body)
			}
		}
		if err == nil {
			return nil
		}
		e := asError(err)
		e.Source, e.Path, e.Attempts = f.source, path, attempt
		if !e.retryable() || attempt > retries || more && banSign(e) || f.requestWaits(ctx) {
			return e
		}
		wait := f.backoff(attempt, e)
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) <= wait {
			// The caller's time (a request's server.upstream_wait) would
			// run out while waiting: answer with the failure now, not
			// "canceled" then. Deadlines are wall-clock times.
			return e
		}
		if err := f.sleep(ctx, wait); err != nil {
			return &Error{Kind: KindCanceled, Source: f.source, Path: path, Attempts: attempt,
				Detail: "during backoff after " + e.Kind.String(), Err: err}
		}
	}
}

// requestWaits says that a request waits on this call (Waiting: it
// started the call, or joined the shared fetch making it since) while the
// source has not answered yet: the request gets the failure now, as the
// requests after the circuit opens get theirs at once, instead of waiting
// out the retries of a source that may well be down.
func (f *fetcher) requestWaits(ctx context.Context) bool {
	return Waiting(ctx) && f.brk.unproven()
}

// fullPath is the request path under the first base URL's prefix.
func (f *fetcher) fullPath(p string) string {
	return strings.TrimRight(f.base.Path, "/") + p
}

func asError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Kind: KindMalformed, Err: err}
}

// wait takes a token from the source's limiter, reading time from the clock
// so tests can drive the limiter without wall-clock sleeps.
func (f *fetcher) wait(ctx context.Context) error {
	now := f.clock.Now()
	r := f.lim.ReserveN(now, 1)
	if !r.OK() {
		return &Error{Kind: KindTransport, Detail: "rate limiter refuses (burst < 1)"}
	}
	d := r.DelayFrom(now)
	if d <= 0 {
		return nil
	}
	if err := f.sleep(ctx, d); err != nil {
		r.CancelAt(f.clock.Now())
		return &Error{Kind: KindCanceled, Detail: "waiting for the rate limiter", Err: err}
	}
	return nil
}

// backoff is full jitter: uniform in [0, min(max, base*2^(retry-1))]. A
// Retry-After from a 429/503 raises the wait up to BackoffMax.
func (f *fetcher) backoff(retry int, e *Error) time.Duration {
	ceil := f.cfg.BackoffMax
	if retry-1 < 30 {
		if c := f.cfg.BackoffBase << (retry - 1); c > 0 && c < ceil {
			ceil = c
		}
	}
	d := f.jitter(ceil)
	if ra := min(e.retryAfter, f.cfg.BackoffMax); ra > d {
		d = ra
	}
	return d
}

func (f *fetcher) roundTrip(ctx context.Context, target string, req request) ([]byte, error) {
	method, payload := http.MethodGet, io.Reader(nil)
	if req.body != nil {
		// A fresh reader per attempt: a retry must send the whole body again.
		method, payload = http.MethodPost, bytes.NewReader(req.body)
	}
	hreq, err := http.NewRequestWithContext(ctx, method, target, payload)
	if err != nil {
		return nil, &Error{Kind: KindTransport, Detail: "building request", Err: err}
	}
	h := hreq.Header
	h.Set("User-Agent", f.cfg.UserAgent)
	h.Set("Accept", "application/json, text/javascript, */*; q=0.01")
	h.Set("Accept-Language", "zh-CN,zh;q=0.9,en;q=0.8")
	h.Set("Accept-Encoding", "gzip, deflate")
	if req.body != nil {
		h.Set("Content-Type", "application/json;charset=UTF-8")
	}
	if req.referer != "" {
		h.Set("Referer", req.referer)
	}
	f.status.request()
	resp, err := f.client.Do(hreq)
	if err != nil {
		return nil, transportErr(ctx, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		snippet, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		e := &Error{Kind: KindHTTPStatus, Status: resp.StatusCode}
		if resp.Header.Get("Content-Encoding") == "" {
			e.Detail = bodyDetail(snippet)
		}
		e.retryAfter = retryAfter(resp.Header.Get("Retry-After"), f.clock.Now())
		return nil, e
	}
	body, err := readBody(ctx, resp, f.cfg.MaxBody)
	if err != nil {
		return nil, err
	}
	if looksHTML(body, resp.Header.Get("Content-Type")) {
		return nil, &Error{Kind: KindHTML, Detail: bodyDetail(body)}
	}
	return body, nil
}

func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil && s > 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
