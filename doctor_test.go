package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"mdqs/internal/bridge/bridgetest"
	"mdqs/internal/loadgen"
)

func TestDoctorHelp(t *testing.T) {
	out, errs, code := mdqs("doctor", "-h")
	if code != 0 || !strings.Contains(out, "usage: mdqs doctor") || !strings.Contains(out, "-json") || !strings.Contains(out, "-timeout") {
		t.Errorf("mdqs doctor -h: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if out, _, _ := mdqs("-h"); !strings.Contains(out, "doctor ") {
		t.Errorf("the command list lacks doctor:\n%s", out)
	}
}

// A double-clicked mdqs.exe runs with no arguments in its own folder:
// that serves the demo on the built-in defaults and says, in plain words,
// where to go and how to log in. (The port comes from the environment
// here, as 8080 may be taken on a test machine.)
func TestNoArgumentsServesTheDemo(t *testing.T) {
	t.Chdir(t.TempDir()) // no config.toml: the built-in defaults
	out, errs := &loadgen.SyncBuffer{}, &loadgen.SyncBuffer{}
	env := testEnv(out, errs)
	env.Environ = func() []string { return []string{"MDQS_SERVER_ADDR=127.0.0.1:0"} }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, env, nil) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve after the stop: %v", err)
		}
	}()
	banner := regexp.MustCompile(`打开 http://127\.0\.0\.1:(\d+)/ ，用户名 demo，密钥 demo-secret`)
	deadline := time.Now().Add(60 * time.Second)
	for !banner.MatchString(out.String()) {
		select {
		case err := <-done:
			t.Fatalf("mdqs with no arguments exited: %v\n%s", err, errs)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no banner on stdout:\n%s\nlog:\n%s", out, errs)
		}
	}
	if !strings.Contains(errs.String(), "mode=demo db=mdqs-demo.db") || !strings.Contains(out.String(), "mdqs serves the demo market") {
		t.Errorf("stdout:\n%s\nlog:\n%s", out, errs)
	}
	resp, err := http.Get("http://127.0.0.1:" + banner.FindStringSubmatch(out.String())[1] + "/healthz")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /healthz at the banner's address: %v %v", resp, err)
	}
	resp.Body.Close()
}

// doctorReport is what mdqs doctor -json prints, as a script reads it.
type doctorReport struct {
	Mode     string  `json:"mode"`
	TookMS   float64 `json:"took_ms"`
	Blocking int     `json:"blocking"`
	Checks   []struct {
		Name, Status, Found, Fix string
	} `json:"checks"`
}

func (r doctorReport) check(name string) string {
	for _, c := range r.Checks {
		if c.Name == name {
			return c.Status + ": " + c.Found
		}
	}
	return ""
}

// runDoctor runs the built binary's mdqs doctor -json in dir.
func runDoctor(t *testing.T, bin, dir string, args ...string) (doctorReport, int, string) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"doctor", "-json"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir) // no Wine folder of the machine's
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	var rep doctorReport
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("mdqs doctor -json printed no report (%v):\n%s\n%s", err, out, stderr.String())
	}
	return rep, code, stderr.String()
}

// mdqs doctor as a user runs it: the built binary, a live configuration
// beside a fake terminal folder, the upstreams local servers; then the
// same with the upstreams silent (each given -timeout 1s, asked at once),
// and beside a running server, which holds the port and the store.
func TestDoctorAsABinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"rc":0}`)) }))
	defer up.Close()
	silent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer func() { silent.CloseClientConnections(); silent.Close() }()

	dir := t.TempDir()
	term := filepath.Join(dir, "new_tdx")
	bridgetest.Write(t, term)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	writeConfig := func(name, upstream string) string {
		var b strings.Builder
		fmt.Fprintf(&b, "[server]\naddr = %q\ndb = 'live.db'\n[sources]\ndefault = \"push2\"\n[tdx]\ndir = %q\n", addr, term)
		for _, s := range []string{"sources.push2", "sources.push2his", "hot_rank.eastmoney", "news.eastmoney", "news.notices", "finance.datacenter",
			"lhb.datacenter", "limit_pools.push2ex", "securities.sse", "securities.szse"} {
			fmt.Fprintf(&b, "[%s]\nbase_url = %q\n", s, upstream)
			if strings.HasPrefix(s, "sources.") {
				fmt.Fprintf(&b, "fallback_urls = [%q]\n", upstream+"/mirror")
			}
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}

	rep, code, _ := runDoctor(t, bin, dir, "-config", writeConfig("local.toml", up.URL))
	if code != 0 || rep.Mode != "live" || rep.Blocking != 0 {
		t.Fatalf("doctor against local upstreams: exit %d, %+v", code, rep)
	}
	for name, want := range map[string]string{
		"port":           "ok: " + addr + " is free",
		"store":          "warn: SQLite file " + filepath.Join(dir, "live.db") + ": does not exist yet",
		"terminal":       "warn: tdx.dir = " + term + ": vipdoc daily files sh ",
		"upstream push2": "ok: " + up.URL + " answers 200 OK in ",
		"clock":          "ok: ",
	} {
		if got := rep.check(name); !strings.HasPrefix(got, want) {
			t.Errorf("check %s = %q, want it to start %q", name, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "live.db")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("mdqs doctor made the store: %v", err)
	}
	t.Logf("mdqs doctor against local servers: %.0f ms (its own figure)", rep.TookMS)

	rep, code, _ = runDoctor(t, bin, dir, "-config", writeConfig("silent.toml", silent.URL), "-timeout", "1s")
	if code != 1 || rep.Blocking != 2 || !strings.Contains(rep.check("upstream push2"), "no answer within 1s") ||
		!strings.Contains(rep.check("upstream push2his"), "fail: ") || !strings.Contains(rep.check("upstream hot_rank.eastmoney"), "warn: ") {
		t.Fatalf("doctor with silent upstreams: exit %d, %+v", code, rep)
	}
	t.Logf("mdqs doctor with every upstream silent, -timeout 1s: %.0f ms (its own figure)", rep.TookMS)

	// A demo server running here: the port is its, and its store is open.
	s := startServer(t)
	rep, code, _ = runDoctor(t, bin, dir, "-addr", s.addr, "-db", s.db)
	if code != 0 || rep.Mode != "demo" || !strings.HasPrefix(rep.check("port"), "warn: "+s.addr+" is held by an mdqs that is running") {
		t.Fatalf("doctor beside a running server: exit %d, port %q", code, rep.check("port"))
	}
	if runtime.GOOS == "linux" && !strings.Contains(rep.check("store"), fmt.Sprintf("open in another process: pid %d", os.Getpid())) {
		t.Errorf("store beside a running server = %q, want it open in pid %d", rep.check("store"), os.Getpid())
	}
}
