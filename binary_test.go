package main

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
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
	stderr, _ := srv.StderrPipe()
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Process.Kill()
	logs := bufio.NewReader(stderr)
	listening := regexp.MustCompile(`msg="mdqs listening" addr=(\S+) mode=demo .*config="built-in defaults" version="?([^" ]+)`)
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
