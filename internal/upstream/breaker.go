package upstream

import (
	"sync"
	"time"
)

// BreakerState is where a source's circuit breaker stands.
type BreakerState uint8

const (
	BreakerClosed   BreakerState = iota // calls go through
	BreakerOpen                         // calls fail at once with KindCircuitOpen until the cooldown ends
	BreakerHalfOpen                     // one probe call is through; the rest still fail at once
)

var breakerNames = [...]string{BreakerClosed: "closed", BreakerOpen: "open", BreakerHalfOpen: "half_open"}

func (s BreakerState) String() string {
	if int(s) < len(breakerNames) {
		return breakerNames[s]
	}
	return "unknown"
}

func (s BreakerState) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// breaker stops a source from being called while it is plainly down or
// banning us. Retries already absorb a blip; a source that fails Threshold
// calls in a row (each with its retries) is not answering, and every further
// call would only cost the caller its timeout and keep a ban fresh. After
// Cooldown one probe call goes through: its success closes the circuit, its
// failure opens it for another Cooldown.
//
// Only failures that say the upstream is unwell count: transport errors,
// timeouts, 5xx and 429, ban or portal pages, cut or garbled bodies. An rc,
// a schema change or an empty list is an answer from a live server, and
// resets the count like a success.
//
// Hand-written on purpose (issue 13 weighed sony/gobreaker/v2 v2.4.0): that
// library reads time.Now() itself, takes no clock, and keeps when the next
// probe is due to itself. mdqs runs on an injected market.Clock (tests pin
// it to a trading session, a replay runs a past day), and the refusal's
// retry time, probe_at and opened_at must come from that clock. gobreaker
// put behind this same allow/record/fill (upstream state, trips, rejected
// kept beside it) failed five tests: TestBreakerOpensRefusesProbesAndCloses,
// TestRetryAfterTellsTheTruth and TestInfoOutageIs503NamingTheCause
// (Retry-After 217066 s: the wall clock's probe time minus the pinned
// clock's now), TestHealthTimesAreTheAPIsDateTime (opened_at two days off)
// and TestUpstreamFaultsServeStaleData (the circuit never healed: its
// cooldown runs in wall time while the test moves its clock). What is left
// here is some 80 lines.
type breaker struct {
	threshold int // 0 disables the breaker
	cooldown  time.Duration

	mu       sync.Mutex
	state    BreakerState
	failures int // consecutive counted failures while closed
	openedAt time.Time
	probing  bool // half-open and the probe is out
	answered bool // a call has been answered since the start
	trips    int64
	rejected int64
}

func newBreaker(threshold int, cooldown time.Duration) *breaker {
	return &breaker{threshold: threshold, cooldown: cooldown}
}

// allow says whether a call may go to the network now, and whether it is
// a probe: one attempt per host, no retries. Retries absorb a blip of a
// source that answers; a source whose last call failed after its retries
// is not blipping, so every call until one is answered probes it (the
// circuit's half-open probe, and the calls before the circuit opens, which
// cost four attempts and seconds each before). A refusal is an *Error of
// KindCircuitOpen that says when the next probe is due.
func (b *breaker) allow(now time.Time) (probe bool, refused *Error) {
	if b.threshold <= 0 {
		return false, nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	switch b.state {
	case BreakerClosed:
		return b.failures > 0, nil
	case BreakerOpen:
		if now.Before(b.openedAt.Add(b.cooldown)) {
			break
		}
		b.state, b.probing = BreakerHalfOpen, true
		return true, nil
	case BreakerHalfOpen:
		if !b.probing {
			b.probing = true
			return true, nil
		}
	}
	b.rejected++
	retry := b.openedAt.Add(b.cooldown).Sub(now)
	return false, &Error{Kind: KindCircuitOpen, Detail: "after repeated failures; next probe in " + retry.Round(time.Second).String(),
		retryAfter: retry}
}

// unproven says that no call has been answered since the start: a
// request waiting on a call to such a source does not wait for retries
// (fetcher.attempts).
func (b *breaker) unproven() bool {
	if b.threshold <= 0 {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return !b.answered
}

// record takes the outcome of a call that allow let through.
func (b *breaker) record(now time.Time, err error) {
	if b.threshold <= 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	kind := KindOf(err)
	switch {
	case kind == KindCanceled:
		// The caller gave up; nothing was learnt. A canceled probe frees
		// the slot for the next caller.
		if b.state == BreakerHalfOpen {
			b.probing = false
		}
	case countsAgainst(err):
		b.failures++
		if b.state == BreakerHalfOpen || b.failures >= b.threshold {
			b.state, b.openedAt, b.probing = BreakerOpen, now, false
			b.trips++
		}
	default:
		b.state, b.failures, b.probing, b.answered = BreakerClosed, 0, false, true
	}
}

func countsAgainst(err error) bool {
	if err == nil {
		return false
	}
	e := asError(err)
	switch e.Kind {
	case KindTransport, KindTimeout, KindHTML, KindTruncated, KindMalformed:
		return true
	case KindHTTPStatus:
		return e.Status >= 500 || e.Status == 429
	}
	return false
}

// fill copies the breaker's state into a Status.
func (b *breaker) fill(s *Status) {
	b.mu.Lock()
	defer b.mu.Unlock()
	s.Breaker, s.BreakerTrips, s.Rejected = b.state, b.trips, b.rejected
	if b.state != BreakerClosed {
		s.BreakerOpenedAt = b.openedAt
		s.BreakerProbeAt = b.openedAt.Add(b.cooldown)
	}
}

// absorbBreaker folds the breaker and failover figures of a second fetcher
// behind the same source into s: the worse state shows, counts add up; the
// host stays the first fetcher's.
func (s *Status) absorbBreaker(o Status) {
	s.Failovers += o.Failovers
	s.BanSigns += o.BanSigns
	if o.Breaker == BreakerOpen || (o.Breaker == BreakerHalfOpen && s.Breaker == BreakerClosed) {
		s.Breaker, s.BreakerOpenedAt, s.BreakerProbeAt = o.Breaker, o.BreakerOpenedAt, o.BreakerProbeAt
	}
	s.BreakerTrips += o.BreakerTrips
	s.Rejected += o.Rejected
}
