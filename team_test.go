package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"mdqs/db/dbtest"
	"mdqs/internal/auth"
	"mdqs/internal/bridge/bridgetest"
	"mdqs/internal/cli"
	"mdqs/internal/client"
	"mdqs/internal/loadgen"
	"mdqs/internal/market"
	"mdqs/internal/sharedstate/redistest"
	"mdqs/internal/upstream/upstreamtest"
)

// Issue 15, end to end: three real mdqs processes on one PostgreSQL schema
// and one Redis, as README "Several instances: PostgreSQL and Redis"
// describes them. Each process is this test binary re-executed as
// TestTeamHelperProcess, which runs serve with a clock that starts at 10:00
// of a trading day and runs at real speed (every process agrees on it), so
// the collection window is open whatever the wall time. Each instance has
// a push2 of its own (the sector lists of upstreamtest.NewPush2 and a small
// stock list), so the test sees which instance asks the upstream; every
// other upstream is a closed port.

const (
	// teamHelperEnv carries a helper's teamHelperSpec (JSON).
	teamHelperEnv = "MDQS_TEAM_HELPER"
	// teamListening starts the line a helper prints once it listens.
	teamListening = "mdqs-team-helper listening "
	// teamInterval is market.boards_top50_refresh_ms: the collector's
	// interval (and the ranking's soft freshness).
	teamInterval = time.Second
	// teamLeaderPoll is server.leader_poll.
	teamLeaderPoll = 100 * time.Millisecond
)

// teamClock is the market clock of every process of the test: it reads
// start at the wall instant anchor and runs at real speed from there.
type teamClock struct {
	start  time.Time // a market instant inside the collection window
	anchor time.Time // a wall-clock instant without a monotonic reading
}

func (c teamClock) Now() time.Time { return c.start.Add(time.Now().Sub(c.anchor)) }

// teamHelperSpec is what a helper process serves with.
type teamHelperSpec struct {
	Args   []string  `json:"args"`
	Start  time.Time `json:"start"`
	Anchor int64     `json:"anchor"` // unix nanoseconds
	// Dir is the helper's working folder, which holds its configuration
	// file (the demo terminal's folders go beside it on a PostgreSQL
	// store); "": a temporary one, never the package's folder
	// (testservers.Run fails a run that litters it).
	Dir string `json:"-"`
}

func (s teamHelperSpec) clock() teamClock {
	return teamClock{start: s.Start.In(market.Shanghai()), anchor: time.Unix(0, s.Anchor)}
}

// TestTeamHelperProcess is one instance of TestTeamSeveralInstancesSharePostgresAndRedis:
// it serves until interrupted (a clean stop) or killed.
func TestTeamHelperProcess(t *testing.T) {
	raw := os.Getenv(teamHelperEnv)
	if raw == "" {
		t.Skip("the helper process of TestTeamSeveralInstancesSharePostgresAndRedis")
	}
	var spec teamHelperSpec
	if err := json.Unmarshal([]byte(raw), &spec); err != nil {
		t.Fatalf("%s: %v", teamHelperEnv, err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	hooks := serveHooks{
		clock:    spec.clock(),
		demoKDF:  &auth.KDFParams{MemoryKiB: 64, Time: 1, Threads: 1},
		onListen: func(a net.Addr) { fmt.Fprintf(os.Stdout, "%s%s\n", teamListening, a) },
	}
	env := cli.Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: os.Stderr,
		Getenv: func(string) string { return "" }, Version: "test", SQLiteSchema: sqliteSchema}
	if err := serve(ctx, env, spec.Args, hooks); err != nil {
		t.Fatalf("serve: %v", err)
	}
}

// teamHold holds the stock-list requests of every instance's push2 while
// set, so a screen can be caught running.
type teamHold struct {
	mu      sync.Mutex
	release chan struct{} // nil: requests pass
	entered chan string   // the instance whose request is now held
	left    chan string   // a held request ended because its caller gave up
}

func (h *teamHold) set(on bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case on && h.release == nil:
		h.release = make(chan struct{})
	case !on && h.release != nil:
		close(h.release)
		h.release = nil
	}
}

// teamUpstream is one instance's push2: sector lists from a fake push2,
// and a stock list for the screens.
type teamUpstream struct {
	name    string
	srv     *httptest.Server
	sectors *upstreamtest.Server
	at      time.Time
	hold    *teamHold

	mu         sync.Mutex
	sectorReqs int // requests for a sector list (fs m:90 ...): collections
	stockReqs  int // requests for the stock list: screens' quote snapshots
}

func newTeamUpstream(t *testing.T, name string, at time.Time, hold *teamHold) *teamUpstream {
	u := &teamUpstream{name: name, sectors: upstreamtest.NewPush2(t), at: at, hold: hold}
	u.sectors.SetSectors(market.Industry, at, upstreamtest.Sectors("行业", 60))
	u.sectors.SetSectors(market.Concept, at, upstreamtest.Sectors("概念", 80))
	u.srv = httptest.NewServer(http.HandlerFunc(u.serve))
	t.Cleanup(u.srv.Close)
	return u
}

func (u *teamUpstream) serve(w http.ResponseWriter, r *http.Request) {
	if strings.Contains(r.URL.Query().Get("fs"), "m:90") {
		u.mu.Lock()
		u.sectorReqs++
		n := u.sectorReqs
		u.mu.Unlock()
		// A session's sectors move between collections, and a store keeps
		// a collection only when it is new (issue 20): each answer here
		// differs from the last, as the live feed's would.
		for kind, list := range map[market.SectorKind][]market.Sector{
			market.Industry: upstreamtest.Sectors("行业", 60), market.Concept: upstreamtest.Sectors("概念", 80)} {
			list[0].Price += float64(n) / 100
			u.sectors.SetSectors(kind, u.at, list)
		}
		u.sectors.Config.Handler.ServeHTTP(w, r)
		return
	}
	u.mu.Lock()
	u.stockReqs++
	u.mu.Unlock()
	u.hold.mu.Lock()
	release := u.hold.release
	u.hold.mu.Unlock()
	if release != nil {
		u.hold.entered <- u.name
		select {
		case <-release:
		case <-r.Context().Done():
			u.hold.left <- u.name
			return
		}
	}
	if r.URL.Query().Get("pn") != "1" {
		fmt.Fprint(w, `{"rc":0,"rt":6,"svr":1,"lt":1,"full":1,"dlmkts":"","data":null}`)
		return
	}
	rows := make([]string, len(teamStocks))
	for i, s := range teamStocks {
		rows[i] = fmt.Sprintf(`{"f2":%g,"f3":%g,"f4":0.1,"f5":12000,"f6":1.5e7,"f7":2.1,"f8":0.8,"f9":12.5,"f10":1.1,"f12":%q,"f13":%d,`+
			`"f14":%q,"f15":%g,"f16":%g,"f17":%g,"f18":%g,"f20":3e11,"f21":2e11,"f22":0.1,"f23":1.2,"f62":1e6,"f124":%d,"f184":0.7}`,
			s.price, s.pct, s.symbol, s.market, s.name, s.price*1.01, s.price*0.98, s.price*0.99, s.price/(1+s.pct/100), u.at.Unix())
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	fmt.Fprintf(w, `{"rc":0,"rt":6,"svr":1,"lt":1,"full":1,"dlmkts":"","data":{"total":%d,"diff":[%s]}}`, len(rows), strings.Join(rows, ","))
}

func (u *teamUpstream) counts() (sectors, stocks int) {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.sectorReqs, u.stockReqs
}

// teamStocks is the market the screens see: pct > 1 matches two.
var teamStocks = []struct {
	symbol string
	market int // push2 f13: 1 SH, 0 SZ
	name   string
	price  float64
	pct    float64
}{
	{"600519", 1, "贵州茅台", 1500, 2.5},
	{"000001", 0, "平安银行", 11.2, -0.4},
	{"600000", 1, "浦发银行", 8.3, 1.8},
	{"000858", 0, "五粮液", 140, 0.6},
}

// teamInstance is one mdqs process.
type teamInstance struct {
	name   string
	addr   string
	up     *teamUpstream
	cmd    *exec.Cmd
	logs   *loadgen.SyncBuffer
	exited chan struct{}
	demo   *client.Client // the demo client, signing with the test's clock
}

// helperStdout passes a helper's stdout to its log, except the line
// saying where it listens, which it sends on addr.
type helperStdout struct {
	buf  []byte
	addr chan string
	logs io.Writer
}

func (h *helperStdout) Write(p []byte) (int, error) {
	h.buf = append(h.buf, p...)
	for {
		i := bytes.IndexByte(h.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := string(h.buf[:i])
		h.buf = h.buf[i+1:]
		if a, ok := strings.CutPrefix(line, teamListening); ok {
			select {
			case h.addr <- a:
			default:
			}
		} else {
			fmt.Fprintln(h.logs, "stdout: "+line)
		}
	}
}

// teamHelper is the test binary an instance runs: this one, or, when it
// was built with the race detector, a plain build of the same tests
// (built once a run). Under the detector an instance serving the demo
// market at real scale took several times the CPU of a plain one, and
// whatever it might report went to the instance's log, which no test
// reads: the detector watches this process, the test's own side.
func teamHelper(t *testing.T) string {
	t.Helper()
	if !raceEnabled() {
		return os.Args[0]
	}
	bin, err := teamBinary.Path()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// buildPlainTests builds this package's tests into dir without the race
// detector (and without cgo, as mdqs ships).
func buildPlainTests(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "mdqs.test")
	build := exec.CommandContext(ctx, "go", "test", "-c", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go test -c: %w\n%s", err, out)
	}
	return bin, nil
}

// startTeamInstance starts a helper process serving config; it is stopped
// (interrupted, as an operator stops a server) when the test ends.
func startTeamInstance(t *testing.T, name, config, target string, spec teamHelperSpec, up *teamUpstream, clock teamClock) *teamInstance {
	t.Helper()
	if spec.Dir == "" {
		spec.Dir = t.TempDir()
	}
	// Each instance's file in the shared folder: a team's demo terminal
	// folders go beside the configuration.
	cfgPath := filepath.Join(spec.Dir, "config-"+name+".toml")
	if err := os.WriteFile(cfgPath, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	spec.Args = []string{"-config", cfgPath, "-addr", "127.0.0.1:0", "-db", target}
	raw, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	in := &teamInstance{name: name, up: up, logs: &loadgen.SyncBuffer{}, exited: make(chan struct{})}
	addr := make(chan string, 1)
	in.cmd = exec.Command(teamHelper(t), "-test.run=^TestTeamHelperProcess$", "-test.count=1")
	in.cmd.Env = append(os.Environ(), teamHelperEnv+"="+string(raw))
	in.cmd.Dir = spec.Dir
	in.cmd.Stdout = &helperStdout{addr: addr, logs: in.logs}
	in.cmd.Stderr = in.logs
	if err := in.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		in.cmd.Wait()
		close(in.exited)
	}()
	t.Cleanup(func() {
		in.stop()
		if t.Failed() {
			t.Logf("instance %s's log (last lines):\n%s", in.name, lastLines(in.logs.String(), 40))
		}
	})
	select {
	case in.addr = <-addr:
	case <-in.exited:
		t.Fatalf("instance %s exited at start:\n%s", name, in.logs)
	case <-time.After(60 * time.Second):
		t.Fatalf("instance %s did not start within 60 s:\n%s", name, in.logs)
	}
	in.demo = client.New(in.addr, "demo", "demo-secret")
	in.demo.Now = clock.Now
	return in
}

// stop interrupts the process and waits for it (kills it after 20 s).
func (in *teamInstance) stop() {
	select {
	case <-in.exited:
		return
	default:
	}
	if err := in.cmd.Process.Signal(os.Interrupt); err != nil {
		in.cmd.Process.Kill()
	}
	select {
	case <-in.exited:
	case <-time.After(20 * time.Second):
		in.cmd.Process.Kill()
		<-in.exited
	}
}

// kill is SIGKILL: no shutdown, no release of the leadership.
func (in *teamInstance) kill(t *testing.T) {
	t.Helper()
	if err := in.cmd.Process.Kill(); err != nil {
		t.Fatalf("kill instance %s: %v", in.name, err)
	}
	<-in.exited
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// teamHealth is the data of GET /v1/api/health/instance.
type teamHealth struct {
	Instance string `json:"instance"`
	Leader   bool   `json:"leader"`
	Store    struct {
		Kind string `json:"kind"`
		Up   bool   `json:"up"`
	} `json:"store"`
	Redis *struct {
		Up bool `json:"up"`
	} `json:"redis"`
	StreamRelay *struct {
		Up bool `json:"up"`
	} `json:"stream_relay"`
}

var teamHTTP = &http.Client{Timeout: 5 * time.Second}

func (in *teamInstance) health() (teamHealth, error) {
	resp, err := teamHTTP.Get("http://" + in.addr + "/v1/api/health/instance")
	if err != nil {
		return teamHealth{}, err
	}
	defer resp.Body.Close()
	var env struct {
		Data teamHealth `json:"data"`
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return teamHealth{}, fmt.Errorf("HTTP %d: %s", resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return teamHealth{}, fmt.Errorf("%v: %s", err, body)
	}
	if got := resp.Header.Get("X-MDQS-Instance"); got != in.name || env.Data.Instance != in.name {
		return teamHealth{}, fmt.Errorf("instance %s answers as %q (X-MDQS-Instance %q)", in.name, env.Data.Instance, got)
	}
	return env.Data, nil
}

// leaders asks every instance whether it leads.
func leaders(t *testing.T, ins []*teamInstance) []string {
	t.Helper()
	var out []string
	for _, in := range ins {
		h, err := in.health()
		if err != nil {
			t.Fatalf("health/instance of %s: %v", in.name, err)
		}
		if h.Leader {
			out = append(out, in.name)
		}
	}
	return out
}

// do sends a signed request as c, failing the test on a transport error.
func do(t *testing.T, c *client.Client, method, path string, body any) *client.Response {
	t.Helper()
	var raw []byte
	if body != nil {
		raw, _ = json.Marshal(body)
	}
	resp, err := c.Do(context.Background(), method, path, raw)
	if err != nil {
		t.Fatalf("%s %s on %s: %v", method, path, c.BaseURL, err)
	}
	return resp
}

// teamJob is the data of a screen's status.
type teamJob struct {
	ID    string `json:"id"`
	State string `json:"state"`
	Error string `json:"error"`
}

func jobOf(t *testing.T, what string, resp *client.Response) teamJob {
	t.Helper()
	var env struct {
		Data teamJob `json:"data"`
	}
	if resp.Status != http.StatusOK || json.Unmarshal(resp.Body, &env) != nil || env.Data.ID == "" {
		t.Fatalf("%s: HTTP %d %s", what, resp.Status, resp.Body)
	}
	return env.Data
}

// teamStart is the market instant every process's clock starts at: 10:00
// of a trading day, inside the collection window.
var teamStart = time.Date(2026, 11, 24, 10, 0, 0, 0, market.Shanghai())

// teamConfig is one instance's configuration: live, on push2 at up, every
// other upstream a closed port, a one-second collector and a 100 ms
// leadership poll, the shared Redis under the test's own key prefix (runs
// and packages sharing one Redis keep apart), and the demo client
// (loopback only).
func teamConfig(name, push2, redis, prefix string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[server]\ninstance = %q\nleader_poll = %q\n", name, teamLeaderPoll.String())
	fmt.Fprintf(&b, "[cache]\nredis = %q\nredis_prefix = %q\n", redis, prefix)
	fmt.Fprintf(&b, "[market]\nboards_top50_refresh_ms = %d\nboards_top50_redis_ttl_sec = 2\n", teamInterval.Milliseconds())
	b.WriteString("[limits]\ntoken_rate = 0.0\n[demo]\nlive_client = true\n[screener]\nquote_age = \"1s\"\n")
	b.WriteString("[sources]\ndefault = \"push2\"\n")
	fmt.Fprintf(&b, "[sources.push2]\nbase_url = %q\nretries = 0\nrate = 100.0\nburst = 100\n", push2)
	for _, up := range []string{"sources.push2his", "sources.akshare", "hot_rank.eastmoney",
		"news.eastmoney", "news.notices", "news.cls", "finance.datacenter", "lhb.datacenter", "limit_pools.push2ex",
		"securities.szse", "securities.sse"} {
		fmt.Fprintf(&b, "[%s]\nbase_url = \"http://127.0.0.1:9\"\nretries = 0\n", up)
	}
	return b.String()
}

// collections are the collected_at instants (market clock, ms) of every
// stored collection of a sector family, in order.
func collections(t *testing.T, pg *sql.DB, kind market.SectorKind) []int64 {
	t.Helper()
	rows, err := pg.Query(`SELECT collected_at FROM snapshot_runs WHERE kind = $1 AND source = 'push2' ORDER BY collected_at, id`, string(kind))
	if err != nil {
		t.Fatalf("read the collections: %v", err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var ms int64
		if err := rows.Scan(&ms); err != nil {
			t.Fatal(err)
		}
		out = append(out, ms)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// eventually polls cond every 20 ms until it holds or d passes.
func eventually(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// newTeamEnv is what a team test's instances share, or skips the test
// (what it starts says why it is long): a PostgreSQL schema, Redis and a
// key prefix of the test's own, and a market clock at teamStart from now.
func newTeamEnv(t *testing.T, starts string) (redis, target, prefix string, clock teamClock, spec teamHelperSpec) {
	t.Helper()
	if testing.Short() {
		t.Skip(starts + "; run without -short, with " + dbtest.PostgresEnv + " and " + redistest.Env + " set")
	}
	server := dbtest.NeedPostgres(t)
	redis, target, prefix = redistest.URL(t), dbtest.NewSchema(t, server), redistest.Prefix(t)
	anchor := time.Now().Round(0)
	return redis, target, prefix, teamClock{start: teamStart, anchor: anchor}, teamHelperSpec{Start: teamStart, Anchor: anchor.UnixNano()}
}

func TestTeamSeveralInstancesSharePostgresAndRedis(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three server processes on PostgreSQL and Redis (about 10 s, 15 s under -race); run without -short, with " +
			dbtest.PostgresEnv + " and " + redistest.Env + " set")
	}
	server := dbtest.NeedPostgres(t)
	redis := redistest.URL(t)
	target := dbtest.NewSchema(t, server)
	pg, err := sql.Open("pgx", target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pg.Close() })

	prefix := redistest.Prefix(t)
	start := teamStart
	if !market.DefaultCalendar().IsTradingDay(market.DayOf(start)) {
		t.Fatalf("%s is no trading day of the built-in calendar", start.Format(time.DateOnly))
	}
	anchor := time.Now().Round(0)
	clock := teamClock{start: start, anchor: anchor}
	spec := teamHelperSpec{Start: start, Anchor: anchor.UnixNano()}
	t.Logf("market clock starts at %s", start.Format(time.DateTime))

	// A client of the deployment's own, made on the store before any
	// instance runs, for the revocation check.
	out, errs, code := mdqs("client", "add", "-db", target, "-id", "desk", "-scopes", "*")
	secret := regexp.MustCompile(`client_secret=(\S+)`).FindStringSubmatch(out)
	if code != 0 || secret == nil {
		t.Fatalf("client add: exit %d\n%s\n%s", code, out, errs)
	}

	hold := &teamHold{entered: make(chan string, 16), left: make(chan string, 16)}
	t.Cleanup(func() { hold.set(false) })
	var ins []*teamInstance
	for _, name := range []string{"a", "b", "c"} {
		up := newTeamUpstream(t, name, start, hold)
		ins = append(ins, startTeamInstance(t, name, teamConfig(name, up.srv.URL, redis, prefix), target, spec, up, clock))
	}
	byName := map[string]*teamInstance{}
	for _, in := range ins {
		byName[in.name] = in
		h, err := in.health()
		if err != nil {
			t.Fatalf("health/instance of %s: %v", in.name, err)
		}
		if h.Store.Kind != "postgresql" || !h.Store.Up || h.Redis == nil || !h.Redis.Up {
			t.Fatalf("instance %s: store %+v, redis %+v; want postgresql up and redis up", in.name, h.Store, h.Redis)
		}
	}
	a, b, c := ins[0], ins[1], ins[2]

	t.Run("every instance answers top50 with the same bytes", func(t *testing.T) {
		// The leader's first collection may still be on its way: wait
		// until every instance has a ranking to serve.
		for _, in := range ins {
			var last *client.Response
			if !eventually(10*time.Second, func() bool {
				last = do(t, in.demo, "GET", "/v1/api/boards/top50", nil)
				return last.Status == http.StatusOK
			}) {
				t.Fatalf("instance %s: top50 never answered 200: HTTP %d %s", in.name, last.Status, last.Body)
			}
		}
		// A ranking is rebuilt every second, so the answers are compared
		// within one build: a's answer is asked again after the others',
		// and when it has not changed meanwhile, every other instance must
		// have answered exactly the same bytes (the ranking object with
		// its build time, ts and updated_ms; no field differs per
		// instance or per request) and the same ETag.
		for attempt := 1; ; attempt++ {
			first := do(t, a.demo, "GET", "/v1/api/boards/top50", nil)
			others := []*client.Response{do(t, b.demo, "GET", "/v1/api/boards/top50", nil), do(t, c.demo, "GET", "/v1/api/boards/top50", nil)}
			again := do(t, a.demo, "GET", "/v1/api/boards/top50", nil)
			if first.Status != http.StatusOK || again.Status != http.StatusOK || !bytes.Equal(first.Body, again.Body) {
				if attempt == 20 {
					t.Fatalf("top50 on a changed between every two requests 20 times in a row; last: HTTP %d then %d", first.Status, again.Status)
				}
				continue
			}
			var r market.Ranking
			if err := json.Unmarshal(first.Body, &r); err != nil || len(r.Industry) == 0 || len(r.Concept) == 0 || r.Source != "push2" {
				t.Fatalf("top50 on a is not a push2 ranking with industries and concepts (%v): %.300s", err, first.Body)
			}
			for i, o := range others {
				name := ins[i+1].name
				if o.Status != http.StatusOK {
					t.Fatalf("top50 on %s: HTTP %d %s", name, o.Status, o.Body)
				}
				if !bytes.Equal(o.Body, first.Body) || o.Header.Get("ETag") != first.Header.Get("ETag") {
					t.Fatalf("top50 on %s differs from a's, which did not change meanwhile:\nETag %s vs %s\n%s: %.400s\na: %.400s",
						name, o.Header.Get("ETag"), first.Header.Get("ETag"), name, o.Body, first.Body)
				}
				if got := o.Header.Get("X-MDQS-Instance"); got != name {
					t.Errorf("top50 on %s says X-MDQS-Instance %q", name, got)
				}
			}
			t.Logf("a, b and c answered the same %d bytes (ETag %s, built %d) after %d attempt(s)",
				len(first.Body), first.Header.Get("ETag"), r.UpdatedMS, attempt)
			return
		}
	})

	t.Run("a nonce used on one instance is refused by the others", func(t *testing.T) {
		token, err := a.demo.Token(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		h := http.Header{}
		a.demo.Sign(h, token, nil)
		send := func(in *teamInstance, h http.Header) (int, string) { return whoamiOn(t, in, h) }
		if status, body := send(a, h); status != http.StatusOK {
			t.Fatalf("the signed request on a: HTTP %d %s; want 200", status, body)
		}
		for _, in := range []*teamInstance{b, c, a} {
			status, body := send(in, h)
			if status != http.StatusUnauthorized || !strings.Contains(body, "nonce already used") {
				t.Errorf("the same request (nonce %s) replayed on %s: HTTP %d %s; want 401 nonce already used", h.Get("X-Nonce"), in.name, status, body)
			}
		}
		// The token itself is good on b: only the nonce was refused.
		fresh := http.Header{}
		a.demo.Sign(fresh, token, nil)
		if status, body := send(b, fresh); status != http.StatusOK {
			t.Errorf("the same token with a fresh nonce on b: HTTP %d %s; want 200", status, body)
		}
	})

	t.Run("a client disabled is refused by every instance within a second", func(t *testing.T) {
		desk := map[string]*client.Client{}
		var token string
		var expires time.Time
		for _, in := range ins {
			cl := client.New(in.addr, "desk", secret[1])
			cl.Now = clock.Now
			cl.Renew = func(*client.Response) bool { return false } // no new token: see the held one refused
			if token == "" {
				var err error
				if token, err = cl.Token(context.Background()); err != nil {
					t.Fatalf("desk's token on a: %v", err)
				}
				_, expires = cl.HeldToken()
			} else {
				cl.SetToken(token, expires) // a token issued by a is good on every instance
			}
			if resp := do(t, cl, "GET", "/v1/api/whoami", nil); resp.Status != http.StatusOK {
				t.Fatalf("desk's whoami on %s before the disable: HTTP %d %s", in.name, resp.Status, resp.Body)
			}
			desk[in.name] = cl
		}
		if _, errs, code := mdqs("client", "disable", "-db", target, "-id", "desk"); code != 0 {
			t.Fatalf("client disable: exit %d %s", code, errs)
		}
		disabled := time.Now()
		// auth.revocation_check is 1 s; 3 s is the deadline of a
		// correct implementation on a loaded machine.
		var wg sync.WaitGroup
		for _, in := range ins {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var last *client.Response
				var err error
				refused := eventually(3*time.Second, func() bool {
					last, err = desk[in.name].Do(context.Background(), "GET", "/v1/api/whoami", nil)
					return err == nil && last.Status == http.StatusUnauthorized
				})
				if !refused {
					t.Errorf("instance %s still answers the disabled client 3 s after the disable: %v %+v", in.name, err, last)
					return
				}
				t.Logf("instance %s refuses the disabled client %v after the disable", in.name, time.Since(disabled).Round(time.Millisecond))
			}()
		}
		wg.Wait()
		// Its secret buys no new token either, and the demo client is
		// untouched.
		for _, in := range ins {
			if _, resp, err := desk[in.name].RequestToken(context.Background()); err == nil || resp == nil || resp.Status != http.StatusUnauthorized {
				t.Errorf("a token for the disabled client on %s: %v", in.name, err)
			}
			if resp := do(t, in.demo, "GET", "/v1/api/whoami", nil); resp.Status != http.StatusOK {
				t.Errorf("the demo client on %s after desk's disable: HTTP %d %s", in.name, resp.Status, resp.Body)
			}
		}
	})

	t.Run("exactly one leader, and only it asks the upstream", func(t *testing.T) {
		var who []string
		if !eventually(3*time.Second, func() bool { who = leaders(t, ins); return len(who) == 1 }) {
			t.Fatalf("leaders %v; want exactly one", who)
		}
		leader := byName[who[0]]
		before, _ := leader.up.counts()
		// Three more collections (each asks for both families).
		if !eventually(8*time.Second, func() bool { n, _ := leader.up.counts(); return n >= before+6 }) {
			n, _ := leader.up.counts()
			t.Fatalf("the leader %s's push2 saw %d sector requests in 8 s; want the scheduled collections every %v", leader.name, n-before, teamInterval)
		}
		if again := leaders(t, ins); len(again) != 1 || again[0] != leader.name {
			t.Fatalf("leaders now %v; want only %s", again, leader.name)
		}
		for _, in := range ins {
			sectors, stocks := in.up.counts()
			if in != leader && sectors+stocks != 0 {
				t.Errorf("follower %s's push2 saw %d sector and %d stock requests; want none", in.name, sectors, stocks)
			}
			t.Logf("%s (leader %v): %d sector requests", in.name, in == leader, sectors)
		}
		// The followers' schedulers left the collection to the leader.
		for _, in := range ins {
			resp, err := teamHTTP.Get("http://" + in.addr + "/v1/api/health/sources")
			if err != nil {
				t.Fatal(err)
			}
			var env struct {
				Data struct {
					Jobs []struct {
						Name     string `json:"name"`
						Runs     int64  `json:"runs"`
						Followed int64  `json:"followed"`
					} `json:"jobs"`
				} `json:"data"`
			}
			json.NewDecoder(resp.Body).Decode(&env)
			resp.Body.Close()
			for _, j := range env.Data.Jobs {
				if j.Name != "collect-sectors" {
					continue
				}
				if in == leader && (j.Runs == 0 || j.Followed != 0) || in != leader && (j.Runs != 0 || j.Followed == 0) {
					t.Errorf("%s (leader %v): collect-sectors ran %d times and followed %d", in.name, in == leader, j.Runs, j.Followed)
				}
			}
		}
	})

	t.Run("a screen submitted on one instance is read and canceled on another", func(t *testing.T) {
		sub := do(t, a.demo, "POST", "/v1/api/screener/queue/submit", map[string]any{"expression": "pct > 1", "sort": "-pct"})
		job := jobOf(t, "submit on a", sub)
		var st teamJob
		if !eventually(15*time.Second, func() bool {
			st = jobOf(t, "status on b", do(t, b.demo, "GET", "/v1/api/screener/queue/status?id="+job.ID, nil))
			return st.State != "queued" && st.State != "running"
		}) || st.State != "succeeded" {
			t.Fatalf("screen %s polled on b: state %q (%s); want succeeded", job.ID, st.State, st.Error)
		}
		resp := do(t, b.demo, "GET", "/v1/api/screener/queue/result?id="+job.ID, nil)
		var res struct {
			Data struct {
				Items []struct {
					Code string `json:"code"`
				} `json:"items"`
				Total int `json:"total"`
			} `json:"data"`
		}
		if resp.Status != http.StatusOK || json.Unmarshal(resp.Body, &res) != nil {
			t.Fatalf("result on b: HTTP %d %s", resp.Status, resp.Body)
		}
		var codes []string
		for _, it := range res.Data.Items {
			codes = append(codes, it.Code)
		}
		if res.Data.Total != 2 || strings.Join(codes, ",") != "600519.SH,600000.SH" {
			t.Fatalf("result on b: total %d, codes %v; want 600519.SH,600000.SH (pct > 1, by -pct)", res.Data.Total, codes)
		}
		if st := jobOf(t, "status on c", do(t, c.demo, "GET", "/v1/api/screener/queue/status?id="+job.ID, nil)); st.State != "succeeded" {
			t.Errorf("the screen's status on c: %q", st.State)
		}

		// Another screen, caught running: its quote snapshot is held
		// (the one above is older than quote_age by then, so it is asked
		// again), and canceled through b.
		time.Sleep(1200 * time.Millisecond)
		hold.set(true)
		job = jobOf(t, "submit on a", do(t, a.demo, "POST", "/v1/api/screener/queue/submit", map[string]any{"expression": "pct > 0"}))
		var runner string
		select {
		case runner = <-hold.entered:
		case <-time.After(10 * time.Second):
			t.Fatalf("screen %s never asked for its quotes", job.ID)
		}
		if st := jobOf(t, "status on b", do(t, b.demo, "GET", "/v1/api/screener/queue/status?id="+job.ID, nil)); st.State != "running" {
			t.Fatalf("screen %s run by %s is %q on b; want running", job.ID, runner, st.State)
		}
		canceledAt := time.Now()
		if st := jobOf(t, "cancel on b", do(t, b.demo, "POST", "/v1/api/screener/queue/cancel", map[string]string{"id": job.ID})); st.State != "canceled" {
			t.Fatalf("cancel on b: state %q", st.State)
		}
		// The instance running it stops it: its held request is given up
		// (within the queue's 2 s sweep when that is another instance).
		select {
		case who := <-hold.left:
			t.Logf("screen run by %s, canceled on b, stopped after %v", who, time.Since(canceledAt).Round(time.Millisecond))
			if who != runner {
				t.Errorf("the request given up was %s's, want %s's", who, runner)
			}
		case <-time.After(6 * time.Second):
			t.Errorf("screen %s canceled on b still runs on %s 6 s later", job.ID, runner)
		}
		hold.set(false)
		for _, in := range ins {
			if st := jobOf(t, "status on "+in.name, do(t, in.demo, "GET", "/v1/api/screener/queue/status?id="+job.ID, nil)); st.State != "canceled" {
				t.Errorf("the canceled screen on %s: %q", in.name, st.State)
			}
		}
	})

	t.Run("the leader killed, another leads and the collections go on", func(t *testing.T) {
		who := leaders(t, ins)
		if len(who) != 1 {
			t.Fatalf("leaders %v; want exactly one", who)
		}
		leader := byName[who[0]]
		var rest []*teamInstance
		for _, in := range ins {
			if in != leader {
				rest = append(rest, in)
			}
		}
		restBefore := map[string]int{}
		for _, in := range rest {
			restBefore[in.name], _ = in.up.counts()
		}
		// The moment that could double a collection: right after the
		// leader stored one of both families (it collects industries,
		// then concepts): a successor that collected at once would
		// collect again within its poll.
		n := len(collections(t, pg, market.Concept))
		if !eventually(5*time.Second, func() bool { return len(collections(t, pg, market.Concept)) > n }) {
			t.Fatalf("the leader %s stored no collection in 5 s", leader.name)
		}
		leader.kill(t)
		killed, killedAt := time.Now(), clock.Now()
		var next []string
		if !eventually(3*time.Second, func() bool { next = leaders(t, rest); return len(next) > 0 }) {
			t.Fatalf("no instance leads 3 s after the leader %s was killed (leader_poll %v)", leader.name, teamLeaderPoll)
		}
		took := time.Since(killed)
		if len(next) != 1 {
			t.Fatalf("leaders after the kill: %v; want exactly one", next)
		}
		successor := byName[next[0]]
		t.Logf("%s leads %v after %s was killed", successor.name, took.Round(time.Millisecond), leader.name)

		// Four collections past the kill, then the whole sequence around it.
		if !eventually(10*time.Second, func() bool {
			ms := collections(t, pg, market.Industry)
			return len(ms) > 0 && countAfter(ms, killedAt.UnixMilli()) >= 4
		}) {
			t.Fatalf("fewer than 4 collections stored in 10 s after the kill: %v", collections(t, pg, market.Industry))
		}
		if again := leaders(t, rest); len(again) != 1 || again[0] != successor.name {
			t.Errorf("leaders now %v; want only %s", again, successor.name)
		}
		for _, in := range rest {
			now, _ := in.up.counts()
			if in == successor && now == restBefore[in.name] {
				t.Errorf("the new leader %s's push2 saw no sector request", in.name)
			}
			if in != successor && now != restBefore[in.name] {
				t.Errorf("follower %s's push2 saw %d sector requests after the kill; want none", in.name, now-restBefore[in.name])
			}
		}
		// Consecutive collections, from two before the kill on: about an
		// interval apart, never closer than half of one (a collection
		// doubled), never further than an interval plus the leadership
		// poll plus slack (one lost).
		lo := killedAt.Add(-5 * teamInterval / 2).UnixMilli()
		most := teamInterval + teamLeaderPoll + 1500*time.Millisecond
		for _, kind := range []market.SectorKind{market.Industry, market.Concept} {
			var around []int64
			for _, ms := range collections(t, pg, kind) {
				if ms >= lo {
					around = append(around, ms)
				}
			}
			var gaps []string
			for i := 1; i < len(around); i++ {
				gap := time.Duration(around[i]-around[i-1]) * time.Millisecond
				gaps = append(gaps, gap.String())
				side := "before"
				if around[i] > killedAt.UnixMilli() {
					side = "after"
				}
				if gap < teamInterval/2 {
					t.Errorf("%s collections %v apart (%s the kill at %s): doubled; want about %v",
						kind, gap, side, killedAt.Format("15:04:05.000"), teamInterval)
				}
				if gap > most {
					t.Errorf("%s collections %v apart (%s the kill at %s): one lost; want at most %v", kind, gap, side, killedAt.Format("15:04:05.000"), most)
				}
			}
			t.Logf("%s collections around the kill at %s, gaps: %s", kind, killedAt.Format("15:04:05.000"), strings.Join(gaps, " "))
		}
	})
}

// countAfter counts the instants after ms.
func countAfter(all []int64, ms int64) int {
	n := 0
	for _, x := range all {
		if x > ms {
			n++
		}
	}
	return n
}

// The commands an administrator runs work on a PostgreSQL store given as
// -db, and a server on it answers the client they made. (The reports,
// backfill and terminal import commands run on it in the cli package's
// tests under MDQS_TEST_STORE=postgres.)
func TestCommandsAndServerOnPostgreSQL(t *testing.T) {
	target := dbtest.NewSchema(t, dbtest.NeedPostgres(t))
	out, errs, code := mdqs("client", "add", "-db", target, "-id", "desk", "-scopes", "market,kline")
	secret := regexp.MustCompile(`client_secret=(\S+)`).FindStringSubmatch(out)
	if code != 0 || secret == nil {
		t.Fatalf("client add on PostgreSQL: exit %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(errs, "database postgres://") {
		t.Errorf("client add does not say which database: %q", errs)
	}
	if out, errs, code := mdqs("client", "list", "-db", target); code != 0 || !strings.Contains(out, "desk") {
		t.Errorf("client list: exit %d %q %q", code, out, errs)
	}
	holidays := filepath.Join(t.TempDir(), "h.csv")
	os.WriteFile(holidays, []byte("2027-01-01,元旦\n2027-02-08,春节\n"), 0o600)
	if out, errs, code := mdqs("calendar", "import", "-db", target, holidays); code != 0 {
		t.Errorf("calendar import: exit %d %q %q", code, out, errs)
	}
	if out, errs, code := mdqs("calendar", "status", "-db", target); code != 0 || !strings.Contains(out, "2027") {
		t.Errorf("calendar status: exit %d %q %q; want 2027 imported", code, out, errs)
	}

	s := startServerWith(t, serveOptions{config: smallDemo, db: target})
	if !strings.Contains(s.logs.String(), `db="postgres://`) {
		t.Errorf("the server's log does not name its store:\n%s", s.logs)
	}
	c := client.New(s.addr, "desk", secret[1])
	resp, err := c.Do(context.Background(), "GET", "/v1/api/whoami", nil)
	if err != nil || resp.Status != 200 || !strings.Contains(string(resp.Body), `"desk"`) {
		t.Fatalf("whoami as the client made on PostgreSQL: %v %v", err, resp)
	}
	resp, err = c.Do(context.Background(), "GET", "/v1/api/hot_rank", nil)
	if err != nil || resp.Status != 403 {
		t.Errorf("the client's scopes, read back from PostgreSQL, let it read hot_rank: %v %v", err, resp)
	}
}

// TestMigratedStoreAnswersTheSameBytes fills a store on SQLite, copies it
// into PostgreSQL with `mdqs migrate-store`, and serves both at the same
// instant: every GET endpoint of the OpenAPI document answers the same
// status and the same bytes from the copy as from the file, except the
// few that describe the process or the store itself. A demo store holds
// rankings, news, reports, hot rank and signals; a live store fed by the
// terminal's files holds bars, coverage, names and blocks.
func TestMigratedStoreAnswersTheSameBytes(t *testing.T) {
	server := dbtest.NeedPostgres(t)
	t.Run("demo", func(t *testing.T) {
		at := time.Date(2026, 11, 24, 10, 30, 0, 0, market.Shanghai()) // a Tuesday, in the session
		compareMigrated(t, server, smallDemo, at, map[string]string{"start": "2026-11-02", "end": "2026-11-24", "date": "2026-11-20"}, nil)
	})
	t.Run("terminal", func(t *testing.T) {
		dir := t.TempDir()
		bridgetest.Write(t, dir)
		at := time.Date(2026, 11, 20, 16, 0, 0, 0, market.Shanghai()) // Friday, after tdx.refresh_at
		// Upstreams unreachable and unthrottled: nothing waits on their
		// rate limits to fail.
		offline := strings.ReplaceAll(liveOffline, "retries = 0\n", "retries = 0\nrate = 1000.0\n")
		cfg := offline + "\n[demo]\nlive_client = true\n[tdx]\ndir = " + strconv.Quote(dir) + "\n"
		// The endpoints the terminal's files answer; the others wait on
		// the unreachable upstreams' rate limits to say 503.
		fromFiles := map[string]bool{"/v1/api/kline": true, "/v1/api/kline/with_realtime": true, "/v1/api/minutes": true,
			"/v1/api/meta/stocks": true, "/v1/api/blocks": true, "/v1/api/block/members": true, "/v1/api/whoami": true,
			"/v1/api/market/movements/events": true}
		compareMigrated(t, server, cfg, at, map[string]string{"start": "2026-11-16", "end": "2026-11-20", "date": "2026-11-20"}, fromFiles)
	})
}

// compareMigrated fills a store with a server of cfg at the instant at,
// migrates it into a new schema of the PostgreSQL server, and compares
// the two stores' answers (of the paths in only, when it is not nil).
func compareMigrated(t *testing.T, pg, cfg string, at time.Time, dates map[string]string, only map[string]bool) {
	target := dbtest.NewSchema(t, pg)
	file := startServerWith(t, serveOptions{config: cfg, at: at})
	waitReady(t, file)
	if err := file.stop(t); err != nil {
		t.Fatal(err)
	}

	if _, errs, code := mdqs("migrate-store", "-from", file.db, "-to", "mdqs.db"); code != 2 || !strings.Contains(errs, "PostgreSQL URL") {
		t.Errorf("migrate-store to a file: exit %d %q, want 2 saying -to must be a PostgreSQL URL", code, errs)
	}
	out, errs, code := mdqs("migrate-store", "-from", file.db, "-to", target)
	if code != 0 || !strings.Contains(out, "every table's rows match") {
		t.Fatalf("migrate-store: exit %d\n%s\n%s", code, out, errs)
	}
	t.Logf("migrate-store:\n%s", out)
	if _, errs, code := mdqs("migrate-store", "-from", file.db, "-to", target); code != 1 || !strings.Contains(errs, "already holds rows") {
		t.Errorf("a second migrate-store into the same database: exit %d %q, want 1, refused", code, errs)
	}

	values := map[string]string{"code": "600519.SH", "codes": "600519.SH,000001.SH", "freq": "D", "mode": "qfq", "id": "none", "/v1/api/news/view id": "1",
		"/v1/api/block/members block": "沪深300", "/v1/api/hot_rank/detail stock_code": "600519.SH",
		"/v1/api/bars/minute time":   "10:30", // of the date each case names (bars/daily and bars/minute)
		"/v1/api/index/members code": "000300.SH", "/v1/api/index/changes code": "000300.SH", "/v1/api/lhb/seats name": "机构专用"}
	for k, v := range dates {
		values[k] = v
	}
	answers := func(s *server) map[string]string {
		t.Helper()
		waitReady(t, s)
		c := s.client()
		raw := func(t *testing.T, path string) (int, []byte) {
			t.Helper()
			resp, err := c.Do(context.Background(), "GET", path, nil)
			if err != nil {
				t.Fatalf("GET %s: %v", path, err)
			}
			return resp.Status, resp.Body
		}
		got := map[string]string{}
		for _, ep := range openAPIGets(t, raw, values) {
			if only != nil && !only[ep.path] {
				continue
			}
			status, body := raw(t, ep.target)
			got[ep.target] = strconv.Itoa(status) + " " + string(body)
		}
		if err := s.stop(t); err != nil {
			t.Fatal(err)
		}
		return got
	}
	want := answers(startServerWith(t, serveOptions{config: cfg, at: at, db: file.db}))
	got := answers(startServerWith(t, serveOptions{config: cfg, at: at, db: target}))
	// These describe the process or the store, not the market: the Go
	// runtime's counters, the store's kind and size, the jobs' run counts
	// (a job's second run on the copy may land before or after the read).
	own := map[string]bool{"/metrics": true, "/v1/api/health/db": true, "/v1/api/health/sources": true, "/v1/api/health/cache": true,
		"/v1/api/health/instance": true} // the store it runs on is the difference
	same, ok200 := 0, 0
	for target, w := range want {
		path, _, _ := strings.Cut(target, "?")
		switch {
		case own[path]:
		case got[target] != w:
			t.Errorf("%s\n from the file: %.600s\n from the copy: %.600s", target, w, got[target])
		default:
			same++
			if strings.HasPrefix(w, "200 ") {
				ok200++
			}
		}
	}
	if ok200 < min(10, len(only)) || (only == nil && ok200 < 10) {
		t.Errorf("only %d endpoints answered 200: the comparison says little", ok200)
	}
	t.Logf("%d GET endpoints answer the same status and bytes from the file and from its copy (%d of them 200)", same, ok200)
}

// waitReady waits for the server's "mdqs ready" line: every start-up job
// has run, so the answers no longer change under the pinned clock.
// waitReady waits for the start-up jobs. The bound only stops a hang: a
// demo start under -race on a loaded 2-core CI machine took over a
// minute once (TestDocExamples), where it takes about 12 s unloaded.
func waitReady(t *testing.T, s *server) {
	t.Helper()
	const bound = 4 * time.Minute
	deadline := time.Now().Add(bound)
	for !strings.Contains(s.logs.String(), "mdqs ready") {
		if time.Now().After(deadline) {
			logs := s.logs.String()
			t.Fatalf("not ready after %v; the server's last words:\n%s", bound, logs[max(0, len(logs)-3000):])
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Issue 27 point 1: three instances on one PostgreSQL store and a Redis
// of the test's own. With the nonces in Redis, killing Redis let each
// instance accept a captured request once more, and a restarted (empty)
// Redis accepted it again. Now the store records every nonce: each replay
// is refused before, during and after the outage, while fresh requests
// keep being served throughout.
func TestTeamRefusesEveryReplayWhateverRedisDoes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three server processes and a redis-server (about 10 s); run without -short, with " +
			dbtest.PostgresEnv + " and " + redistest.Env + " set")
	}
	server := dbtest.NeedPostgres(t)
	redistest.URL(t) // a Redis for the tests means redis-server is installed; this test runs one it can kill
	rd := redistest.Own(t)
	target := dbtest.NewSchema(t, server)
	anchor := time.Now().Round(0)
	clock := teamClock{start: teamStart, anchor: anchor}
	spec := teamHelperSpec{Start: teamStart, Anchor: anchor.UnixNano()}
	hold := &teamHold{entered: make(chan string, 16), left: make(chan string, 16)}
	var ins []*teamInstance
	for _, name := range []string{"a", "b", "c"} {
		up := newTeamUpstream(t, name, teamStart, hold)
		ins = append(ins, startTeamInstance(t, name, teamConfig(name, up.srv.URL, rd.URL(), "replay:"), target, spec, up, clock))
	}
	token, err := ins[0].demo.Token(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	send := func(in *teamInstance, h http.Header) (int, string) { return whoamiOn(t, in, h) }
	var captured []http.Header
	// accept sends a freshly signed request to in (200), then replays every
	// request captured so far on every instance (401 each).
	accept := func(when string, in *teamInstance) {
		t.Helper()
		h := http.Header{}
		in.demo.Sign(h, token, nil)
		if status, body := send(in, h); status != http.StatusOK {
			t.Fatalf("%s: a fresh request on %s: HTTP %d %s; want 200", when, in.name, status, body)
		}
		captured = append(captured, h)
		replayAll(t, when, ins, captured, send)
	}
	accept("Redis up", ins[0])

	rd.Kill(t)
	for _, in := range ins {
		accept("Redis killed", in)
	}
	// The stream relay says so too (its blocked read fails at once).
	if !eventually(5*time.Second, func() bool {
		for _, in := range ins {
			if h, err := in.health(); err != nil || h.StreamRelay == nil || h.StreamRelay.Up {
				return false
			}
		}
		return true
	}) {
		t.Error("health/instance still says stream_relay up on some instance 5 s after Redis was killed")
	}

	rd.Start(t)
	replayAll(t, "Redis restarted empty", ins, captured, send)
	if !eventually(15*time.Second, func() bool {
		for _, in := range ins {
			if h, err := in.health(); err != nil || h.Redis == nil || !h.Redis.Up || h.StreamRelay == nil || !h.StreamRelay.Up {
				return false
			}
		}
		return true
	}) {
		t.Fatal("the instances did not see Redis back within 15 s (health/instance's redis and stream_relay)")
	}
	accept("Redis back and seen by every instance", ins[1])
}

func replayAll(t *testing.T, when string, ins []*teamInstance, captured []http.Header, send func(*teamInstance, http.Header) (int, string)) {
	t.Helper()
	for i, h := range captured {
		for _, in := range ins {
			if status, body := send(in, h); status != http.StatusUnauthorized || !strings.Contains(body, "nonce already used") {
				t.Errorf("%s: captured request %d replayed on %s: HTTP %d %s; want 401 nonce already used", when, i, in.name, status, body)
			}
		}
	}
}

// whoamiOn sends GET /v1/api/whoami to in with exactly the headers h (a
// replay sends the same signature headers again).
func whoamiOn(t *testing.T, in *teamInstance, h http.Header) (int, string) {
	t.Helper()
	req, err := http.NewRequest("GET", "http://"+in.addr+"/v1/api/whoami", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header = h.Clone()
	resp, err := teamHTTP.Do(req)
	if err != nil {
		t.Fatalf("whoami on %s: %v", in.name, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// The team's live instances must not look up the real upstreams' names:
// a section teamConfig leaves out sends its job's requests to EastMoney
// (CI's log showed DNS lookups of push2ex and datacenter-web before).
func TestTeamConfigClosesEveryUpstream(t *testing.T) {
	shipped, err := os.ReadFile("config.toml")
	if err != nil {
		t.Fatal(err)
	}
	cfg := teamConfig("a", "http://127.0.0.1:1", "redis://127.0.0.1:1", "p:")
	section := ""
	for line := range strings.Lines(string(shipped)) {
		if f := strings.Fields(line); len(f) > 0 && strings.HasPrefix(f[0], "[") {
			section = f[0]
		}
		if strings.HasPrefix(line, "base_url") && !strings.Contains(cfg, section+"\nbase_url = \"http://127.0.0.1:") {
			t.Errorf("teamConfig leaves %s at its shipped base_url: list it among the closed ports", section)
		}
	}
}
