package main

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mdqs/internal/auth"
	"mdqs/internal/cli"
	"mdqs/internal/client"
	"mdqs/internal/loadgen"
	"mdqs/internal/market"
	_ "modernc.org/sqlite"
)

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
}

func startServer(t *testing.T, extraArgs ...string) *server {
	t.Helper()
	return startServerWith(t, serveOptions{args: extraArgs})
}

// startServerWith serves in-process, pinned to o.at when it is set.
func startServerWith(t *testing.T, o serveOptions) *server {
	t.Helper()
	dir := t.TempDir()
	s := &server{db: o.db, logs: &loadgen.SyncBuffer{}, done: make(chan error, 1)}
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
	if o.cheapHash {
		hooks.demoKDF = &auth.KDFParams{MemoryKiB: 64, Time: 1, Threads: 1}
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	addrc := make(chan string, 1)
	hooks.onListen = func(a net.Addr) { addrc <- a.String() }
	go func() {
		s.done <- serve(ctx, testEnv(&loadgen.SyncBuffer{}, s.logs), args, hooks)
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
	fmt.Fprintf(conn, "POST /v1/auth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body[:10])
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

func TestDemoClientSeededOnLoopbackIsLogged(t *testing.T) {
	s := startServer(t)
	if !strings.Contains(s.logs.String(), "seeded client 'demo'") {
		t.Fatalf("log does not say the demo client was seeded:\n%s", s.logs)
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
	live := filepath.Join(t.TempDir(), "live.toml")
	os.WriteFile(live, []byte("[sources]\ndefault = \"auto\"\n"), 0o600)
	if out, _, code := mdqs("config", "check", "-config", live); code != 0 || !strings.Contains(out, "live mode (sources.default = auto), database mdqs.db") {
		t.Fatalf("config check of a live file: %d %q", code, out)
	}
	if _, _, code := mdqs("config", "frob"); code != 2 {
		t.Fatalf("config frob: exit %d, want 2", code)
	}
}
