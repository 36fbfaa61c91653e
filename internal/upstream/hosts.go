package upstream

import (
	"errors"
	"io"
	"net/url"
	"sync"
	"syscall"
	"time"
)

// maxCoolShift caps a host's cool-down at 8 times the configured one: a
// host that keeps failing its probes (push2 bans have lasted 20 hours) is
// asked once an hour and a bit with the 10-minute default, not never.
const maxCoolShift = 3

// hostList is a source's base URLs in the order they are preferred:
// BaseURL, then Fallbacks. A request tries them in that order, skipping
// the hosts that are cooling down after a failure, so until the better
// hosts' cool-downs run out every request goes straight to the host that
// last answered (sticky); then the first of them is probed again.
//
// A cool-down is a per-host breaker, and it is why the source's breaker can
// stay one per source: a call that failed over and got its answer is a
// success, so one host's ban or outage never opens the circuit for the
// others, while a source whose every host fails still opens it after
// BreakerFailures calls, which bounds the requests a dead source costs.
type hostList struct {
	cooldown time.Duration

	mu        sync.Mutex
	hosts     []hostState
	last      int // the host that last answered (or was last tried); a ban report blames it
	failovers int64
	banSigns  int64
}

type hostState struct {
	base    *url.URL
	until   time.Time // cooling down: not tried before then while another host is free
	strikes int       // failures since it last answered (a ban sign counts two); each doubles the cool-down
}

func newHostList(bases []*url.URL, cooldown time.Duration) *hostList {
	l := &hostList{cooldown: cooldown, hosts: make([]hostState, len(bases))}
	for i, b := range bases {
		l.hosts[i].base = b
	}
	return l
}

func (l *hostList) base(i int) *url.URL { return l.hosts[i].base }

// plan is the order a request tries the hosts in: every host not cooling
// down, in configured order. When all are cooling down it is the one whose
// cool-down ends first, alone: a probe, so a source that is down
// everywhere costs one host's attempts per call, as it did before it had
// more than one.
func (l *hostList) plan(now time.Time) []int {
	l.mu.Lock()
	defer l.mu.Unlock()
	var free []int
	soonest := 0
	for i, h := range l.hosts {
		if !now.Before(h.until) {
			free = append(free, i)
		}
		if h.until.Before(l.hosts[soonest].until) {
			soonest = i
		}
	}
	if len(free) == 0 {
		return []int{soonest}
	}
	return free
}

// probing says a host is back from a cool-down and not yet proven: it gets
// one attempt, not its retries, when another host is left to go to, so a
// still-broken host costs the request one timeout at most, not four.
func (l *hostList) probing(i int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.hosts[i].strikes > 0
}

func (l *hostList) answered(i int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.hosts[i].strikes, l.hosts[i].until, l.last = 0, time.Time{}, i
}

// failed puts host i in a cool-down that doubles with every failure since
// it last answered; a ban sign counts as two failures, so a host that
// looks like it is banning us is left alone twice as long.
func (l *hostList) failed(i int, now time.Time, ban bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.strike(i, now, ban)
	l.last = i
}

func (l *hostList) strike(i int, now time.Time, ban bool) {
	h := &l.hosts[i]
	h.strikes++
	if ban {
		h.strikes++
		l.banSigns++
	}
	h.until = now.Add(l.cooldown << min(h.strikes-1, maxCoolShift))
}

func (l *hostList) movedOn() {
	l.mu.Lock()
	l.failovers++
	l.mu.Unlock()
}

// suspectBan is a caller's word that the host of the last answer is
// banning us (empty answers for codes that had data): that host cools
// down as after a ban sign, and the next request starts on the next one.
func (l *hostList) suspectBan(now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.strike(l.last, now, true)
	if len(l.hosts) > 1 {
		l.failovers++
	}
}

// fill says in s which host is in use and how often requests moved on.
func (l *hostList) fill(s *Status) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s.Host, s.Failovers, s.BanSigns = l.hosts[l.last].base.Host, l.failovers, l.banSigns
}

// hostFailure says whether err is the host's fault, so that another host
// may do better: the failures that count against the breaker (no answer,
// 5xx or 429, a ban page, a cut or garbled body). An rc, a 4xx other than
// 429 or schema drift is an answer to what was asked, and every host would
// give the same one; a canceled call says nothing about the host.
func hostFailure(err error) bool { return countsAgainst(err) }

// banSign says the failure looks like EastMoney refusing us rather than a
// host in trouble: the connection reset (ECONNRESET, or Windows'
// WSAECONNRESET, 10054, which package syscall names only on Windows) or
// closed without an answer (EOF; Python clients report it as
// RemoteDisconnected), which is how its bans show (akshare issues #7004,
// #7099, #7230), or an HTML page where JSON was asked. Retrying a host that
// bans only keeps the ban fresh, so such a host is left at once for the
// next one and cools down twice as long.
func banSign(e *Error) bool {
	switch e.Kind {
	case KindHTML:
		return true
	case KindTransport:
		var errno syscall.Errno
		return errors.Is(e.Err, syscall.ECONNRESET) || errors.As(e.Err, &errno) && errno == 10054 ||
			errors.Is(e.Err, io.EOF) || errors.Is(e.Err, io.ErrUnexpectedEOF)
	}
	return false
}
