package doctor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"time"

	"mdqs/internal/config"
	"mdqs/internal/market"
	"mdqs/internal/upstream"
)

// probe is one upstream as the configuration sets it, and the small
// request that shows it answers.
type probe struct {
	name      string // the configuration's key: sources.push2, news.cls, ...
	base      string
	fallbacks []string
	path      string // "/" where any answer will do
	proxy     string
	timeout   time.Duration
	// needed: a live server's answers come from it, so a live start
	// without it serves nothing of use (the others feed one dataset each).
	needed bool
}

// Paths of a real, small request of push2 and push2his (one sector of one
// board list; one daily bar of the SSE Composite), so that an address
// that bans or blocks them shows, not only one that is down.
const (
	push2Probe    = "/api/qt/clist/get?pn=1&pz=1&po=1&np=1&fltt=2&invt=2&fid=f3&fs=m:90+t:2&fields=f12,f14"
	push2hisProbe = "/api/qt/stock/kline/get?secid=1.000001&klt=101&fqt=0&lmt=1&end=20500101&fields1=f1&fields2=f51"
)

// probesFor lists the upstreams a live start of cfg asks: push2 and
// push2his always, AKTools for auto and akshare, and each dataset's own
// host where it is on. Demo mode asks none of them; push2 and push2his,
// which every live mode needs, are asked (not needed) to say whether
// going live would find them.
func probesFor(cfg config.Config) []probe {
	live := !cfg.DemoMode()
	mirrored := func(name string, m config.Mirrored, path string) probe {
		return probe{name: name, base: m.BaseURL, fallbacks: m.FallbackURLs, path: path, proxy: m.Proxy, timeout: m.Timeout.Duration, needed: live}
	}
	single := func(name string, u config.Upstream) probe {
		return probe{name: name, base: u.BaseURL, path: "/", proxy: u.Proxy, timeout: u.Timeout.Duration}
	}
	ps := []probe{mirrored("sources.push2", cfg.Sources.Push2, push2Probe), mirrored("sources.push2his", cfg.Sources.Push2His, push2hisProbe)}
	if !live {
		return ps
	}
	if s := cfg.Sources.Default; s == "auto" || s == "akshare" {
		p := single("sources.akshare", cfg.Sources.AKShare)
		p.needed = true
		ps = append(ps, p)
	}
	ps = append(ps, single("hot_rank.eastmoney", cfg.HotRank.EastMoney))
	if cfg.News.Source == "cls" {
		ps = append(ps, single("news.cls", cfg.News.CLS))
	} else {
		ps = append(ps, single("news.eastmoney", cfg.News.EastMoney))
	}
	if cfg.News.Announcements {
		ps = append(ps, single("news.notices", cfg.News.Notices))
	}
	ps = append(ps, single("finance.datacenter", cfg.Finance.DataCenter), single("lhb.datacenter", cfg.LHB.DataCenter))
	if cfg.LimitPools.Import {
		ps = append(ps, single("limit_pools.push2ex", cfg.LimitPools.Push2Ex))
	}
	if cfg.Securities.Delisted {
		ps = append(ps, single("securities.sse", cfg.Securities.SSE), single("securities.szse", cfg.Securities.SZSE))
	}
	return ps
}

// reply is one host's answer to a probe.
type reply struct {
	URL    string        `json:"url"`
	Status int           `json:"status,omitempty"` // 0: no answer
	Took   time.Duration `json:"-"`
	TookMS float64       `json:"ms"`
	Error  string        `json:"error,omitempty"`
	date   time.Time     // the Date header; zero when none
	local  time.Time     // this machine's clock when the answer came
}

// answer is a probe's replies: its base URL's, then each alternate's.
type answer struct {
	Base      reply   `json:"base"`
	Fallbacks []reply `json:"fallbacks,omitempty"`
}

// ask sends a probe to its base URL and alternates, side by side.
func ask(ctx context.Context, d Deps, p probe) answer {
	timeout := d.Timeout
	if p.timeout > 0 {
		timeout = min(timeout, p.timeout)
	}
	client := d.HTTP
	if client == nil {
		proxy, err := upstream.ProxyFunc(p.proxy)
		if err != nil {
			return answer{Base: reply{URL: p.base + p.path, Error: err.Error()}}
		}
		client = &http.Client{Transport: &http.Transport{Proxy: proxy, ForceAttemptHTTP2: true, TLSHandshakeTimeout: timeout}}
	}
	hosts := append([]string{p.base}, p.fallbacks...)
	replies := make([]reply, len(hosts))
	var wg sync.WaitGroup
	for i, h := range hosts {
		wg.Go(func() { replies[i] = get(ctx, client, d.Clock, strings.TrimRight(h, "/")+p.path, timeout) })
	}
	wg.Wait()
	return answer{Base: replies[0], Fallbacks: replies[1:]}
}

// get sends one GET and times it, the body read in full (as a source
// reads it), at most 1 MB.
func get(ctx context.Context, client *http.Client, clock market.Clock, url string, timeout time.Duration) reply {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	r := reply{URL: url}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	req.Header.Set("User-Agent", upstream.DefaultUserAgent)
	start := time.Now()
	resp, err := client.Do(req)
	if err == nil {
		_, err = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		r.Status = resp.StatusCode
		r.date, _ = http.ParseTime(resp.Header.Get("Date"))
		r.local = clock.Now()
	}
	r.Took = time.Since(start)
	r.TookMS = float64(r.Took.Microseconds()) / 1000
	if err != nil {
		r.Error = why(err, timeout)
		if r.Status != 0 {
			r.Error = "the answer broke off: " + r.Error
		}
	}
	return r
}

// why says in plain words why a request got no answer.
func why(err error, timeout time.Duration) string {
	var dns *net.DNSError
	var ne net.Error
	switch {
	case errors.As(err, &dns):
		return fmt.Sprintf("the name %s does not resolve (no network, or a DNS that blocks it)", dns.Name)
	case errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.Errno(10061)): // WSAECONNREFUSED
		return "connection refused: nothing listens there"
	case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout():
		return fmt.Sprintf("no answer within %s", timeout)
	}
	return err.Error()
}

// answered: an HTTP status came back. A probe of "/" takes any status
// below 500 as a working host; a real request wants a 2xx.
func (r reply) fine(path string) bool {
	if path == "/" {
		return r.Status > 0 && r.Status < 500 && r.Error == ""
	}
	return r.Status >= 200 && r.Status < 300 && r.Error == ""
}

func (r reply) said() string {
	if r.Status == 0 {
		return r.Error
	}
	s := fmt.Sprintf("answers %d %s in %d ms", r.Status, http.StatusText(r.Status), r.Took.Milliseconds())
	if r.Error != "" {
		s += ", " + r.Error
	}
	return s
}

// upstreamCheck says what a probe's answer means for a start.
func upstreamCheck(cfg config.Config, p probe, a answer) Check {
	ck := Check{Name: "upstream " + strings.TrimPrefix(p.name, "sources."), Details: a}
	unused := ""
	if cfg.DemoMode() {
		unused = " (demo mode does not use it; going live needs it)"
	}
	host := p.base
	switch {
	case a.Base.fine(p.path):
		ck.Status, ck.Found = OK, host+" "+a.Base.said()
		return ck
	case a.Base.Status != 0:
		// It answers, but not with data: a ban, a maintenance page.
		ck.Status, ck.Found = Warn, host+" "+a.Base.said()+unused
		ck.Fix = "requests get an error status: the host may be refusing this address (too many requests, or a firewall); wait, or try another network"
		if len(p.fallbacks) > 0 {
			ck.Fix += "; mdqs fails over to " + strings.Join(p.fallbacks, ", ")
		}
		return ck
	}
	for _, f := range a.Fallbacks {
		if f.fine(p.path) {
			ck.Status = Warn
			ck.Found = fmt.Sprintf("%s: %s; its alternate %s %s, which mdqs fails over to%s", host, a.Base.said(), f.URL[:len(f.URL)-len(p.path)], f.said(), unused)
			ck.Fix = "nothing is needed while the alternate answers; if " + host + " stays unreachable, check a firewall or proxy for it"
			return ck
		}
	}
	ck.Status, ck.Found = Warn, host+": "+a.Base.said()+unused
	if p.needed {
		ck.Status = Fail
	}
	ck.Fix = "check the network: a firewall, or a proxy to set as " + p.name + ".proxy (\"env\" reads HTTPS_PROXY)"
	if p.name == "sources.akshare" {
		ck.Fix = "start AKTools on this machine (python -m aktools --port 8081, for " + host + "), or set " + p.name + ".base_url to where it runs"
	}
	if !p.needed && !cfg.DemoMode() {
		ck.Fix += "; until then, only its own data (" + strings.Split(p.name, ".")[0] + ") are missing"
	}
	return ck
}

// checkClock compares this machine's clock with the first upstream's
// Date header (half the round trip added): signed requests are refused
// outside auth.max_clock_skew of the server's clock, so a client with the
// right time cannot call a server whose clock is off by more, and the
// trading day and window move with the clock.
func checkClock(d Deps, probes []probe, answers []answer) Check {
	ck := Check{Name: "clock"}
	skew := d.Config.Auth.MaxClockSkew.Duration
	for i, a := range answers {
		for _, r := range append([]reply{a.Base}, a.Fallbacks...) {
			if r.date.IsZero() {
				continue
			}
			// The Date header is whole seconds, the server's time of
			// answering somewhere in the second it names (its middle,
			// then), so this machine's clock is told within a second.
			off := r.local.Sub(r.date.Add(time.Second/2 + r.Took/2)).Round(time.Second)
			abs := off.Abs()
			where := fmt.Sprintf("ahead of %s's", probes[i].name)
			if off < 0 {
				where = fmt.Sprintf("behind %s's", probes[i].name)
			}
			ck.Details = map[string]any{"offset_ms": off.Milliseconds(), "against": r.URL, "max_clock_skew_ms": skew.Milliseconds()}
			switch {
			case abs <= time.Second:
				ck.Status, ck.Found = OK, fmt.Sprintf("this machine's clock agrees with %s's Date header (within a second)", probes[i].name)
			case abs <= skew:
				ck.Status, ck.Found = OK, fmt.Sprintf("this machine's clock is %s %s Date header, within auth.max_clock_skew (%s)", abs, where, skew)
			default:
				ck.Status, ck.Found = Fail, fmt.Sprintf("this machine's clock is %s %s Date header, beyond auth.max_clock_skew (%s): "+
					"signed requests of a client with the right time are refused, and the trading window moves with the clock", abs, where, skew)
				ck.Fix = "set the clock right: Windows: Settings → Time & language → Sync now (time.windows.com); Linux: timedatectl set-ntp true"
			}
			return ck
		}
	}
	ck.Status, ck.Found = Skip, "no upstream answered with a Date header to compare this machine's clock with"
	return ck
}
