package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"mdqs/internal/client"
	"mdqs/internal/loadgen"
)

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
		{[]string{"backfill", "-h"}, []string{"-codes", "-freq", "-from", "-create"}},
		{[]string{"import", "-h"}, []string{"tdx"}},
		{[]string{"import", "tdx", "-h"}, []string{"-dir", "-db", "-create"}},
		{[]string{"migrate-store", "-h"}, []string{"-from", "-to", "run again", "PGPASSWORD"}},
		{[]string{"service", "-h"}, []string{"install", "uninstall", "start", "stop", "status"}},
		{[]string{"service", "install", "-h"}, []string{"-config", "-db", "-name", "-user"}},
		{[]string{"service", "status", "-h"}, []string{"-name", "-user"}},
		{[]string{"version", "-h"}, []string{"usage: mdqs version"}},
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
		{"backfill", "-codes", "600519.SH", "-from", "2026-01-05"},
		{"import", "tdx", "-dir", tdxDir, "-db", absent},
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
