package upstream

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"mdqs/internal/market"
)

// How a fake host answers; it can change between requests.
type hostMode int32

const (
	answers    hostMode = iota // 200 with a K-line reply
	badGateway                 // 502, retried, then a host failure
	resets                     // the connection is reset (RST) after the request: a ban sign
	banPage                    // 200 with an HTML page: a ban sign, not retried
	badRequest                 // 400: an answer about the request, not the host
	rcError                    // 200 with rc 100: an answer too
)

// fakeHost is one of a source's hosts on loopback, counting what reaches it.
type fakeHost struct {
	srv  *httptest.Server
	mode atomic.Int32
	hits atomic.Int64
}

func newFakeHost(t *testing.T, mode hostMode) *fakeHost {
	t.Helper()
	h := &fakeHost{}
	h.mode.Store(int32(mode))
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.hits.Add(1)
		switch hostMode(h.mode.Load()) {
		case answers:
			write(w, 200, jsonCT, fixture(t, "push2his_kline_daily_601872_2024-12.json"))
		case badGateway:
			write(w, 502, "text/html", fixture(t, "made_nginx_502.html"))
		case resets:
			conn, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			_ = conn.(*net.TCPConn).SetLinger(0) // close sends RST, not FIN
			_ = conn.Close()
		case banPage:
			write(w, 200, "text/html", fixture(t, "made_nginx_502.html"))
		case badRequest:
			write(w, 400, "text/plain", []byte("bad secid"))
		case rcError:
			write(w, 200, jsonCT, fixture(t, "push2his_trends2_error_rc100_data_null.json"))
		}
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *fakeHost) host() string { u, _ := url.Parse(h.srv.URL); return u.Host }

// closedHost is a base URL where nothing listens: connection refused.
func closedHost(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	return srv.URL
}

// newFailoverHis is a push2his client on bases (the first is BaseURL),
// with 2 retries, a 10-minute failover cool-down and a fixed clock.
func newFailoverHis(t *testing.T, clock *market.FixedClock, bases ...string) *Push2His {
	t.Helper()
	cfg := testSource(bases[0])
	cfg.Fallbacks = bases[1:]
	cfg.FailoverCooldown = 10 * time.Minute
	cfg.BreakerFailures = -1 // the breaker has tests of its own
	c, err := NewPush2His(cfg, NewLimiters(), clock)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func klines(c *Push2His) error {
	_, err := c.Klines(context.Background(), market.MustCode("601872.SH"), market.Daily, 0, 0)
	return err
}

func hits(hs ...*fakeHost) []int64 {
	out := make([]int64, len(hs))
	for i, h := range hs {
		out[i] = h.hits.Load()
	}
	return out
}

func sameHits(got []int64, want ...int64) bool {
	for i := range got {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}

// A first host that fails hands the request to the second; the next
// request goes straight to the second, and after the cool-down the first
// is probed again, now with one attempt only, and taken back once it
// answers.
func TestHostFailsOver(t *testing.T) {
	for _, tc := range []struct {
		name     string
		mode     hostMode
		firstHit int64 // requests the first host sees on the first call
		ban      bool  // a ban sign: counts as two failures
		again    time.Duration
	}{
		// The cool-down doubles per failure: 10, then 20 minutes; a ban
		// sign counts two, so 20, then 80 (the cap, 8 times).
		{"502 after its retries", badGateway, 3, false, 20 * time.Minute},
		{"connection reset, left at once", resets, 1, true, 80 * time.Minute},
		{"HTML ban page, not retried", banPage, 1, true, 80 * time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := market.NewFixedClock(testNow())
			a, b := newFakeHost(t, tc.mode), newFakeHost(t, answers)
			c := newFailoverHis(t, clock, a.srv.URL, b.srv.URL)

			if err := klines(c); err != nil {
				t.Fatalf("first call: %v", err)
			}
			if got := hits(a, b); !sameHits(got, tc.firstHit, 1) {
				t.Fatalf("first call: hits per host %v, want [%d 1]", got, tc.firstHit)
			}
			st := c.Status()
			wantBans := int64(0)
			if tc.ban {
				wantBans = 1
			}
			if st.Host != b.host() || st.Failovers != 1 || st.BanSigns != wantBans || st.Failures != 0 || st.Requests != tc.firstHit+1 {
				t.Errorf("status after failover: host %s failovers %d ban signs %d failures %d requests %d",
					st.Host, st.Failovers, st.BanSigns, st.Failures, st.Requests)
			}

			// Sticky: the next call does not touch the first host.
			if err := klines(c); err != nil {
				t.Fatal(err)
			}
			if got := hits(a, b); !sameHits(got, tc.firstHit, 2) {
				t.Fatalf("second call: hits %v, want [%d 2]", got, tc.firstHit)
			}

			// After the cool-down (20 minutes after a ban sign) the first host
			// is probed with one attempt; still failing, it cools down again,
			// longer.
			clock.Advance(10 * time.Minute)
			if tc.ban {
				if err := klines(c); err != nil || a.hits.Load() != tc.firstHit {
					t.Fatalf("ban sign: the first host was probed after 10 minutes (%v)", err)
				}
				clock.Advance(10 * time.Minute)
			}
			before := hits(a, b)
			if err := klines(c); err != nil {
				t.Fatal(err)
			}
			if got := hits(a, b); got[0] != before[0]+1 || got[1] != before[1]+1 {
				t.Fatalf("probe: hits %v after %v, want one more on each", got, before)
			}
			if st := c.Status(); st.Host != b.host() || st.Failovers != 2 {
				t.Errorf("after a failed probe: host %s failovers %d", st.Host, st.Failovers)
			}

			// Healed, it is taken back at the next probe, not before.
			a.mode.Store(int32(answers))
			clock.Advance(tc.again - time.Second)
			if err := klines(c); err != nil || a.hits.Load() != before[0]+1 {
				t.Fatalf("the first host was probed a second early (%v)", err)
			}
			clock.Advance(time.Second)
			before = hits(a, b)
			if err := klines(c); err != nil {
				t.Fatal(err)
			}
			if got := hits(a, b); got[0] != before[0]+1 || got[1] != before[1] {
				t.Fatalf("healed: hits %v after %v", got, before)
			}
			if st := c.Status(); st.Host != a.host() {
				t.Errorf("healed: host %s, want %s", st.Host, a.host())
			}
			// And it has its retries back: a 502 now costs it all three.
			a.mode.Store(int32(badGateway))
			before = hits(a, b)
			if err := klines(c); err != nil {
				t.Fatal(err)
			}
			if got := hits(a, b); got[0] != before[0]+3 || got[1] != before[1]+1 {
				t.Errorf("after healing: hits %v after %v, want 3 more on the first", got, before)
			}
		})
	}
}

// A host that refuses connections is passed over like one that answers
// 502; the attempts add up across the hosts when all fail, and then
// only one host is probed per call until a cool-down ends.
func TestRefusedHostFailsOver(t *testing.T) {
	clock := market.NewFixedClock(testNow())
	down := closedHost(t)
	b := newFakeHost(t, answers)
	c := newFailoverHis(t, clock, down, b.srv.URL)
	if err := klines(c); err != nil {
		t.Fatal(err)
	}
	if st := c.Status(); st.Requests != 4 || st.Host != b.host() || st.Failovers != 1 || b.hits.Load() != 1 {
		t.Fatalf("refused first host: requests %d host %s failovers %d, second host hits %d", st.Requests, st.Host, st.Failovers, b.hits.Load())
	}

	// Both down: every attempt is counted in the error.
	b.mode.Store(int32(badGateway))
	clock.Advance(10 * time.Minute)
	err := klines(c)
	wantErr(t, err, KindHTTPStatus, 1+3, "") // one probe of the refused host, three tries of the second
	before := c.Status().Requests
	// Every host cools down now: only the one whose cool-down ends first
	// (the second: 10 minutes against the twice-failed first one's 20) is
	// asked, with its retries.
	err = klines(c)
	wantErr(t, err, KindHTTPStatus, 3, "")
	if got := c.Status().Requests - before; got != 3 {
		t.Errorf("with every host cooling down a call sent %d requests, want 3 (one host)", got)
	}
}

// What is wrong with the request, not the host, is returned as it is: a
// 400 or an rc fails the call on the first host and moves nothing.
func TestAnswersDoNotFailOver(t *testing.T) {
	for _, tc := range []struct {
		name string
		mode hostMode
		kind Kind
	}{
		{"400", badRequest, KindHTTPStatus},
		{"rc 100", rcError, KindRC},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := market.NewFixedClock(testNow())
			a, b := newFakeHost(t, tc.mode), newFakeHost(t, answers)
			c := newFailoverHis(t, clock, a.srv.URL, b.srv.URL)
			wantErr(t, klines(c), tc.kind, 1, "")
			a.mode.Store(int32(answers))
			if err := klines(c); err != nil {
				t.Fatal(err)
			}
			if got := hits(a, b); !sameHits(got, 2, 0) {
				t.Errorf("hits %v, want [2 0]: the first host stays in use", got)
			}
			if st := c.Status(); st.Failovers != 0 || st.Host != a.host() {
				t.Errorf("failovers %d host %s", st.Failovers, st.Host)
			}
		})
	}
}

// A caller that sees a ban the client cannot (an empty answer for a code
// that had bars) reports it: the host of the last answer cools down for
// twice the cool-down and the next call goes to the next host.
func TestSuspectBanFailsOver(t *testing.T) {
	clock := market.NewFixedClock(testNow())
	a, b := newFakeHost(t, answers), newFakeHost(t, answers)
	c := newFailoverHis(t, clock, a.srv.URL, b.srv.URL)
	if err := klines(c); err != nil {
		t.Fatal(err)
	}
	c.SuspectBan()
	if err := klines(c); err != nil {
		t.Fatal(err)
	}
	if got := hits(a, b); !sameHits(got, 1, 1) {
		t.Fatalf("after SuspectBan: hits %v, want [1 1]", got)
	}
	if st := c.Status(); st.Host != b.host() || st.Failovers != 1 || st.BanSigns != 1 {
		t.Errorf("status: host %s failovers %d ban signs %d", st.Host, st.Failovers, st.BanSigns)
	}
	clock.Advance(10 * time.Minute)
	_ = klines(c)
	clock.Advance(10 * time.Minute)
	_ = klines(c)
	if got := hits(a, b); !sameHits(got, 2, 2) {
		t.Errorf("hits %v, want [2 2]: back on the first host after 20 minutes, not 10", got)
	}
}

// The hosts of a source draw from one limiter, the first host's (or the
// rate group's): a failover moves requests to another host without
// adding to the rate EastMoney sees.
func TestFailoverSharesTheRateCap(t *testing.T) {
	for _, group := range []string{"", "eastmoney"} {
		t.Run("group "+group, func(t *testing.T) {
			clock := market.NewFixedClock(testNow())
			a, b := newFakeHost(t, badGateway), newFakeHost(t, answers)
			cfg := testSource(a.srv.URL)
			cfg.Fallbacks = []string{b.srv.URL}
			cfg.FailoverCooldown = 10 * time.Minute
			cfg.Retries, cfg.Rate, cfg.Burst, cfg.RateGroup = -1, 1, 1, group
			lims := NewLimiters()
			c, err := NewPush2His(cfg, lims, clock)
			if err != nil {
				t.Fatal(err)
			}
			key := group
			if key == "" {
				key = a.host()
			}
			if c.f.lim != lims.For(key, 1, 1) {
				t.Fatal("the source's limiter is not its first host's (or its group's)")
			}
			rs := &sleepRecorder{clock: clock}
			c.f.sleep = rs.sleep
			for range 3 {
				if err := klines(c); err != nil {
					t.Fatal(err)
				}
			}
			// Four requests at 1/s with a burst of 1: the first is free,
			// each of the other three waits a second, the second host's
			// first included.
			if got := hits(a, b); !sameHits(got, 1, 3) {
				t.Fatalf("hits %v, want [1 3]", got)
			}
			if len(rs.waits) != 3 || rs.waits[0] != time.Second || rs.waits[1] != time.Second || rs.waits[2] != time.Second {
				t.Errorf("limiter waits %v, want three of 1s", rs.waits)
			}
			if len(lims.m) != 1 {
				t.Errorf("%d limiters, want 1: a fallback host must not get a cap of its own", len(lims.m))
			}
		})
	}
}

// Fallback URLs are checked like the base URL.
func TestFallbackURLsChecked(t *testing.T) {
	for _, bad := range []string{"82.push2.eastmoney.com", "ftp://push2delay.eastmoney.com", "https://"} {
		cfg := testSource("http://push2his.eastmoney.invalid")
		cfg.Fallbacks = []string{bad}
		if _, err := NewPush2His(cfg, NewLimiters(), nil); err == nil {
			t.Errorf("fallback %q accepted", bad)
		}
	}
}

// The clients fill only what they are given: a client pointed at a test
// server never fails over to EastMoney's hosts by itself.
func TestFallbacksNotDefaulted(t *testing.T) {
	c := newTestHis(t, "http://127.0.0.1:9")
	if n := len(c.f.hosts.hosts); n != 1 {
		t.Errorf("a client with no Fallbacks has %d hosts", n)
	}
	if d := DefaultConfig(); len(d.Push2.Fallbacks) == 0 || len(d.Push2His.Fallbacks) == 0 || d.AKShare.Fallbacks != nil ||
		DefaultHotRankConfig().SourceConfig.Fallbacks != nil || DefaultNewsConfig().EastMoney.Fallbacks != nil || DefaultFinanceConfig().Fallbacks != nil {
		t.Error("only push2 and push2his (and the hot rank's names, on push2) have alternates by default")
	}
}

// A client made from DefaultConfig and pointed at a test server or a
// relay keeps that one host: the default alternates are EastMoney's, and
// going to them would take a test to the internet (the API harness did, and
// its metrics test failed whenever the sibling family's call went there).
func TestDefaultAlternatesStayWithTheDefaultHost(t *testing.T) {
	for _, cfg := range []SourceConfig{DefaultConfig().Push2.SourceConfig, DefaultConfig().Push2His} {
		if got := cfg.Hosts(); len(got) != 3 || got[0] != cfg.BaseURL {
			t.Errorf("%s: hosts %v, want it and its two alternates", cfg.BaseURL, got)
		}
		def := cfg.BaseURL
		cfg.BaseURL = "http://127.0.0.1:9"
		c, err := NewPush2His(cfg, NewLimiters(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(c.f.hosts.hosts); n != 1 {
			t.Errorf("%s moved to a test server: %d hosts, want 1", def, n)
		}
		cfg.BaseURL = def + "/"
		if got := cfg.Hosts(); len(got) != 3 {
			t.Errorf("%s with a trailing slash lost its alternates: %v", def, got)
		}
		cfg.BaseURL = "http://relay:8080"
		cfg.Fallbacks = []string{cfg.Fallbacks[1], cfg.Fallbacks[0]}
		if got := cfg.Hosts(); len(got) != 3 {
			t.Errorf("alternates listed on purpose behind a relay were dropped: %v", got)
		}
	}
}

func TestBanSign(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  *Error
		want bool
	}{
		{"reset", transportErr(context.Background(), &url.Error{Op: "Get", URL: "http://h/p", Err: &net.OpError{Op: "read", Err: os.NewSyscallError("read", syscall.ECONNRESET)}}).(*Error), true},
		{"reset on Windows", &Error{Kind: KindTransport, Err: &net.OpError{Op: "read", Err: os.NewSyscallError("wsarecv", syscall.Errno(10054))}}, true},
		{"closed without an answer", transportErr(context.Background(), &url.Error{Op: "Get", URL: "http://h/p", Err: io.EOF}).(*Error), true},
		{"HTML page", &Error{Kind: KindHTML}, true},
		{"refused", &Error{Kind: KindTransport, Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}, false},
		{"timeout", &Error{Kind: KindTimeout}, false},
		{"502", &Error{Kind: KindHTTPStatus, Status: 502}, false},
		{"empty list", &Error{Kind: KindEmpty}, false},
	} {
		if got := banSign(tc.err); got != tc.want {
			t.Errorf("banSign(%s: %v) = %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
}
