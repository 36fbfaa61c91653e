package doctor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"mdqs/db/dbtest"
	"mdqs/internal/config"
	"mdqs/internal/market"
)

// mdqsLike answers /healthz as mdqs does.
func mdqsLike() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Mdqs-Instance", "desk:8080")
		if r.URL.Path != "/healthz" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(`{"status":"ok"}`))
	})
}

func TestPortCheck(t *testing.T) {
	running := httptest.NewServer(mdqsLike())
	defer running.Close()
	other := httptest.NewServer(http.NotFoundHandler()) // a web server of another program
	defer other.Close()
	silent, err := net.Listen("tcp", "127.0.0.1:0") // a program that holds the port and never answers
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	free, _ := net.Listen("tcp", "127.0.0.1:0")
	freeAddr := free.Addr().String()
	free.Close()

	for _, tt := range []struct {
		name, addr string
		want       Status
		found, fix string
	}{
		{"free", freeAddr, OK, "is free", ""},
		{"held by a running mdqs", running.Listener.Addr().String(), Warn, "held by an mdqs that is running (instance desk:8080", "-addr 127.0.0.1:8081"},
		{"held by another web server", other.Listener.Addr().String(), Fail, "held by another program", "stop that program"},
		{"held by a program that does not answer", silent.Addr().String(), Fail, "held by another program", "server.addr"},
		{"an address of no interface here", "192.0.2.1:8080", Fail, "cannot listen on 192.0.2.1:8080", "HOST:PORT of this machine"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := config.Default()
			cfg.Server.Addr = tt.addr
			d := testDeps(cfg, time.Now())
			d.Timeout = 300 * time.Millisecond
			got := checkPort(context.Background(), d)
			if got.Status != tt.want || !strings.Contains(got.Found, tt.found) || !strings.Contains(got.Fix, tt.fix) {
				t.Errorf("checkPort(%s) = %s %q (fix %q); want %s, %q, %q", tt.addr, got.Status, got.Found, got.Fix, tt.want, tt.found, tt.fix)
			}
		})
	}
}

// upstreams are local stand-ins for the upstream hosts of a live
// configuration.
type upstreams struct {
	ok, broken, slow *httptest.Server
	closed           string // a URL where nothing listens
}

func newUpstreams(t *testing.T) *upstreams {
	u := &upstreams{
		ok: httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"rc":0,"data":{}}`))
		})),
		broken: httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "maintenance", http.StatusServiceUnavailable)
		})),
		slow: httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done() // answers after the client gave up
		})),
	}
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	u.closed = "http://" + ln.Addr().String()
	ln.Close()
	t.Cleanup(func() { u.ok.Close(); u.broken.Close(); u.slow.CloseClientConnections(); u.slow.Close() })
	return u
}

// liveConfig is a live configuration whose every upstream is url.
func liveConfig(url string) config.Config {
	cfg := config.Default()
	cfg.Sources.Default = "push2"
	cfg.Sources.Push2.BaseURL, cfg.Sources.Push2.FallbackURLs = url, nil
	cfg.Sources.Push2His.BaseURL, cfg.Sources.Push2His.FallbackURLs = url, nil
	for _, u := range []*config.Upstream{&cfg.Sources.AKShare, &cfg.HotRank.EastMoney, &cfg.News.EastMoney, &cfg.News.Notices, &cfg.News.CLS,
		&cfg.Finance.DataCenter, &cfg.LHB.DataCenter, &cfg.LimitPools.Push2Ex, &cfg.Securities.SSE, &cfg.Securities.SZSE} {
		u.BaseURL = url
	}
	return cfg
}

func TestUpstreamChecks(t *testing.T) {
	u := newUpstreams(t)
	for _, tt := range []struct {
		name       string
		base       string
		fallbacks  []string
		demo       bool
		want       Status
		found, fix string
	}{
		{"answers", u.ok.URL, nil, false, OK, "answers 200 OK in", ""},
		{"answers with an error", u.broken.URL, nil, false, Warn, "answers 503 Service Unavailable", "refusing this address"},
		{"nothing listens", u.closed, nil, false, Fail, "connection refused", "push2.proxy"},
		{"no answer in time", u.slow.URL, nil, false, Fail, "no answer within 300ms", "firewall"},
		{"down, its alternate answers", u.closed, []string{u.broken.URL, u.ok.URL}, false, Warn, "its alternate " + u.ok.URL + " answers 200", "while the alternate answers"},
		{"down in demo mode", u.closed, nil, true, Warn, "demo mode does not use it; going live needs it", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := liveConfig(tt.base)
			if tt.demo {
				cfg.Sources.Default = "demo"
			}
			cfg.Sources.Push2.FallbackURLs = tt.fallbacks
			d := testDeps(cfg, time.Now())
			d.Timeout = 300 * time.Millisecond
			p := probesFor(cfg)[0]
			got := upstreamCheck(cfg, p, ask(context.Background(), d, p))
			if got.Name != "upstream push2" || got.Status != tt.want || !strings.Contains(got.Found, tt.found) || !strings.Contains(got.Fix, tt.fix) {
				t.Errorf("%s = %s %q (fix %q); want %s, %q, %q", got.Name, got.Status, got.Found, got.Fix, tt.want, tt.found, tt.fix)
			}
		})
	}
}

// The upstreams asked are those of the mode: AKTools for auto and
// akshare only, each dataset's host where it is on; in demo mode the
// same as a live start would ask, none needed.
func TestProbesFor(t *testing.T) {
	names := func(cfg config.Config) (all, needed []string) {
		for _, p := range probesFor(cfg) {
			all = append(all, p.name)
			if p.needed {
				needed = append(needed, p.name)
			}
		}
		return all, needed
	}
	push2 := config.Default()
	push2.Sources.Default = "push2"
	auto := push2
	auto.Sources.Default = "auto"
	auto.News.Source, auto.News.Announcements, auto.LimitPools.Import, auto.Securities.Delisted = "cls", false, false, false
	for _, tt := range []struct {
		name         string
		cfg          config.Config
		all, needed  []string
		push2Request bool
	}{
		{"push2", push2, []string{"sources.push2", "sources.push2his", "hot_rank.eastmoney", "news.eastmoney", "news.notices", "finance.datacenter",
			"lhb.datacenter", "limit_pools.push2ex", "securities.sse", "securities.szse"}, []string{"sources.push2", "sources.push2his"}, true},
		{"auto, fewer datasets", auto, []string{"sources.push2", "sources.push2his", "sources.akshare", "hot_rank.eastmoney", "news.cls",
			"finance.datacenter", "lhb.datacenter"}, []string{"sources.push2", "sources.push2his", "sources.akshare"}, true},
		{"demo", config.Default(), []string{"sources.push2", "sources.push2his"}, nil, true},
	} {
		all, needed := names(tt.cfg)
		if !slices.Equal(all, tt.all) || !slices.Equal(needed, tt.needed) {
			t.Errorf("probesFor(%s) = %q, needed %q;\nwant %q, needed %q", tt.name, all, needed, tt.all, tt.needed)
		}
		if p := probesFor(tt.cfg)[0]; p.base != "https://push2.eastmoney.com" || len(p.fallbacks) != 2 || !strings.HasPrefix(p.path, "/api/qt/clist/get?") {
			t.Errorf("probesFor(%s)[0] = %+v, want push2's clist with its alternates", tt.name, p)
		}
	}
}

func TestClockCheck(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})) // net/http stamps Date
	defer srv.Close()
	for _, tt := range []struct {
		name   string
		offset time.Duration // of this machine's clock from the server's
		want   Status
		found  string
	}{
		{"right", 0, OK, "agrees with sources.push2's Date header"},
		{"30 s ahead", 30 * time.Second, OK, "ahead of sources.push2's Date header, within auth.max_clock_skew (1m0s)"},
		{"30 s behind", -30 * time.Second, OK, "behind sources.push2's"},
		{"90 s ahead", 90 * time.Second, Fail, "beyond auth.max_clock_skew (1m0s)"},
		{"an hour behind", -time.Hour, Fail, "1h0m"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := liveConfig(srv.URL)
			d := testDeps(cfg, time.Now().Add(tt.offset))
			ps := probesFor(cfg)[:1]
			got := checkClock(d, ps, []answer{ask(context.Background(), d, ps[0])})
			if got.Status != tt.want || !strings.Contains(got.Found, tt.found) || (tt.want == Fail) != strings.Contains(got.Fix, "Sync now") {
				t.Errorf("checkClock = %s %q (fix %q); want %s, %q", got.Status, got.Found, got.Fix, tt.want, tt.found)
			}
		})
	}
	if got := checkClock(testDeps(config.Default(), time.Now()), nil, nil); got.Status != Skip {
		t.Errorf("checkClock with no answer = %s %q, want skip", got.Status, got.Found)
	}
}

func TestServiceCheck(t *testing.T) {
	for _, tt := range []struct {
		state ServiceState
		want  Status
		found string
	}{
		{ServiceState{Name: "mdqs"}, OK, "service mdqs is not installed"},
		{ServiceState{Name: "mdqs", Platform: "linux-systemd", Installed: true, Running: true}, OK, "installed and running"},
		{ServiceState{Name: "desk", Platform: "windows-service", Installed: true}, OK, "service desk (windows-service) is installed and stopped"},
		{ServiceState{Name: "mdqs", User: true}, OK, "user service mdqs is not installed"},
		{ServiceState{Name: "mdqs", Err: errors.New("no service system detected")}, Skip, "no service system detected"},
	} {
		if got := checkService(tt.state); got.Status != tt.want || !strings.Contains(got.Found, tt.found) {
			t.Errorf("checkService(%+v) = %s %q, want %s %q", tt.state, got.Status, got.Found, tt.want, tt.found)
		}
	}
}

// One run: every check in its order, the tally, and the JSON a script
// reads; a dead upstream fails it, and a bad configuration skips the rest.
func TestRun(t *testing.T) {
	u := newUpstreams(t)
	friday := market.NewDay(2026, time.November, 20)
	term := filepath.Join(t.TempDir(), "new_tdx")
	fakeTerminal(t, term, friday, true)
	cfg := liveConfig(u.ok.URL)
	cfg.Server.Addr = "127.0.0.1:0"
	cfg.Server.DB = filepath.Join(t.TempDir(), "mdqs.db")
	cfg.TDX.Dir = term
	cfg.Sources.Push2His.BaseURL = u.closed // bars: needed, so this blocks
	d := testDeps(cfg, time.Now())
	d.ConfigFrom, d.SQLiteSchema = "config.toml", dbtest.SQLiteSchema(t)
	d.Service = func() ServiceState { return ServiceState{Name: "mdqs", Platform: "test"} }
	rep := Run(context.Background(), d)

	var names []string
	for _, c := range rep.Checks {
		names = append(names, c.Name+"="+string(c.Status))
	}
	// The terminal's bars end on 2026-11-20: today is later, so it warns.
	want := []string{"configuration=ok", "port=ok", "store=warn", "terminal=warn", "upstream push2=ok", "upstream push2his=fail",
		"upstream hot_rank.eastmoney=ok", "upstream news.eastmoney=ok", "upstream news.notices=ok", "upstream finance.datacenter=ok",
		"upstream lhb.datacenter=ok", "upstream limit_pools.push2ex=ok", "upstream securities.sse=ok", "upstream securities.szse=ok",
		"clock=ok", "service=ok"}
	if !slices.Equal(names, want) {
		t.Errorf("checks:\n%q\nwant\n%q", names, want)
	}
	if rep.Blocking != 1 || rep.Warnings != 2 || !slices.Equal(rep.Failed(), []string{"upstream push2his"}) || rep.Mode != "live" {
		t.Errorf("tally: %d blocking %v, %d warnings, mode %q", rep.Blocking, rep.Failed(), rep.Warnings, rep.Mode)
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Blocking int `json:"blocking"`
		Checks   []struct {
			Name, Status, Found, Fix string
			Details                  map[string]any
		} `json:"checks"`
	}
	if err := json.Unmarshal(b, &back); err != nil || back.Blocking != 1 || len(back.Checks) != len(want) || back.Checks[5].Details["base"] == nil {
		t.Errorf("JSON: %v\n%s", err, b)
	}
	var text bytes.Buffer
	WriteText(&text, rep)
	for _, w := range []string{"FAIL  upstream push2his", "fix: check the network", "1 blocking problem(s) (upstream push2his), 2 warning(s)"} {
		if !strings.Contains(text.String(), w) {
			t.Errorf("text lacks %q:\n%s", w, text.String())
		}
	}

	d.ConfigErr = fmt.Errorf(`config config.toml: unknown key "sources.defualt" (line 3)`)
	rep = Run(context.Background(), d)
	if rep.Blocking != 1 || rep.Checks[0].Name != "configuration" || rep.Checks[0].Status != Fail || rep.Checks[1].Status != Skip {
		t.Errorf("a run with a bad configuration: %+v", rep)
	}
}
