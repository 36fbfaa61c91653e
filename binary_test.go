package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"mdqs/internal/bridge/bridgetest"
	"mdqs/internal/client"
	"mdqs/internal/config"
	"mdqs/internal/docpage"
	"mdqs/internal/loadgen"
	"mdqs/internal/market"
)

// TestRealBinary builds mdqs and drives it as a user would: serve, call,
// then SIGTERM, which must drain and exit 0.
func TestRealBinary(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("SIGTERM is not deliverable on Windows")
	}
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "mdqs")
	// -buildvcs=auto as a user's plain go build does (this machine's go env
	// may turn it off): in a git checkout the binary carries its commit.
	build := exec.Command("go", "build", "-buildvcs=auto", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	db := filepath.Join(dir, "mdqs.db")
	srv := exec.Command(bin, "serve", "-addr", "127.0.0.1:0", "-db", db)
	srv.Dir = dir // no ./config.toml here: the built-in defaults apply
	// A key from the environment, as a container sets them; -addr, a
	// flag, wins over the variable's address.
	srv.Env = append(os.Environ(), "MDQS_SERVER_INSTANCE=from-env", "MDQS_SERVER_ADDR=127.0.0.1:1")
	stderr, _ := srv.StderrPipe()
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Process.Kill()
	logs := bufio.NewReader(stderr)
	listening := regexp.MustCompile(`msg="mdqs listening" addr=(\S+) mode=demo .*config="built-in defaults" version="?([^" ]+).* instance=from-env `)
	var addr, logged string
	deadline := time.Now().Add(30 * time.Second)
	var seen strings.Builder
	for addr == "" && time.Now().Before(deadline) {
		line, err := logs.ReadString('\n')
		seen.WriteString(line)
		if m := listening.FindStringSubmatch(line); m != nil {
			addr, logged = m[1], m[2]
		}
		if err != nil {
			t.Fatalf("server log ended: %v\n%s", err, seen.String())
		}
	}
	if addr == "" {
		t.Fatalf("no listening line:\n%s", seen.String())
	}
	// The version is the build's, in the start log and from mdqs version:
	// the commit when the build could read it.
	out, err := exec.Command(bin, "version").Output()
	version := strings.TrimSpace(strings.TrimPrefix(string(out), "mdqs "))
	if err != nil || !strings.HasPrefix(version, logged) || strings.HasPrefix(version, "dev ") {
		t.Fatalf("mdqs version = %q (%v); the start log says %q", out, err, logged)
	}
	if head, err := exec.Command("git", "rev-parse", "HEAD").Output(); err == nil && !strings.Contains(version, string(head[:12])) {
		t.Errorf("mdqs version = %q, want the commit %s", version, head[:12])
	}

	// Two calls share one token, cached in the user's cache folder.
	cache := filepath.Join(dir, "cache")
	for range 2 {
		call := exec.Command(bin, "call", "-addr", addr, "GET", "/v1/api/whoami")
		call.Env = append(os.Environ(), "XDG_CACHE_HOME="+cache, "HOME="+dir)
		out, err = call.CombinedOutput()
		if err != nil || !strings.Contains(string(out), `"client_id":"demo"`) {
			t.Fatalf("mdqs call: %v\n%s", err, out)
		}
	}
	if files, _ := filepath.Glob(filepath.Join(cache, "mdqs", "tokens", "*.json")); len(files) != 1 {
		t.Errorf("token cache files under $XDG_CACHE_HOME: %v, want one", files)
	}
	// config check says where each value came from, and shows no
	// password, from a variable or a secret file.
	secret := filepath.Join(dir, "redis_url")
	os.WriteFile(secret, []byte("redis://:r3dis-pw@db.lan:6379/0\n"), 0o600)
	check := exec.Command(bin, "config", "check")
	check.Dir = dir
	check.Env = append(os.Environ(), "MDQS_SERVER_DB=postgres://mdqs:pg-pw@db.lan/mdqs", "MDQS_CACHE_REDIS_FILE="+secret)
	out, err = check.CombinedOutput()
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^server\.db +"postgres://mdqs:xxxxx@db\.lan/mdqs" +environment MDQS_SERVER_DB$`),
		regexp.MustCompile(`(?m)^cache\.redis +\(secret: not shown\) +MDQS_CACHE_REDIS_FILE \(`),
		regexp.MustCompile(`(?m)^server\.addr +"127\.0\.0\.1:8080" +default$`),
	} {
		if err != nil || !want.Match(out) {
			t.Errorf("mdqs config check with MDQS_* variables: %v, want %s in\n%s", err, want, out)
		}
	}
	if strings.Contains(string(out), "pg-pw") || strings.Contains(string(out), "r3dis-pw") {
		t.Errorf("mdqs config check printed a password:\n%s", out)
	}
	if out, err := exec.Command(bin, "--help").Output(); err != nil || !strings.Contains(string(out), "commands:") {
		t.Errorf("mdqs --help: %v\n%s", err, out)
	}
	if err := srv.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(logs)
	if err := srv.Wait(); err != nil {
		t.Fatalf("mdqs exited with %v after SIGTERM\n%s", err, rest)
	}
	if !strings.Contains(string(rest), "mdqs stopped") {
		t.Fatalf("no orderly stop in the log:\n%s", rest)
	}

	// The same file switched to a live mode: the binary refuses to start
	// and says how to proceed, instead of serving the demo's rows as live.
	live := filepath.Join(dir, "live.toml")
	if err := os.WriteFile(live, []byte(liveOffline), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err = exec.Command(bin, "serve", "-config", live, "-addr", "127.0.0.1:0", "-db", db).CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(string(out), "holds the demo market, so it cannot serve live data") {
		t.Fatalf("live mode on the demo run's file: %v\n%s", err, out)
	}
}

// Issue 27: a web page whose name its DNS points at 127.0.0.1 (DNS
// rebinding) is same-origin with that name, and before the check it could
// read /metrics and the profiler and, in demo mode, take an admin token
// with the public demo secret. The built binary, in demo mode on
// loopback, refuses every request naming another host before any handler
// (421 and the envelope naming server.allowed_hosts), and answers the
// names of this machine, any IP address and the names configured.
func TestDNSRebindingIsRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	bin := buildBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cfg := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfg, []byte(smallDemo+"[server]\nallowed_hosts = [\"mdqs.test\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := loadgen.Start(bin, []string{"-config", cfg, "-addr", "127.0.0.1:0", "-db", filepath.Join(dir, "mdqs-demo.db")}, loadgen.StartOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop(30 * time.Second) })
	_, port, _ := net.SplitHostPort(p.Addr)
	requests := []struct{ method, path, body string }{
		{"GET", "/metrics", ""},
		{"GET", "/debug/pprof/cmdline", ""},
		{"GET", "/debug/pprof/heap", ""},
		{"POST", "/v1/auth/token", `{"client_id":"demo","client_secret":"demo-secret"}`},
	}
	send := func(method, path, body, host string) (int, []byte) {
		t.Helper()
		req, err := http.NewRequestWithContext(ctx, method, "http://"+p.Addr+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s %s (Host %s): %v", method, path, host, err)
		}
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		return res.StatusCode, raw
	}
	for _, host := range []string{"attacker.example:" + port, "attacker.example", "ATTACKER.example.:" + port} {
		for _, r := range requests {
			status, raw := send(r.method, r.path, r.body, host)
			var env struct {
				Code    *int            `json:"code"`
				Message string          `json:"message"`
				Detail  string          `json:"detail"`
				Data    json.RawMessage `json:"data"`
			}
			if status != http.StatusMisdirectedRequest || json.Unmarshal(raw, &env) != nil || env.Code == nil || *env.Code != 0 ||
				env.Data != nil || env.Message != "misdirected request" || !strings.Contains(env.Detail, "server.allowed_hosts") {
				t.Errorf("%s %s with Host %s: %d %.300s, want 421 and the envelope naming server.allowed_hosts", r.method, r.path, host, status, raw)
			}
		}
	}
	for _, host := range []string{"localhost:" + port, "127.0.0.1:" + port, "[::1]:" + port, "mdqs.test:" + port, "MDQS.test"} {
		for _, r := range requests {
			status, raw := send(r.method, r.path, r.body, host)
			if status != 200 {
				t.Errorf("%s %s with Host %s: %d %.300s, want 200", r.method, r.path, host, status, raw)
			}
			if r.method == "POST" && !strings.Contains(string(raw), `"token":"`) {
				t.Errorf("token with Host %s: %.300s", host, raw)
			}
		}
	}
}

// TestFreshDemoAnswersEveryEndpoint starts the built binary with the
// built-in defaults (demo mode at real scale, 5,300 stocks) on a fresh
// database and polls every GET endpoint of the OpenAPI document until each
// answers 200: by the time the server logs "mdqs ready", all do. Before,
// chip_metrics and micro_momentum?freq=D answered 404 for 25-40 s and the
// bridge's six endpoints 503. The time each took is logged (-v); the test
// holds no time limit (a shared machine's timings vary), docs/performance.md gives
// the figures.
func TestFreshDemoAnswersEveryEndpoint(t *testing.T) {
	if testing.Short() || runtime.GOOS == "windows" {
		t.Skip("builds and runs the binary at real scale")
	}
	if raceEnabled() {
		t.Skip("the race detector makes a real-scale start ten times slower; `go test -run TestFreshDemoAnswersEveryEndpoint -v .` measures it")
	}
	dir := t.TempDir()
	bin := buildBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	data := filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	p, err := loadgen.Start(bin, []string{"-addr", "127.0.0.1:0"}, loadgen.StartOptions{Dir: data})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop(30 * time.Second) })
	listening := time.Now()
	c := client.New(p.Addr, "demo", "demo-secret")
	raw := func(t *testing.T, path string) (int, []byte) {
		t.Helper()
		resp, err := c.Do(ctx, "GET", path, nil)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		return resp.Status, resp.Body
	}
	resp, err := c.Do(ctx, "POST", "/v1/api/screener/queue/submit", []byte(`{"expression":"pct > 5","limit":3}`))
	var screen struct{ Data struct{ ID string } }
	if err != nil || resp.Status != 200 || json.Unmarshal(resp.Body, &screen) != nil {
		t.Fatalf("submit a screen: %v %v", err, resp)
	}
	day := listening.Format("2006-01-02")
	values := map[string]string{"code": "600519.SH", "codes": "600519.SH,000001.SH", "freq": "D", "mode": "qfq", "start": day[:8] + "01", "end": day, "id": screen.Data.ID,
		"date":                     market.DefaultCalendar().Prev(market.DayOf(listening)).String(), // recorded by the demo's back-fill (bars/daily, bars/minute)
		"/v1/api/bars/minute time": "10:30",                                                         // a minute of that day, ended
		"/v1/api/news/view id":     firstNewsID(t, raw), "/v1/api/block/members block": "沪深300",
		"/v1/api/hot_rank/detail stock_code": "600519.SH",
		"/v1/api/index/members code":         "000300.SH", "/v1/api/index/changes code": "000300.SH",
		"/v1/api/lhb/seats name": "机构专用",
		"/v1/api/lhb date":       market.DefaultCalendar().Prev(market.DayOf(listening)).String()} // imported by the lhb job at start
	endpoints := openAPIGets(t, raw, values)

	firstOK := map[string]time.Duration{}
	last := map[string]string{}
	deadline := time.Now().Add(2 * time.Minute)
	for len(firstOK) < len(endpoints) && time.Now().Before(deadline) {
		for _, ep := range endpoints {
			if _, ok := firstOK[ep.target]; ok {
				continue
			}
			resp, err := c.Do(ctx, "GET", ep.target, nil)
			var refused *client.TokenError
			switch {
			case errors.As(err, &refused):
				last[ep.target] = string(refused.Response.Body)
			case err != nil:
				t.Fatalf("GET %s: %v", ep.target, err)
			case resp.Status == 200:
				firstOK[ep.target] = time.Since(listening)
			default:
				last[ep.target] = string(resp.Body)
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, ep := range endpoints {
		if _, ok := firstOK[ep.target]; !ok {
			t.Errorf("GET %s never answered 200; last: %.300s", ep.target, last[ep.target])
		}
	}
	deadline = time.Now().Add(time.Minute)
	readyLine := regexp.MustCompile(`msg="mdqs ready: every start-up job has run" after=(\S+)`)
	var ready string
	for time.Now().Before(deadline) && ready == "" {
		if m := readyLine.FindStringSubmatch(p.Logs()); m != nil {
			ready = m[1]
		}
		time.Sleep(20 * time.Millisecond)
	}
	if ready == "" {
		t.Fatalf("no ready line:\n%s", p.Logs())
	}
	var slowest string
	for target, at := range firstOK {
		if slowest == "" || at > firstOK[slowest] {
			slowest = target
		}
	}
	t.Logf("listening %v after start; ready line after=%s; all %d GET endpoints 200 within %v of listening (the last: %s)",
		listening.Sub(started).Round(time.Millisecond), ready, len(endpoints), firstOK[slowest].Round(time.Millisecond),
		strings.SplitN(slowest, "?", 2)[0])
}

// firstNewsID is the id of the newest news item, once the news job has
// stored some.
func firstNewsID(t *testing.T, raw func(*testing.T, string) (int, []byte)) string {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if status, body := raw(t, "/v1/api/news/list?page_size=1"); status == 200 {
			var list struct {
				Data struct{ Items []struct{ ID int64 } }
			}
			if json.Unmarshal(body, &list) == nil && len(list.Data.Items) > 0 {
				return strconv.FormatInt(list.Data.Items[0].ID, 10)
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("no news item after a minute")
	return ""
}

// docFiles are the pages a user reads: the README, its translation, every
// page of docs/ and the Python client's README.
func docFiles(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("no docs/*.md: %v", err)
	}
	return append(append([]string{"README.md", "README.zh-CN.md"}, pages...), filepath.Join("clients", "python", "README.md"))
}

// fence is a fenced code block of a page.
type fence struct {
	file string
	line int    // of the opening fence
	lang string // the first word of its info string
	text string
}

func (f fence) String() string { return fmt.Sprintf("%s:%d (%s block)", f.file, f.line, f.lang) }

// fences are a page's fenced code blocks, in order.
func fences(t *testing.T, file string) []fence {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []fence
	var cur *fence
	for i, line := range strings.Split(string(b), "\n") {
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			lang, _, _ := strings.Cut(strings.TrimPrefix(line, "```"), " ")
			cur = &fence{file: file, line: i + 1, lang: lang}
		case cur != nil && line == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.text += line + "\n"
		}
	}
	if cur != nil {
		t.Fatalf("%s: the block opened on line %d is never closed", file, cur.line)
	}
	return out
}

// commandLines are the mdqs command lines of a shell block, as words:
// a line that runs mdqs (mdqs, ./mdqs, mdqs.exe, .\mdqs.exe or go run .),
// its continuation lines joined, cut at a comment, a redirection or a pipe.
func commandLines(text string) [][]string {
	var out [][]string
	text = strings.ReplaceAll(text, "\\\n", " ")
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		// Windows' way to run the program of the current folder, in cmd
		// and PowerShell alike (the quick start's), before shellWords
		// reads its backslash as an escape.
		if rest, ok := strings.CutPrefix(line, `.\mdqs.exe`); ok && (rest == "" || rest[0] == ' ') {
			line = "mdqs" + rest
		}
		words := shellWords(line)
		switch {
		case len(words) >= 3 && words[0] == "go" && words[1] == "run" && words[2] == ".":
			words = words[3:]
		case len(words) >= 1 && (words[0] == "mdqs" || words[0] == "./mdqs" || words[0] == "mdqs.exe"):
			words = words[1:]
		default:
			continue
		}
		out = append(out, words)
	}
	return out
}

// The command lines TestDocExamples checks and runs, as each way of
// writing one gives them; a Windows example (.\mdqs.exe, in cmd and
// PowerShell alike) counts as mdqs, not as a line of something else.
func TestCommandLines(t *testing.T) {
	for _, tt := range []struct {
		text string
		want [][]string
	}{
		{"go run . call GET /v1/api/whoami\n", [][]string{{"call", "GET", "/v1/api/whoami"}}},
		{"mdqs config defaults > config.toml\n", [][]string{{"config", "defaults"}}},
		{"./mdqs version\nmdqs.exe version\n", [][]string{{"version"}, {"version"}}},
		{`.\mdqs.exe call GET "/v1/api/boards/top50?top=5"` + "\n", [][]string{{"call", "GET", "/v1/api/boards/top50?top=5"}}},
		{".\\mdqs.exe\n.\\mdqs.exe client add -id desk -scopes \"*\"\n", [][]string{{}, {"client", "add", "-id", "desk", "-scopes", "*"}}},
		{"schtasks /Run /TN \"mdqs backup\"\n.\\mdqs.exe.bak version\n", nil},
	} {
		if got := commandLines(tt.text); fmt.Sprint(got) != fmt.Sprint(tt.want) || len(got) != len(tt.want) {
			t.Errorf("commandLines(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// shellWords splits a command line as a POSIX shell would for these
// examples: quotes, backslashes outside single quotes, and the end of the
// command at an unquoted #, >, |, ; or &&.
func shellWords(line string) []string {
	var words []string
	var w strings.Builder
	inWord, single, double := false, false, false
	flush := func() {
		if inWord {
			words = append(words, w.String())
		}
		w.Reset()
		inWord = false
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case single:
			if c == '\'' {
				single = false
			} else {
				w.WriteByte(c)
			}
		case double:
			switch {
			case c == '"':
				double = false
			case c == '\\' && i+1 < len(line) && strings.IndexByte("\"\\$`", line[i+1]) >= 0:
				i++
				w.WriteByte(line[i])
			default:
				w.WriteByte(c)
			}
		case c == '\'':
			single, inWord = true, true
		case c == '"':
			double, inWord = true, true
		case c == '\\' && i+1 < len(line):
			i++
			w.WriteByte(line[i])
			inWord = true
		case c == ' ' || c == '\t':
			flush()
		case !inWord && (c == '#' || c == '>' || c == '|' || c == ';' || c == '&'):
			flush()
			return words
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	flush()
	return words
}

// checkCommand fails the test when words do not name an mdqs command, or
// give a flag it does not have: its -h, as the user would ask, says.
func checkCommand(t *testing.T, f fence, words []string) {
	t.Helper()
	var path []string // the command and its subcommand
	for _, w := range words {
		if strings.HasPrefix(w, "-") || len(path) == 2 {
			break
		}
		path = append(path, w)
		if !slices.Contains([]string{"client", "config", "calendar", "reports", "lhb", "import", "service"}, w) {
			break
		}
	}
	help, errs, code := mdqs(append(slices.Clone(path), "-h")...)
	if code != 0 {
		t.Errorf("%s: mdqs %s is not a command (mdqs %s -h: exit %d %s)", f, strings.Join(path, " "), strings.Join(path, " "), code, errs)
		return
	}
	for _, w := range words[len(path):] {
		if w == "--" {
			break
		}
		name, _, _ := strings.Cut(strings.TrimLeft(w, "-"), "=")
		if strings.HasPrefix(w, "-") && name != "" && !strings.Contains(help, "  -"+name+" ") && !strings.Contains(help, "  -"+name+"\n") {
			t.Errorf("%s: mdqs %s has no flag -%s (see mdqs %s -h)", f, strings.Join(path, " "), name, strings.Join(path, " "))
		}
	}
}

// placeholder marks a command line that names something the reader
// supplies (an id, a secret), which the test cannot run as written.
var placeholder = regexp.MustCompile(`\b(ID|SECRET|NAME|FILE|PATH|PG_PASSWORD|REDIS_PASSWORD)\b|desk-[ab]\.lan|db\.lan`)

// TestDocExamples holds the README and the docs to what they show: every
// TOML block is a valid configuration, every mdqs command line names a
// real command and real flags, the calls that need nothing of the reader
// run against a demo server and succeed, and the curl and Python signing
// examples run as written and print what they should.
func TestDocExamples(t *testing.T) {
	// The examples are for a server that is up: a call that meets one of
	// the demo's first collections answers 503 (rightly) after
	// server.upstream_wait. The built binary fills the store first (the
	// shipped configuration, every start-up job run), then the server
	// here serves it, as a restart would: filling it in this process
	// under -race took a minute of CPU, where the binary takes seconds.
	db := filepath.Join(t.TempDir(), "mdqs.db")
	fillDemoStore(t, db)
	s := startServerWith(t, serveOptions{db: db})
	waitReady(t, s)
	cache := t.TempDir()
	var curl, python, calls int
	for _, file := range docFiles(t) {
		for _, f := range fences(t, file) {
			switch f.lang {
			case "toml":
				cfg, err := config.Parse(strings.NewReader(f.text))
				if err == nil {
					err = cfg.Validate()
				}
				if err != nil {
					t.Errorf("%s is not a valid configuration: %v", f, err)
				}
			case "sh", "bat": // bat: Windows' command lines (cmd, PowerShell)
				for _, words := range commandLines(f.text) {
					checkCommand(t, f, words)
					// A -stream call runs until it is interrupted: checked, not run.
					if len(words) > 0 && words[0] == "call" && !slices.Contains(words, "-stream") && !placeholder.MatchString(strings.Join(words, " ")) {
						calls++
						out, errs, code := mdqsEnv(map[string]string{"MDQS_ADDR": s.addr, "XDG_CACHE_HOME": cache}, words...)
						if code != 0 {
							t.Errorf("%s: mdqs %s: exit %d\n%s%s", f, strings.Join(words, " "), code, out, errs)
						}
					}
				}
				if strings.Contains(f.text, "openssl md5") {
					curl++
					t.Run(fmt.Sprintf("curl/%s:%d", f.file, f.line), func(t *testing.T) { curlExample(t, s, f) })
				}
			case "python":
				if strings.Contains(f.text, "hashlib.md5") || strings.Contains(f.text, "hmac.new") { // version 1 or 2
					python++
					t.Run(fmt.Sprintf("python/%s:%d", f.file, f.line), func(t *testing.T) { pythonExample(t, s, f) })
				}
			}
		}
	}
	if curl < 2 || python < 3 || calls < 8 {
		t.Errorf("ran %d curl and %d Python signing examples and %d calls; want the two of getting started in English and Chinese, security's version 2, and the calls of the README and getting started", curl, python, calls)
	}
}

// fillDemoStore has the built binary serve the demo market on a new
// store at db with the shipped configuration until every start-up job
// has run ("mdqs ready"), then stop: the store and its demo terminal
// folder beside it are a demo server's, ready.
func fillDemoStore(t *testing.T, db string) {
	t.Helper()
	cfg, err := filepath.Abs("config.toml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := loadgen.Start(buildBinary(t), []string{"-config", cfg, "-addr", "127.0.0.1:0", "-db", db},
		loadgen.StartOptions{Dir: filepath.Dir(db)})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill()                              // if it does not stop below
	deadline := time.Now().Add(4 * time.Minute) // a failsafe, not a measure
	for !strings.Contains(p.Logs(), "mdqs ready") {
		select {
		case <-p.Done():
			t.Fatalf("mdqs exited before it was ready: %v\n%s", p.Err(), p.Logs())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("mdqs not ready after 4 minutes:\n%s", p.Logs())
		}
	}
	if err := p.Stop(30 * time.Second); err != nil {
		t.Fatalf("mdqs stop: %v\n%s", err, p.Logs())
	}
}

func curlExample(t *testing.T, s *server, f fence) {
	need(t, "bash", "curl", "openssl", "awk", "sed")
	out := runExample(t, s, "bash", "-euc", f.text)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("%s: want two answers, got:\n%s", f, out)
	}
	if !strings.Contains(lines[0], `"code":1`) || !strings.Contains(lines[0], `"client_id":"demo"`) {
		t.Errorf("%s: whoami answer: %s", f, lines[0])
	}
	if !strings.Contains(lines[1], `"code":1`) || !strings.Contains(lines[1], `"state":"queued"`) {
		t.Errorf("%s: signed POST answer: %s", f, lines[1])
	}
}

func pythonExample(t *testing.T, s *server, f fence) {
	need(t, "python3")
	out := runExample(t, s, "python3", "-c", f.text)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || lines[0] != "demo" || !strings.HasPrefix(lines[1], "['") || lines[2] != "queued" || lines[3] != "invalid sort field" {
		t.Errorf("%s: the example printed:\n%s", f, out)
	}
}

// runExample runs a doc's example with MDQS_ADDR naming the server, as
// mdqs call and the Python client read it.
func runExample(t *testing.T, s *server, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), "MDQS_ADDR="+s.addr)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\nstdout:\n%s\nstderr:\n%s", name, err, out.String(), errb.String())
	}
	return out.String()
}

func need(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
}

// The README's five lines that go live with the terminal, run as written
// in a folder of their own: the only changes are the ones its comment
// asks for (with a test terminal's folder for the user's), an address the
// test can listen on, and upstreams that point at a closed port, since a
// test never reaches the internet.
func TestGoingLiveAsTheREADMESays(t *testing.T) {
	var block string
	for _, f := range fences(t, "README.md") {
		if strings.Contains(f.text, "mdqs config defaults > config.toml") {
			block = f.text
		}
	}
	lines := strings.Split(strings.TrimSpace(block), "\n")
	want := []string{"mdqs config defaults > config.toml", "#", "mdqs client add ", "mdqs serve", "mdqs call "}
	if len(lines) != len(want) {
		t.Fatalf("the README's going-live block is not five lines:\n%s", block)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Fatalf("line %d of the going-live block is %q, want it to start %q", i+1, lines[i], w)
		}
	}
	terminal := t.TempDir()
	bridgetest.Write(t, terminal)
	dir := t.TempDir()
	t.Chdir(dir)

	// 1. mdqs config defaults > config.toml
	text, errs, code := mdqs("config", "defaults")
	if code != 0 {
		t.Fatalf("config defaults: exit %d %s", code, errs)
	}
	// 2. the edits the comment asks for
	mode := regexp.MustCompile(`\[sources\] default = "(\w+)"`).FindStringSubmatch(lines[1])
	if mode == nil || !strings.Contains(lines[1], "[tdx] dir = ") {
		t.Fatalf("the comment does not say which two keys to set: %s", lines[1])
	}
	for _, edit := range []struct{ from, to string }{
		{`(?m)^default = "demo"`, `default = "` + mode[1] + `"`},
		{`(?m)^dir = ""`, "dir = " + strconv.Quote(terminal)},
		{`(?m)^base_url = ".*"`, `base_url = "http://127.0.0.1:9"`},
		{`(?m)^retries = \d+`, `retries = 0`},
	} {
		re := regexp.MustCompile(edit.from)
		if !re.MatchString(text) {
			t.Fatalf("the printed defaults have no line %s", edit.from)
		}
		text = re.ReplaceAllString(text, edit.to)
	}
	if err := os.WriteFile("config.toml", []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	// 3. mdqs client add -id desk -scopes "*"
	out, errs, code := mdqs(shellWords(lines[2])[1:]...)
	secret := regexp.MustCompile(`client_secret=(\S+)`).FindStringSubmatch(out)
	if code != 0 || secret == nil || !strings.Contains(errs, "mdqs.db") {
		t.Fatalf("%s: exit %d\n%s%s", lines[2], code, out, errs)
	}
	// 4. mdqs serve (on a port of the test's own)
	logs := &loadgen.SyncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	addrc := make(chan string, 1)
	go func() {
		done <- serve(ctx, testEnv(&loadgen.SyncBuffer{}, logs), append(shellWords(lines[3])[2:], "-addr", "127.0.0.1:0"),
			serveHooks{onListen: func(a net.Addr) { addrc <- a.String() }})
	}()
	defer func() {
		cancel()
		<-done
	}()
	var addr string
	select {
	case addr = <-addrc:
	case err := <-done:
		t.Fatalf("mdqs serve: %v\n%s", err, logs)
	case <-time.After(30 * time.Second):
		t.Fatalf("mdqs serve did not start\n%s", logs)
	}
	if !strings.Contains(logs.String(), "mode=live db=mdqs.db sources=\""+mode[1]+"@") {
		t.Errorf("the server did not start in %s mode on mdqs.db:\n%s", mode[1], logs)
	}
	// 5. mdqs call -id desk -secret SECRET GET ...: authenticated and
	// answered; offline, the bars the terminal lacks are a 503 naming the
	// upstream, never a 401.
	vars := map[string]string{"MDQS_ADDR": addr, "XDG_CACHE_HOME": t.TempDir()}
	words := shellWords(strings.Replace(lines[4], "SECRET", secret[1], 1))[1:]
	out, errs, code = mdqsEnv(vars, words...)
	if code != 0 && !(strings.Contains(out, `"code":0`) && strings.Contains(out, "push2his")) {
		t.Errorf("%s: exit %d\n%s%s", lines[4], code, out, errs)
	}
	// The terminal's files were imported: its blocks are served.
	var blocks struct {
		Data struct {
			Items []struct{ Name string } `json:"items"`
		} `json:"data"`
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, errs, code = mdqsEnv(vars, "call", "-id", "desk", "-secret", secret[1], "GET", "/v1/api/blocks?kind=industry")
		json.Unmarshal([]byte(out), &blocks)
		if code == 0 && len(blocks.Data.Items) > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if code != 0 || len(blocks.Data.Items) == 0 {
		t.Errorf("the terminal's industries after the import: exit %d\n%s%s", code, out, errs)
	}
}

// TestDocLinks: every relative link and image of the README and the docs
// resolves, to a file or folder of the repository, and an anchor to a
// heading of its page (as GitHub names headings).
func TestDocLinks(t *testing.T) {
	anchors := map[string]map[string]bool{}
	links := regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)\)`)
	checked := 0
	for _, file := range docFiles(t) {
		for _, m := range links.FindAllStringSubmatch(proseOf(t, file), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			checked++
			path, anchor, _ := strings.Cut(target, "#")
			if path == "" {
				path = file
			} else {
				path = filepath.Join(filepath.Dir(file), filepath.FromSlash(path))
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s: link %s: %v", file, target, err)
				continue
			}
			if anchor == "" {
				continue
			}
			if !strings.HasSuffix(path, ".md") {
				t.Errorf("%s: link %s: an anchor into a file that is not a page", file, target)
				continue
			}
			if anchors[path] == nil {
				anchors[path] = headingAnchors(t, path)
			}
			if !anchors[path][anchor] {
				t.Errorf("%s: link %s: %s has no heading with the anchor #%s", file, target, path, anchor)
			}
		}
	}
	if checked < 100 {
		t.Errorf("checked only %d relative links: is the link pattern still right?", checked)
	}
}

// proseOf is a page without its fenced blocks and inline code, where a
// bracket is not a link.
func proseOf(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var prose []string
	inFence := false
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
			continue
		}
		if !inFence {
			prose = append(prose, line)
		}
	}
	return regexp.MustCompile("`[^`]*`").ReplaceAllString(strings.Join(prose, "\n"), "")
}

// headingAnchors are the anchors GitHub gives a page's headings (a link in
// a heading counts by its words).
func headingAnchors(t *testing.T, file string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	seen := docpage.Anchors{}
	linkText := regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	inFence := false
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
		}
		level := len(line) - len(strings.TrimLeft(line, "#"))
		if inFence || level == 0 || level > 6 || !strings.HasPrefix(line[level:], " ") {
			continue
		}
		text := linkText.ReplaceAllString(strings.TrimSpace(strings.TrimRight(line[level:], "#")), "$1")
		out[seen.Add(text)] = true
	}
	return out
}

// TestCallSignsWithVersion2AsABinary runs the built binary twice, with the
// default auth.signature_v1 and with false, and `mdqs call` against each:
// it signs with version 2 (-v says so, the token cache keeps the versions
// the token answer listed) and works on the server that refuses version 1,
// even from a cache file written before version 2 (the 401 lists the
// versions, the call signs again). Over HTTP, the headers of GET
// /v1/api/whoami are refused on POST /v1/api/refresh under version 2, and
// passed the signature check under version 1; a version 1 request to the
// refusing server is told to sign with version 2 and which setting says so.
func TestCallSignsWithVersion2AsABinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	bin := buildBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	start := func(name, extra string) *loadgen.Process {
		d := filepath.Join(dir, name)
		os.Mkdir(d, 0o755)
		if err := os.WriteFile(filepath.Join(d, "config.toml"), []byte(smallDemo+extra), 0o600); err != nil {
			t.Fatal(err)
		}
		p, err := loadgen.Start(bin, []string{"-addr", "127.0.0.1:0", "-config", "config.toml"}, loadgen.StartOptions{Dir: d})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Stop(30 * time.Second) })
		return p
	}
	both := start("both", "")
	v2only := start("v2only", "[auth]\nsignature_v1 = false\n")

	cache := filepath.Join(dir, "cache")
	call := func(addr string, args ...string) (string, string) {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"call", "-addr", addr, "-v"}, args...)...)
		cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+cache, "HOME="+dir, "MDQS_CLIENT_ID=", "MDQS_CLIENT_SECRET=")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("mdqs call -addr %s %v: %v\n%s%s", addr, args, err, stdout.String(), stderr.String())
		}
		return stdout.String(), stderr.String()
	}
	cacheFile := func(addr string) string {
		t.Helper()
		sum := sha256.Sum256([]byte("http://" + addr + "\n" + "demo"))
		return filepath.Join(cache, "mdqs", "tokens", hex.EncodeToString(sum[:16])+".json")
	}
	for _, s := range []struct {
		p        *loadgen.Process
		versions string
	}{{both, `"signature_versions":[1,2]`}, {v2only, `"signature_versions":[2]`}} {
		out, errs := call(s.p.Addr, "GET", "/v1/api/hot_rank?size=2&page=1")
		if !strings.Contains(out, `"code":1`) || !strings.Contains(errs, "signature: version 2") {
			t.Fatalf("mdqs call on %s: %q %q", s.p.Addr, out, errs)
		}
		if b, _ := os.ReadFile(cacheFile(s.p.Addr)); !strings.Contains(string(b), s.versions) {
			t.Errorf("token cache of %s: %s, want %s", s.p.Addr, b, s.versions)
		}
	}
	// A cache file from before version 2 (no versions): version 1 is sent,
	// refused, and the call signs again with version 2, same token.
	file := cacheFile(v2only.Addr)
	b, _ := os.ReadFile(file)
	var cached map[string]any
	json.Unmarshal(b, &cached)
	delete(cached, "signature_versions")
	b, _ = json.Marshal(cached)
	os.WriteFile(file, b, 0o600)
	if out, errs := call(v2only.Addr, "POST", "/v1/api/screener/queue/submit", `{"expression":"price > 0","limit":1}`); !strings.Contains(out, `"code":1`) ||
		!strings.Contains(errs, "token: reused") || !strings.Contains(errs, "signature: version 2") {
		t.Fatalf("mdqs call with a cache file from before version 2: %q %q", out, errs)
	}
	if b, _ := os.ReadFile(file); !strings.Contains(string(b), `"signature_versions":[2]`) {
		t.Errorf("the cache file did not learn the versions: %s", b)
	}

	// Over HTTP: retargeting, and version 1 refused.
	send := func(addr, method, path string, h http.Header) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, "http://"+addr+path, nil)
		req.Header = h
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var env struct{ Detail string }
		json.NewDecoder(res.Body).Decode(&env)
		return res.StatusCode, env.Detail
	}
	c := client.New(both.Addr, "demo", "demo-secret")
	tok, err := c.Token(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	v1 := http.Header{"Authorization": {"Bearer " + tok}, "X-Timestamp": {ts}, "X-Nonce": {"v1-whoami"}, "X-Signature": {client.Signature(tok, ts, "v1-whoami", nil)}}
	if status, detail := send(both.Addr, "POST", "/v1/api/refresh", v1); status == http.StatusUnauthorized {
		t.Errorf("version 1 headers of GET whoami on POST refresh: %d %q; the MD5 form binds no method or path, so they pass the signature check", status, detail)
	}
	sig, _ := client.SignatureHMAC(tok, "GET", "/v1/api/whoami", "", ts, "v2-whoami", nil)
	v2 := http.Header{"Authorization": {"Bearer " + tok}, "X-Timestamp": {ts}, "X-Nonce": {"v2-whoami"}, "X-Signature": {sig}, "X-Signature-Version": {"2"}}
	if status, detail := send(both.Addr, "POST", "/v1/api/refresh", v2); status != http.StatusUnauthorized || !strings.Contains(detail, "signature mismatch") {
		t.Errorf("version 2 headers of GET whoami on POST refresh: %d %q; want 401 signature mismatch", status, detail)
	}
	if status, detail := send(both.Addr, "GET", "/v1/api/whoami", v2); status != http.StatusOK {
		t.Errorf("the same version 2 headers on GET whoami: %d %q", status, detail)
	}
	c2 := client.New(v2only.Addr, "demo", "demo-secret")
	c2.SignatureVersion = 1
	c2.Renew = func(*client.Response) bool { return false }
	resp, err := c2.Do(ctx, "GET", "/v1/api/whoami", nil)
	if err != nil || resp.Status != http.StatusUnauthorized || !strings.Contains(string(resp.Body), "X-Signature-Version: 2") ||
		!strings.Contains(string(resp.Body), "auth.signature_v1 = false") || resp.Header.Get("X-Signature-Versions") != "2" {
		t.Errorf("version 1 on the server refusing it: %v %+v %s", err, resp, resp.Body)
	}
}

// buildBinary is mdqs as a user's go build makes it, built once a run
// (mdqsBinary, main_test.go): every test that asks gets the same file,
// which none of them changes.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin, err := mdqsBinary.Path()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}
