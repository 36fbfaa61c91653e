// The tests of package main run the whole program: in-process (serve with
// a pinned clock, each command with an environment of its own) or as the
// built binary. By theme:
//
//	main_test.go    the harness, the command line and every command
//	serve_test.go   what a served market answers, at any hour, demo or live
//	binary_test.go  the built binary as a user meets it, and the examples
//	                of README.md and docs/
//	team_test.go    PostgreSQL and Redis: the commands on a server store,
//	                migrate-store, several instances as one team
//
// Their fixtures are in testdata/.
package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"mdqs/internal/auth"
	"mdqs/internal/cli"
	"mdqs/internal/client"
	"mdqs/internal/config"
	"mdqs/internal/loadgen"
	"mdqs/internal/market"
	"mdqs/internal/testservers"
)

// The configurations most tests serve with, over the built-in defaults
// (testdata/ says what each is for).
var (
	//go:embed testdata/small-demo.toml
	smallDemo string
	//go:embed testdata/live-offline.toml
	liveOffline string
)

// The binaries the tests run, each built once a run, on first use, and
// removed at its end: mdqs as a user builds it (buildBinary), and the
// plain build of these tests that the team's instances run (team_test.go).
var (
	mdqsBinary = loadgen.SharedBinary{Prefix: "mdqs-test-"}
	teamBinary = loadgen.SharedBinary{Prefix: "mdqs-team-", Build: buildPlainTests}
)

// The team tests need PostgreSQL and Redis: without them they skip, and the
// run ends saying how many and how to run them.
func TestMain(m *testing.M) {
	code := testservers.Run(m)
	mdqsBinary.Remove()
	teamBinary.Remove()
	os.Exit(code)
}

// raceEnabled reports that the tests run under the race detector, several
// times slower: the build settings say so.
func raceEnabled() bool {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range info.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}

func testEnv(stdout, stderr *loadgen.SyncBuffer) cli.Env {
	return cli.Env{
		Stdin: strings.NewReader(""), Stdout: stdout, Stderr: stderr,
		Getenv:       func(string) string { return "" },
		Version:      "test",
		SQLiteSchema: sqliteSchema, ConfigFile: configFile,
	}
}

// server is the whole program serving in-process.
type server struct {
	addr   string
	db     string
	logs   *loadgen.SyncBuffer
	stdout *loadgen.SyncBuffer
	cancel context.CancelFunc
	done   chan error
	clock  *market.FixedClock // nil: the system clock
}

// serveOptions say how startServerWith starts the program.
type serveOptions struct {
	config string // configuration text over the built-in defaults; "" is the shipped file
	db     string // -db; "" is a fresh file in a temp folder, "-" gives none (the mode's default file)
	at     time.Time
	args   []string // more flags
	// cheapHash seeds the demo client with cheap hash parameters, for
	// tests that start many servers (each token request verifies it).
	cheapHash bool
	// holdStart holds the first run of every start-up job until closed.
	holdStart chan struct{}
}

func startServer(t *testing.T, extraArgs ...string) *server {
	t.Helper()
	return startServerWith(t, serveOptions{args: extraArgs})
}

// startServerWith serves in-process, pinned to o.at when it is set.
func startServerWith(t *testing.T, o serveOptions) *server {
	t.Helper()
	dir := t.TempDir()
	s := &server{db: o.db, logs: &loadgen.SyncBuffer{}, stdout: &loadgen.SyncBuffer{}, done: make(chan error, 1)}
	cfgPath := "config.toml"
	if o.config != "" {
		cfgPath = filepath.Join(dir, "config.toml")
		if err := os.WriteFile(cfgPath, []byte(o.config), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	args := []string{"-config", cfgPath, "-addr", "127.0.0.1:0"}
	switch o.db {
	case "":
		s.db = filepath.Join(dir, "mdqs.db")
		args = append(args, "-db", s.db)
	case "-":
		s.db = ""
	default:
		args = append(args, "-db", s.db)
	}
	args = append(args, o.args...)
	hooks := serveHooks{}
	if !o.at.IsZero() {
		s.clock = market.NewFixedClock(o.at)
		hooks.clock = s.clock
	}
	hooks.holdStart = o.holdStart
	if o.cheapHash {
		hooks.demoKDF = &auth.KDFParams{MemoryKiB: 64, Time: 1, Threads: 1}
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	addrc := make(chan string, 1)
	hooks.onListen = func(a net.Addr) { addrc <- a.String() }
	go func() {
		s.done <- serve(ctx, testEnv(s.stdout, s.logs), args, hooks)
	}()
	select {
	case s.addr = <-addrc:
	case err := <-s.done:
		t.Fatalf("serve exited at start: %v\n%s", err, s.logs)
	case <-time.After(30 * time.Second):
		t.Fatalf("server did not start\n%s", s.logs)
	}
	t.Cleanup(func() { s.stop(t) })
	return s
}

// client is a signed client of the server as the demo client, stamping
// its requests with the server's clock.
func (s *server) client() *client.Client {
	c := client.New(s.addr, "demo", "demo-secret")
	if s.clock != nil {
		c.Now = s.clock.Now
	}
	return c
}

// get sends a signed GET as the demo client and decodes the answer's JSON.
func (s *server) get(t *testing.T, c *client.Client, path string) (int, map[string]any) {
	t.Helper()
	resp, err := c.Do(context.Background(), "GET", path, nil)
	var refused *client.TokenError
	if errors.As(err, &refused) {
		resp, err = refused.Response, nil // the token request's own answer
	}
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	var body map[string]any
	json.Unmarshal(resp.Body, &body)
	return resp.Status, body
}

func (s *server) stop(t *testing.T) error {
	s.cancel()
	select {
	case err := <-s.done:
		s.done <- err // keep it for a second caller
		return err
	case <-time.After(30 * time.Second):
		t.Fatal("server did not stop")
		return nil
	}
}

// mdqs runs one command of the program in-process.
func mdqs(args ...string) (stdout, stderr string, code int) {
	out, errb := &loadgen.SyncBuffer{}, &loadgen.SyncBuffer{}
	code = exitCode(run(context.Background(), testEnv(out, errb), args), errb)
	return out.String(), errb.String(), code
}

func TestServeClientAndCallEndToEnd(t *testing.T) {
	s := startServer(t)
	if !strings.Contains(s.logs.String(), `msg="mdqs listening" addr=`+s.addr) {
		t.Fatalf("no listening line in the log:\n%s", s.logs)
	}
	// The demo client was seeded on loopback; call defaults to it.
	out, errs, code := mdqs("call", "-addr", s.addr, "GET", "/v1/api/whoami")
	if code != 0 || !strings.Contains(out, `"client_id":"demo"`) {
		t.Fatalf("call whoami as demo: code %d, out %q, err %q", code, out, errs)
	}
	// A client added from another "process" while the server runs (WAL).
	out, errs, code = mdqs("client", "add", "-db", s.db, "-id", "trader", "-scopes", "market,kline")
	if code != 0 {
		t.Fatalf("client add: %d %s", code, errs)
	}
	secret := ""
	for _, line := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(line, "client_secret="); ok {
			secret = v
		}
	}
	if len(secret) != 64 {
		t.Fatalf("client add printed no generated secret: %q", out)
	}
	out, _, code = mdqs("call", "-addr", s.addr, "-id", "trader", "-secret", secret, "GET", "/v1/api/whoami")
	if code != 0 || !strings.Contains(out, `"scopes":["market","kline"]`) {
		t.Fatalf("call as trader: %d %q", code, out)
	}
	out, _, _ = mdqs("client", "list", "-db", s.db)
	if !strings.Contains(out, "trader") || !strings.Contains(out, "market,kline") {
		t.Fatalf("client list:\n%s", out)
	}
	// A failure status exits non-zero and still prints the envelope.
	out, _, code = mdqs("call", "-addr", s.addr, "-id", "trader", "-secret", "wrong-secret", "GET", "/v1/api/whoami")
	if code != 1 || !strings.Contains(out, `"message":"unauthorized"`) {
		t.Fatalf("call with a wrong secret: code %d, out %q", code, out)
	}
	// Disabling from the command line locks the client out of the running server.
	if _, errs, code := mdqs("client", "disable", "-db", s.db, "-id", "trader"); code != 0 {
		t.Fatalf("client disable: %d %s", code, errs)
	}
	if _, _, code := mdqs("call", "-addr", s.addr, "-id", "trader", "-secret", secret, "GET", "/v1/api/whoami"); code != 1 {
		t.Fatalf("call by a disabled client: exit %d, want 1", code)
	}
	if err := s.stop(t); err != nil {
		t.Fatalf("serve returned %v after cancel", err)
	}
}

func TestGracefulShutdownFinishesTheRequestInFlight(t *testing.T) {
	s := startServer(t)
	// A token request whose body is still arriving when shutdown starts.
	conn, err := net.Dial("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"client_id":"demo","client_secret":"demo-secret"}`
	fmt.Fprintf(conn, "POST /v1/auth/token HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", s.addr, len(body), body[:10])
	time.Sleep(100 * time.Millisecond) // let the server start reading it

	s.cancel()
	// New connections are refused once the listener is closed.
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", s.addr, 200*time.Millisecond)
		if err != nil {
			break
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatal("the server still accepts connections during shutdown")
		}
		time.Sleep(20 * time.Millisecond)
	}
	select {
	case err := <-s.done:
		t.Fatalf("serve returned (%v) while a request was in flight", err)
	default:
	}
	fmt.Fprint(conn, body[10:])
	conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	status, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil || !strings.HasPrefix(status, "HTTP/1.1 200") {
		t.Fatalf("in-flight request got %q, %v; want a 200", status, err)
	}
	if err := s.stop(t); err != nil {
		t.Fatalf("serve: %v", err)
	}
	// The store was checkpointed and closed cleanly.
	raw, err := sql.Open("sqlite", s.db)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var check string
	if err := raw.QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check = %q, %v", check, err)
	}
	if fi, err := os.Stat(s.db + "-wal"); err == nil && fi.Size() > 0 {
		t.Fatalf("WAL holds %d bytes after shutdown; want it checkpointed", fi.Size())
	}
}

func TestDemoClientIsRefusedOffLoopback(t *testing.T) {
	s := startServer(t, "-addr", "0.0.0.0:0")
	if !strings.Contains(s.logs.String(), "demo client not seeded") {
		t.Fatalf("no refusal in the log:\n%s", s.logs)
	}
	port := s.addr[strings.LastIndex(s.addr, ":"):]
	out, _, code := mdqs("call", "-addr", "127.0.0.1"+port, "GET", "/v1/api/whoami")
	if code != 1 || !strings.Contains(out, "unauthorized") {
		t.Fatalf("demo credentials on a network-facing server: exit %d, %q", code, out)
	}
}

// The container image serves on 0.0.0.0 with demo.enabled = false. A
// demo client an earlier run on loopback seeded into the same store
// (the volume) must not stay usable: its secret is public.
func TestDemoClientLeftInTheStoreIsRefusedOffLoopbackWhenNotWanted(t *testing.T) {
	first := startServer(t)
	if !strings.Contains(first.logs.String(), "seeded client 'demo'") {
		t.Fatalf("the first run did not seed the demo client:\n%s", first.logs)
	}
	first.stop(t)
	s := startServerWith(t, serveOptions{db: first.db, config: "[demo]\nenabled = false\n", args: []string{"-addr", "0.0.0.0:0"}})
	port := s.addr[strings.LastIndex(s.addr, ":"):]
	out, _, code := mdqs("call", "-token-cache=false", "-addr", "127.0.0.1"+port, "GET", "/v1/api/whoami")
	if code != 1 || !strings.Contains(out, "unauthorized") {
		t.Fatalf("the demo client left in the store, served on 0.0.0.0 with demo.enabled = false: exit %d, %q; want 401\n%s", code, out, s.logs)
	}
	if !strings.Contains(s.logs.String(), "disabled the demo client left in the store") {
		t.Errorf("the log does not say the demo client was disabled:\n%s", s.logs)
	}
}

func TestDemoClientSeededOnLoopbackIsLogged(t *testing.T) {
	s := startServer(t)
	if !strings.Contains(s.logs.String(), "seeded client 'demo'") {
		t.Fatalf("log does not say the demo client was seeded:\n%s", s.logs)
	}
}

// A start says, in plain words on stdout, the page to open and the demo
// credentials (a double-clicked mdqs.exe's window shows nothing else);
// listening on every interface, the page is 127.0.0.1's and the public
// secret is not offered, since the demo client is not seeded there.
func TestServeSaysWhereTheDashboardIs(t *testing.T) {
	s := startServer(t)
	want := "打开 http://" + s.addr + "/ ，用户名 demo，密钥 demo-secret"
	if out := s.stdout.String(); !strings.Contains(out, want) || !strings.Contains(out, "log in as demo with the secret demo-secret") {
		t.Errorf("serve's stdout lacks %q:\n%s", want, out)
	}
	s = startServer(t, "-addr", "0.0.0.0:0")
	port := s.addr[strings.LastIndex(s.addr, ":"):]
	if out := s.stdout.String(); !strings.Contains(out, "http://127.0.0.1"+port+"/") || strings.Contains(out, "demo-secret") {
		t.Errorf("serve on 0.0.0.0 says:\n%s\nwant http://127.0.0.1%s/ and no demo secret", out, port)
	}
}

func TestServeRefusesBadConfiguration(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.toml")
	os.WriteFile(bad, []byte("[server]\nadress = \"127.0.0.1:1\"\n"), 0o600)
	_, errs, code := mdqs("serve", "-config", bad, "-db", filepath.Join(dir, "x.db"))
	if code != 1 || !strings.Contains(errs, `unknown key "server.adress" (line 2)`) {
		t.Fatalf("serve with an unknown key: exit %d, stderr %q", code, errs)
	}
	_, errs, code = mdqs("serve", "-config", filepath.Join(dir, "absent.toml"))
	if code != 1 || !strings.Contains(errs, "absent.toml") {
		t.Fatalf("serve with a missing config: exit %d, stderr %q", code, errs)
	}
}

// A port another program holds: the error names the address and the flag
// that picks another, and nothing is left on disk (no database, no -wal, no
// demo terminal folder), since the listen is tried before the store opens.
func TestBusyPortSuggestsAddrAndCreatesNothing(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	dir := t.TempDir()
	_, errs, code := mdqs("serve", "-config", "config.toml", "-addr", busy.Addr().String(), "-db", filepath.Join(dir, "mdqs-demo.db"))
	if code != 1 || !strings.Contains(errs, busy.Addr().String()) || !strings.Contains(errs, "-addr") {
		t.Errorf("serve on a busy port: exit %d, stderr %q; want exit 1 naming the address and -addr", code, errs)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		var names []string
		for _, e := range left {
			names = append(names, e.Name())
		}
		t.Errorf("serve on a busy port left %v on disk", names)
	}
}

// mdqs healthcheck, the image's HEALTHCHECK, passes against a serving
// server and fails (exit 1) once it has stopped.
func TestHealthcheckAgainstTheServer(t *testing.T) {
	s := startServer(t)
	if out, errs, code := mdqs("healthcheck", "-addr", s.addr); code != 0 || !strings.Contains(out, "HTTP 200") {
		t.Fatalf("healthcheck of a serving server: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	s.stop(t)
	if _, errs, code := mdqs("healthcheck", "-addr", s.addr, "-timeout", "2s"); code != 1 || !strings.Contains(errs, s.addr) {
		t.Errorf("healthcheck of a stopped server: exit %d, stderr %q; want exit 1 naming the address", code, errs)
	}
}

func TestCommandLineUsage(t *testing.T) {
	if out, _, code := mdqs("version"); code != 0 || out != "mdqs test\n" {
		t.Errorf("version: %d %q", code, out)
	}
	if _, errs, code := mdqs("frobnicate"); code != 2 || !strings.Contains(errs, "usage: mdqs") {
		t.Errorf("unknown command: %d %q", code, errs)
	}
	for _, args := range [][]string{
		{"client"}, {"client", "add"}, {"client", "add", "-id", "bad id!"},
		{"client", "add", "-id", "x", "-scopes", "root"}, {"client", "add", "-id", "x", "-expires", "2001-01-01"},
		{"client", "add", "-id", "x", "-secret", "short"}, {"client", "add", "-id", "x", "-api-key", "short"},
		{"call"}, {"call", "GET"}, {"call", "GET", "no-slash"}, {"serve", "-nope"},
	} {
		if _, errs, code := mdqs(args...); code != 2 {
			t.Errorf("mdqs %v: exit %d (%s), want 2", args, code, errs)
		}
	}
	store := filepath.Join(t.TempDir(), "x.db")
	if _, errs, code := mdqs("client", "add", "-db", store, "-id", "someone"); code != 0 {
		t.Fatalf("client add: %s", errs)
	}
	if _, errs, code := mdqs("client", "disable", "-db", store, "-id", "ghost"); code != 1 || !strings.Contains(errs, "no client") {
		t.Errorf("disable an unknown client: %d %q", code, errs)
	}
}

func TestClientAddReplaceRevokesTokensAndHonoursFlags(t *testing.T) {
	s := startServer(t)
	add := func(args ...string) {
		t.Helper()
		if _, errs, code := mdqs(append([]string{"client", "add", "-db", s.db, "-id", "k"}, args...)...); code != 0 {
			t.Fatalf("client add %v: %s", args, errs)
		}
	}
	add("-secret", "first-secret", "-scopes", "*", "-api-key", "key-0123456789abcdef", "-expires", "2099-12-31", "-log")
	out, _, code := mdqs("call", "-addr", s.addr, "-id", "k", "-secret", "first-secret", "-api-key", "key-0123456789abcdef", "GET", "/v1/api/whoami")
	var env struct {
		Data struct {
			Scopes    []string `json:"scopes"`
			EnableLog bool     `json:"enable_log"`
		}
	}
	json.Unmarshal([]byte(out), &env)
	if code != 0 || len(env.Data.Scopes) != 8 || !env.Data.EnableLog {
		t.Fatalf("whoami of the flagged client: %d %s", code, out)
	}
	if _, _, code := mdqs("call", "-addr", s.addr, "-id", "k", "-secret", "first-secret", "GET", "/v1/api/whoami"); code != 1 {
		t.Fatal("call without the client's api-key succeeded")
	}
	add("-secret", "second-secret")
	if _, _, code := mdqs("call", "-addr", s.addr, "-id", "k", "-secret", "first-secret", "GET", "/v1/api/whoami"); code != 1 {
		t.Fatal("the old secret still works after the client was replaced")
	}
	if out, _, code := mdqs("call", "-addr", s.addr, "-id", "k", "-secret", "second-secret", "GET", "/v1/api/whoami"); code != 0 {
		t.Fatalf("the new secret fails: %s", out)
	}
}

// `mdqs config defaults` prints the one file of defaults, which parses to
// the configuration a file with no keys gives; `check` says the mode.
func TestConfigCommand(t *testing.T) {
	out, errs, code := mdqs("config", "defaults")
	if code != 0 || !strings.Contains(out, "[server]") || !strings.Contains(out, `default = "demo"`) {
		t.Fatalf("config defaults: %d %q %s", code, errs, out[:min(len(out), 200)])
	}
	printed := filepath.Join(t.TempDir(), "config.toml")
	os.WriteFile(printed, []byte(out), 0o600)
	if out, errs, code := mdqs("config", "check", "-config", printed); code != 0 || !strings.Contains(out, "demo mode (sources.default = demo), database mdqs-demo.db") {
		t.Fatalf("config check of the printed defaults: %d %q %q", code, out, errs)
	}
	if got, _ := os.ReadFile("config.toml"); out != string(got) {
		t.Errorf("config defaults does not print the shipped config.toml")
	}
	// The printed file goes live by changing sources.default alone: before,
	// its tdx.dir = "demo" made that a configuration error.
	for _, mode := range []string{"auto", "push2", "akshare"} {
		switched := filepath.Join(t.TempDir(), mode+".toml")
		os.WriteFile(switched, []byte(strings.Replace(out, `default = "demo"`, `default = "`+mode+`"`, 1)), 0o600)
		want := "live mode (sources.default = " + mode + "), database mdqs.db"
		if out, errs, code := mdqs("config", "check", "-config", switched); code != 0 || !strings.Contains(out, want) {
			t.Errorf("config check of the printed defaults with sources.default = %q: exit %d %q %q; want %q", mode, code, out, errs, want)
		}
	}
	live := filepath.Join(t.TempDir(), "live.toml")
	os.WriteFile(live, []byte("[sources]\ndefault = \"auto\"\n"), 0o600)
	if out, _, code := mdqs("config", "check", "-config", live); code != 0 || !strings.Contains(out, "live mode (sources.default = auto), database mdqs.db") {
		t.Fatalf("config check of a live file: %d %q", code, out)
	}
	if _, _, code := mdqs("config", "frob"); code != 2 {
		t.Fatalf("config frob: exit %d, want 2", code)
	}
}

// `mdqs backup` copies a served store without stopping the server, says
// what it checked, and refuses (exit 1 or 2, with the fix) an existing
// file without -force, the database itself, no -to, and a PostgreSQL
// store, naming PostgreSQL's own tools; the copy opens as a store.
func TestBackupCommand(t *testing.T) {
	s := startServer(t)
	copyPath := filepath.Join(t.TempDir(), "backup.db")
	out, errs, code := mdqs("backup", "-db", s.db, "-to", copyPath)
	if code != 0 || !strings.Contains(out, "backed up ") || !strings.Contains(out, "into "+copyPath) ||
		!strings.Contains(out, "SQLite's integrity check ok, schema version ") || !strings.Contains(errs, "database "+s.db) {
		t.Fatalf("mdqs backup of a served store: exit %d\n%s%s", code, out, errs)
	}
	if out, errs, code := mdqs("client", "list", "-db", copyPath); code != 0 || !strings.Contains(out, "demo") {
		t.Errorf("client list on the copy: exit %d\n%s%s", code, out, errs)
	}
	if _, errs, code := mdqs("backup", "-db", s.db, "-to", copyPath); code != 1 || !strings.Contains(errs, copyPath+" already exists: add -force") {
		t.Errorf("backup onto an existing file: exit %d %q", code, errs)
	}
	if out, errs, code := mdqs("backup", "-db", s.db, "-to", copyPath, "-force"); code != 0 || !strings.Contains(out, "integrity check ok") {
		t.Errorf("backup -force: exit %d\n%s%s", code, out, errs)
	}
	if _, errs, code := mdqs("backup", "-db", s.db, "-to", s.db, "-force"); code != 1 || !strings.Contains(errs, "is the database itself") {
		t.Errorf("backup onto the database: exit %d %q", code, errs)
	}
	if _, errs, code := mdqs("backup", "-db", s.db); code != 2 || !strings.Contains(errs, "give -to") {
		t.Errorf("backup without -to: exit %d %q", code, errs)
	}
	if _, errs, code := mdqs("backup", "-db", "postgres://trader:secret@db.lan/mdqs", "-to", copyPath); code != 2 ||
		!strings.Contains(errs, "pg_dump") || !strings.Contains(errs, "pg_basebackup") || strings.Contains(errs, "secret") {
		t.Errorf("backup of a PostgreSQL store: exit %d %q", code, errs)
	}
}

// mdqsEnv runs one command in-process with these environment variables
// (every other one unset), e.g. a cache folder of the test's own.
func mdqsEnv(vars map[string]string, args ...string) (stdout, stderr string, code int) {
	out, errb := &loadgen.SyncBuffer{}, &loadgen.SyncBuffer{}
	env := testEnv(out, errb)
	env.Getenv = func(k string) string { return vars[k] }
	if dir := vars["XDG_CACHE_HOME"]; dir != "" {
		env.CacheDir = func() (string, error) { return dir, nil }
	}
	code = exitCode(run(context.Background(), env, args), errb)
	return out.String(), errb.String(), code
}

// Every way of asking for help answers on stdout with exit 0: the command
// list at the top, the subcommands of a group, the flags of a command.
func TestHelpForEveryCommand(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"--help"}, {"-help"}, {"help"}} {
		out, errs, code := mdqs(args...)
		if code != 0 || !strings.Contains(out, "commands:") || !strings.Contains(out, "service") || !strings.Contains(out, "backfill") {
			t.Errorf("mdqs %v: exit %d, stdout %q, stderr %q; want the command list", args, code, out, errs)
		}
	}
	for _, tc := range []struct {
		args []string
		want []string // in stdout
	}{
		{[]string{"serve", "-h"}, []string{"-config", "-addr", "-db"}},
		{[]string{"call", "-h"}, []string{"METHOD PATH", "-addr", "-pretty", "-token-cache"}},
		{[]string{"client", "-h"}, []string{"add", "list", "disable", "enable"}},
		{[]string{"client", "--help"}, []string{"add", "list"}},
		{[]string{"client", "add", "-h"}, []string{"-id", "-secret", "-scopes", "-db"}},
		{[]string{"client", "list", "-h"}, []string{"-db", "-config"}},
		{[]string{"client", "disable", "-h"}, []string{"-id", "-db"}},
		{[]string{"client", "enable", "-h"}, []string{"-id", "-db"}},
		{[]string{"calendar", "-h"}, []string{"import", "status"}},
		{[]string{"calendar", "import", "-h"}, []string{"FILE", "-db", "-create"}},
		{[]string{"calendar", "status", "-h"}, []string{"-db"}},
		{[]string{"config", "-h"}, []string{"defaults", "check"}},
		{[]string{"config", "check", "-h"}, []string{"-config"}},
		{[]string{"reports", "-h"}, []string{"import"}},
		{[]string{"reports", "import", "-h"}, []string{"-period", "-code", "-db", "-create"}},
		{[]string{"lhb", "-h"}, []string{"backfill"}},
		{[]string{"lhb", "backfill", "-h"}, []string{"-from", "-to", "-force", "-db", "-create"}},
		{[]string{"backfill", "-h"}, []string{"-codes", "-freq", "-from", "-create"}},
		{[]string{"export", "-h"}, []string{"-what", "-codes", "-freq", "-from", "-to", "-out", "-format", "-adjust", "-qlib", "-store-only", "-db"}},
		{[]string{"import", "-h"}, []string{"tdx"}},
		{[]string{"import", "tdx", "-h"}, []string{"-dir", "-db", "-create"}},
		{[]string{"migrate-store", "-h"}, []string{"-from", "-to", "run again", "PGPASSWORD"}},
		{[]string{"backup", "-h"}, []string{"-to", "-force", "-db", "-config", "pg_dump"}},
		{[]string{"service", "-h"}, []string{"install", "uninstall", "start", "stop", "status"}},
		{[]string{"service", "install", "-h"}, []string{"-config", "-db", "-name", "-user"}},
		{[]string{"service", "status", "-h"}, []string{"-name", "-user"}},
		{[]string{"version", "-h"}, []string{"usage: mdqs version"}},
		{[]string{"healthcheck", "-h"}, []string{"-addr", "-timeout", "/healthz"}},
	} {
		out, errs, code := mdqs(tc.args...)
		if code != 0 {
			t.Errorf("mdqs %v: exit %d (stderr %q), want 0", tc.args, code, errs)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("mdqs %v: stdout lacks %q:\n%s", tc.args, w, out)
			}
		}
	}
	// A mistake still prints the usage, on stderr, with exit 2.
	if out, errs, code := mdqs("client", "add", "-bogus"); code != 2 || out != "" || !strings.Contains(errs, "-secret") {
		t.Errorf("client add -bogus: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if _, errs, code := mdqs("client"); code != 2 || !strings.Contains(errs, "disable") {
		t.Errorf("client with no subcommand: exit %d, stderr %q", code, errs)
	}
}

// Flags may follow the arguments, as in `mdqs calendar import FILE -db X`;
// after "--" everything is an argument.
func TestFlagsAfterArguments(t *testing.T) {
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "x.db")
	if _, errs, code := mdqs("client", "add", "-id", "a", "-db", dbPath); code != 0 {
		t.Fatalf("client add: %s", errs)
	}
	holidays := filepath.Join(dir, "h.csv")
	os.WriteFile(holidays, []byte("2027-01-01,New Year\n"), 0o600)
	if out, errs, code := mdqs("calendar", "import", holidays, "-db", dbPath); code != 0 || !strings.Contains(out, "imported 1 holidays") {
		t.Fatalf("calendar import FILE -db X: exit %d %q %q", code, out, errs)
	}
	if _, errs, code := mdqs("calendar", "import", "-db", dbPath, "--", "-not-a-flag.csv"); code != 2 || !strings.Contains(errs, "-not-a-flag.csv") {
		t.Fatalf("an argument after --: exit %d %q", code, errs)
	}
}

// No command but serve and `client add` creates a database: each says the
// file it uses, and a missing one is an error naming it. `client add`
// creates one (a first client on a fresh install) and says so; the
// importers create one only with -create.
func TestCommandsNeverCreateADatabaseSilently(t *testing.T) {
	dir := t.TempDir()
	absent := filepath.Join(dir, "absent.db")
	cfg := filepath.Join(dir, "config.toml")
	os.WriteFile(cfg, []byte("[server]\ndb = "+strconv.Quote(absent)+"\n"), 0o600)
	holidays := filepath.Join(dir, "h.csv")
	os.WriteFile(holidays, []byte("2027-01-01,New Year\n"), 0o600)
	tdxDir := filepath.Join(dir, "tdx")
	os.MkdirAll(tdxDir, 0o755)
	for _, args := range [][]string{
		{"client", "list"},
		{"client", "disable", "-id", "x"},
		{"client", "enable", "-id", "x"},
		{"calendar", "status"},
		{"calendar", "import", holidays},
		{"reports", "import", "-period", "2024Q3"},
		{"lhb", "backfill", "-from", "2026-09-01", "-to", "2026-09-04"},
		{"backfill", "-codes", "600519.SH", "-from", "2026-01-05"},
		{"export", "-codes", "600519.SH", "-from", "2026-01-05", "-out", filepath.Join(dir, "bars.csv")},
		{"import", "tdx", "-dir", tdxDir, "-db", absent},
		{"backup", "-to", filepath.Join(dir, "backup.db")},
	} {
		for _, how := range [][]string{{"-db", absent}, {"-config", cfg}} {
			full := append(append([]string{}, args...), how...)
			_, errs, code := mdqs(full...)
			if code != 1 || !strings.Contains(errs, absent) || !strings.Contains(errs, "does not exist") {
				t.Errorf("mdqs %v: exit %d, stderr %q; want exit 1 naming %s", full, code, errs, absent)
			}
			if _, err := os.Stat(absent); err == nil {
				t.Fatalf("mdqs %v created %s", full, absent)
			}
		}
	}

	out, errs, code := mdqs("client", "add", "-id", "first", "-config", cfg)
	if code != 0 || !strings.Contains(errs, "created "+absent) || !strings.Contains(out, "client_secret=") {
		t.Fatalf("client add on a fresh install: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if _, err := os.Stat(absent); err != nil {
		t.Fatalf("client add did not create the store: %v", err)
	}
	out, errs, code = mdqs("client", "list", "-config", cfg)
	if code != 0 || !strings.Contains(out, "first") || !strings.Contains(errs, "database "+absent) {
		t.Fatalf("client list: exit %d, stdout %q, stderr %q; want the client and the file named", code, out, errs)
	}

	fresh := filepath.Join(dir, "fresh.db")
	if out, errs, code := mdqs("calendar", "import", holidays, "-db", fresh, "-create"); code != 0 || !strings.Contains(errs, "created "+fresh) {
		t.Fatalf("calendar import -create: exit %d %q %q", code, out, errs)
	}
}

// liveTokens counts a client's tokens in the server's store.
func liveTokens(t *testing.T, dbPath, clientID string) int {
	t.Helper()
	raw, err := sql.Open("sqlite", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var n int
	if err := raw.QueryRow(`SELECT COUNT(*) FROM tokens WHERE client_id = ? AND expires_at > ?`, clientID, time.Now().UnixMilli()).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// tokenFile is the one file of the token cache under dir.
func tokenFile(t *testing.T, cacheDir string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(cacheDir, "mdqs", "tokens", "*.json"))
	if len(files) != 1 {
		t.Fatalf("token cache files: %v, want one", files)
	}
	return files[0]
}

// `mdqs call` in a shell loop reuses one token: the token endpoint's rate
// limit (burst 20, then 1/s) refused a third of 30 calls when each asked
// for its own, and each new token past 20 evicted one of the client's.
func TestCallReusesItsToken(t *testing.T) {
	s := startServer(t)
	cacheDir := t.TempDir()
	vars := map[string]string{"XDG_CACHE_HOME": cacheDir}
	call := func(args ...string) (string, string, int) {
		return mdqsEnv(vars, append([]string{"call", "-addr", s.addr}, args...)...)
	}
	for i := range 30 {
		if out, errs, code := call("GET", "/v1/api/whoami"); code != 0 {
			t.Fatalf("call %d: exit %d, %q %q", i+1, code, out, errs)
		}
	}
	if n := liveTokens(t, s.db, "demo"); n != 1 {
		t.Fatalf("30 calls left %d tokens, want 1", n)
	}
	file := tokenFile(t, cacheDir)
	raw, _ := os.ReadFile(file)
	var cached struct {
		Token   string    `json:"token"`
		Expires time.Time `json:"expires"`
	}
	if err := json.Unmarshal(raw, &cached); err != nil || len(cached.Token) != 64 || cached.Expires.Before(time.Now().Add(time.Hour)) {
		t.Fatalf("cache file %s: %s (%v)", file, raw, err)
	}
	if strings.Contains(string(raw), "demo-secret") || strings.Contains(string(raw), "demo\"") {
		t.Errorf("the cache file holds more than the token: %s", raw)
	}
	if runtime.GOOS != "windows" {
		if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o600 {
			t.Errorf("cache file mode %v, want 0600", fi.Mode().Perm())
		}
		if fi, _ := os.Stat(filepath.Dir(file)); fi.Mode().Perm() != 0o700 {
			t.Errorf("cache folder mode %v, want 0700", fi.Mode().Perm())
		}
	}

	// Flags after the path.
	if out, errs, code := call("GET", "/v1/api/whoami", "-pretty", "-v"); code != 0 || !strings.Contains(out, "\n  \"code\": 1") || !strings.Contains(errs, "token: reused") {
		t.Fatalf("call GET PATH -pretty -v: exit %d, %q %q", code, out, errs)
	}

	// A token about to expire is renewed before it is sent.
	cached.Expires = time.Now().Add(30 * time.Second)
	b, _ := json.Marshal(cached)
	os.WriteFile(file, b, 0o600)
	if _, errs, code := call("GET", "/v1/api/whoami", "-v"); code != 0 || !strings.Contains(errs, "token: new") {
		t.Fatalf("call with a token 30 s from expiry: exit %d %q", code, errs)
	}
	if n := liveTokens(t, s.db, "demo"); n != 2 {
		t.Fatalf("tokens after the renewal: %d, want 2", n)
	}

	// -token-cache=false asks for a token each time, and leaves the file.
	before, _ := os.ReadFile(file)
	if _, _, code := call("-token-cache=false", "GET", "/v1/api/whoami"); code != 0 || liveTokens(t, s.db, "demo") != 3 {
		t.Fatalf("-token-cache=false: exit %d, %d tokens", code, liveTokens(t, s.db, "demo"))
	}
	if after, _ := os.ReadFile(file); string(after) != string(before) {
		t.Fatal("-token-cache=false rewrote the cache")
	}
}

// A cached token that the server evicted (the client's 21st token) is
// renewed; a 401 a new token cannot cure spends none.
func TestCallRenewsOnlyAGoneToken(t *testing.T) {
	s := startServerWith(t, serveOptions{config: "[limits]\ntoken_rate = 0.0\n"})
	cacheDir := t.TempDir()
	vars := map[string]string{"XDG_CACHE_HOME": cacheDir}
	call := func(args ...string) (string, string, int) {
		return mdqsEnv(vars, append([]string{"call", "-addr", s.addr}, args...)...)
	}
	if _, errs, code := call("GET", "/v1/api/whoami"); code != 0 {
		t.Fatal(errs)
	}
	first, _ := os.ReadFile(tokenFile(t, cacheDir))
	other := client.New(s.addr, "demo", "demo-secret") // another script of the same client
	for range 20 {
		if _, _, err := other.RequestToken(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if out, errs, code := call("GET", "/v1/api/whoami", "-v"); code != 0 || !strings.Contains(errs, "token: new") {
		t.Fatalf("call with an evicted cached token: exit %d %q %q", code, out, errs)
	}
	if now, _ := os.ReadFile(tokenFile(t, cacheDir)); string(now) == string(first) {
		t.Fatal("the evicted token is still cached")
	}

	// A client that needs an api-key, called without it: the 401 is about
	// the key, so one token is spent, once, and kept.
	if _, errs, code := mdqs("client", "add", "-db", s.db, "-id", "k", "-secret", "k-secret-1", "-scopes", "*", "-api-key", "key-0123456789abcdef"); code != 0 {
		t.Fatal(errs)
	}
	for i := range 3 {
		out, _, code := call("-id", "k", "-secret", "k-secret-1", "GET", "/v1/api/whoami")
		if code != 1 || !strings.Contains(out, "api-key") {
			t.Fatalf("call %d without the api-key: exit %d %q", i+1, code, out)
		}
		if n := liveTokens(t, s.db, "k"); n != 1 {
			t.Fatalf("after %d calls refused for the api-key: %d tokens, want 1", i+1, n)
		}
	}
	if out, errs, code := call("-id", "k", "-secret", "k-secret-1", "-api-key", "key-0123456789abcdef", "GET", "/v1/api/whoami"); code != 0 || liveTokens(t, s.db, "k") != 1 {
		t.Fatalf("with the api-key: exit %d %q %q, %d tokens", code, out, errs, liveTokens(t, s.db, "k"))
	}
}

// `mdqs call -stream` prints a stream's lines as they come: an interrupt
// ends it quietly (exit 0), and so does the server's shutdown, which ends
// its streams with an end event instead of waiting its shutdown_timeout
// for them.
func TestCallStreamUntilInterruptOrShutdown(t *testing.T) {
	// A small market and cheap hashing: under -race on a busy machine the
	// shipped market's start and the token's argon2 take most of a minute.
	// shutdown_timeout is long, so a shutdown that waited for the stream
	// would show.
	s := startServerWith(t, serveOptions{config: smallDemo + "[server]\nshutdown_timeout = \"60s\"\n", cheapHash: true})
	callStream := func(ctx context.Context) (*loadgen.SyncBuffer, *loadgen.SyncBuffer, chan int) {
		out, errb := &loadgen.SyncBuffer{}, &loadgen.SyncBuffer{}
		done := make(chan int, 1)
		go func() {
			done <- exitCode(run(ctx, testEnv(out, errb), []string{"call", "-addr", s.addr, "-token-cache=false", "-stream",
				"GET", "/v1/api/stream?topics=ranking,movements"}), errb)
		}()
		deadline := time.Now().Add(time.Minute)
		for !strings.Contains(out.String(), "event: open") {
			if time.Now().After(deadline) {
				t.Fatalf("no open event: stdout %q, stderr %q", out, errb)
			}
			time.Sleep(10 * time.Millisecond)
		}
		return out, errb, done
	}
	wait := func(done chan int) int {
		select {
		case code := <-done:
			return code
		case <-time.After(time.Minute):
			t.Fatal("mdqs call -stream did not end")
			return -1
		}
	}

	ctx, interrupt := context.WithCancel(context.Background())
	out, errb, done := callStream(ctx)
	interrupt()
	if code := wait(done); code != 0 || !strings.HasPrefix(out.String(), "retry: ") {
		t.Fatalf("interrupted: exit %d, stdout %q, stderr %q", code, out, errb)
	}

	out, errb, done = callStream(context.Background())
	start := time.Now()
	if err := s.stop(t); err != nil {
		t.Fatalf("serve: %v", err)
	}
	if took := time.Since(start); took >= 60*time.Second {
		t.Errorf("shutdown with a stream open took %v: it waited for the stream until shutdown_timeout", took)
	}
	if code := wait(done); code != 0 || !strings.Contains(out.String(), "event: end\ndata: {\"reason\":\"shutdown\"") {
		t.Fatalf("at shutdown: exit %d, stdout %q, stderr %q", code, out, errb)
	}
}

// stream.max_per_client is the hub's cap on a client's open streams: with
// 2 configured, the third stream of a client is 429, naming the setting.
func TestStreamCapIsTheSetting(t *testing.T) {
	s := startServerWith(t, serveOptions{config: smallDemo + "[stream]\nmax_per_client = 2\n", cheapHash: true})
	c := s.client()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := c.Token(ctx); err != nil {
		t.Fatal(err)
	}
	opened := make(chan struct{}, 2)
	for range 2 {
		go c.Stream(ctx, "/v1/api/stream?topics=ranking", nil, func(line string) error {
			if line == "event: open" {
				opened <- struct{}{}
			}
			return nil
		})
	}
	for range 2 {
		select {
		case <-opened:
		case <-time.After(time.Minute):
			t.Fatalf("two streams did not open\n%s", s.logs)
		}
	}
	resp, err := c.Stream(ctx, "/v1/api/stream?topics=ranking", nil, func(string) error { return errors.New("the third stream opened") })
	if err != nil || resp.Status != 429 || !strings.Contains(string(resp.Body), "stream.max_per_client = 2") {
		t.Fatalf("third stream: %v %+v", err, resp)
	}
}

// Log lines carry their time in the API's zone, Asia/Shanghai, with the
// offset written, whatever the host's zone (CI's is UTC): 03:04:05 UTC is
// 11:04:05+08:00.
func TestLogTimesAreShanghaiWithOffset(t *testing.T) {
	at := time.Date(2026, 11, 23, 3, 4, 5, 6e6, time.UTC)
	for _, tc := range []struct{ format, want string }{
		{"text", "time=2026-11-23T11:04:05.006+08:00 level=INFO msg=listening"},
		{"json", `{"time":"2026-11-23T11:04:05.006+08:00","level":"INFO","msg":"listening"}`},
	} {
		var b bytes.Buffer
		h := newLogger(config.Log{Level: "info", Format: tc.format}, &b).Handler()
		if err := h.Handle(context.Background(), slog.NewRecord(at, slog.LevelInfo, "listening", 0)); err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(b.String()); got != tc.want {
			t.Errorf("%s log line = %s, want %s", tc.format, got, tc.want)
		}
	}
}
