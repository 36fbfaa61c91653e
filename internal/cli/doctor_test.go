package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kardianos/service"

	"mdqs/db/dbtest"
	"mdqs/internal/bridge/bridgetest"
	"mdqs/internal/doctor"
	"mdqs/internal/market"
)

// doctorFixture is a live configuration beside a fake terminal folder, a
// store with a client, and every upstream a local server.
func doctorFixture(t *testing.T, upstream string) (env Env, out, errs *bytes.Buffer, configPath string) {
	t.Helper()
	dir := t.TempDir()
	term := filepath.Join(dir, "new_tdx")
	bridgetest.Write(t, term)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	configPath = filepath.Join(dir, "config.toml")
	var urls strings.Builder
	for _, section := range []string{"sources.push2", "sources.push2his", "hot_rank.eastmoney", "news.eastmoney", "news.notices", "finance.datacenter",
		"lhb.datacenter", "limit_pools.push2ex", "securities.sse", "securities.szse"} {
		fmt.Fprintf(&urls, "[%s]\nbase_url = %q\n", section, upstream)
		if strings.HasPrefix(section, "sources.") {
			urls.WriteString("fallback_urls = []\n")
		}
	}
	text := fmt.Sprintf("[server]\naddr = %q\ndb = %q\n[sources]\ndefault = \"push2\"\n[tdx]\ndir = %q\n%s", addr, filepath.Join(dir, "live.db"), term, urls.String())
	if err := os.WriteFile(configPath, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errs = &bytes.Buffer{}, &bytes.Buffer{}
	env = Env{Stdin: strings.NewReader(""), Stdout: out, Stderr: errs, Getenv: func(string) string { return "" }, SQLiteSchema: dbtest.SQLiteSchema(t)}
	if err := Clients(context.Background(), env, []string{"add", "-config", configPath, "-id", "desk"}); err != nil {
		t.Fatalf("client add: %v\n%s", err, errs)
	}
	out.Reset()
	errs.Reset()
	return env, out, errs, configPath
}

// testDoctorDeps: a service manager that says the service is installed
// and stopped, no drives to look on, this machine's clock (the upstreams'
// Date headers are real).
func testDoctorDeps(fake *fakeService) doctorDeps {
	return doctorDeps{
		service: serviceDeps{goos: "linux", newService: func(c *service.Config) (service.Service, error) { fake.config = c; return fake, nil }},
		drives:  func() []doctor.Drive { return nil },
		clock:   market.SystemClock{},
	}
}

func TestDoctorCommand(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"rc":0}`)) }))
	defer up.Close()
	ctx := context.Background()

	t.Run("nothing blocks", func(t *testing.T) {
		env, out, _, configPath := doctorFixture(t, up.URL)
		if err := doctorCommand(ctx, env, []string{"-config", configPath, "-json"}, testDoctorDeps(&fakeService{status: service.StatusStopped})); err != nil {
			t.Fatalf("doctor: %v\n%s", err, out)
		}
		var rep struct {
			Mode     string `json:"mode"`
			Blocking int    `json:"blocking"`
			Checks   []struct{ Name, Status, Found, Fix string }
		}
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
			t.Fatalf("-json: %v\n%s", err, out)
		}
		got := map[string]string{}
		for _, c := range rep.Checks {
			got[c.Name] = c.Status + ": " + c.Found
		}
		for name, want := range map[string]string{
			"configuration":     "ok: " + configPath + ": live mode",
			"port":              "ok: 127.0.0.1:",
			"store":             "ok: SQLite file ",
			"terminal":          "warn: tdx.dir = ", // the fake folder's bars end on 2026-11-20
			"upstream push2":    "ok: " + up.URL + " answers 200 OK",
			"upstream push2his": "ok: ",
			"clock":             "ok: this machine's clock agrees",
			"service":           "ok: service mdqs (fake-platform) is installed and stopped",
		} {
			if !strings.HasPrefix(got[name], want) {
				t.Errorf("check %s = %q, want it to start %q", name, got[name], want)
			}
		}
		if rep.Mode != "live" || rep.Blocking != 0 || !strings.Contains(got["store"], "1 client(s) may log in") || !strings.Contains(got["terminal"], "vipdoc daily files") {
			t.Errorf("report: mode %q, %d blocking, store %q, terminal %q", rep.Mode, rep.Blocking, got["store"], got["terminal"])
		}
	})

	t.Run("a needed upstream is down", func(t *testing.T) {
		ln, _ := net.Listen("tcp", "127.0.0.1:0")
		down := "http://" + ln.Addr().String()
		ln.Close()
		env, out, errs, configPath := doctorFixture(t, down)
		err := doctorCommand(ctx, env, []string{"-config", configPath, "-timeout", "2s"}, testDoctorDeps(&fakeService{err: service.ErrNotInstalled}))
		var ee *ExitError
		if !errors.As(err, &ee) || ee.Code != 1 || !strings.Contains(err.Error(), "upstream push2, upstream push2his") {
			t.Fatalf("doctor with the upstreams down: %v, want exit 1 naming them", err)
		}
		for _, w := range []string{"FAIL  upstream push2 ", "connection refused", "service mdqs is not installed", "blocking problem(s)"} {
			if !strings.Contains(out.String(), w) {
				t.Errorf("output lacks %q:\n%s", w, out)
			}
		}
		if !strings.Contains(errs.String(), "checking") {
			t.Errorf("stderr: %q", errs)
		}
	})

	// Checked as serve reads it: MDQS_* variables over the file, and the
	// check names them.
	t.Run("the environment sets keys over the file", func(t *testing.T) {
		env, out, _, configPath := doctorFixture(t, up.URL)
		secret := filepath.Join(t.TempDir(), "db")
		os.WriteFile(secret, []byte(filepath.Join(t.TempDir(), "elsewhere.db")), 0o600)
		env.Environ = func() []string {
			return []string{"MDQS_SERVER_DB_FILE=" + secret, "MDQS_HOT_RANK_EASTMONEY_BASE_URL=" + up.URL + "/hot"}
		}
		if err := doctorCommand(ctx, env, []string{"-config", configPath}, testDoctorDeps(&fakeService{})); err != nil {
			t.Fatalf("doctor: %v\n%s", err, out)
		}
		for _, w := range []string{"from the environment: MDQS_HOT_RANK_EASTMONEY_BASE_URL, MDQS_SERVER_DB_FILE", "elsewhere.db: does not exist yet", up.URL + "/hot answers"} {
			if !strings.Contains(out.String(), w) {
				t.Errorf("output lacks %q:\n%s", w, out)
			}
		}
	})

	t.Run("a bad configuration", func(t *testing.T) {
		env, out, _, configPath := doctorFixture(t, up.URL)
		os.WriteFile(configPath, []byte("[sources]\ndefualt = \"push2\"\n"), 0o600)
		err := doctorCommand(ctx, env, []string{"-config", configPath}, testDoctorDeps(&fakeService{}))
		if err == nil || !strings.Contains(out.String(), "FAIL  configuration") || !strings.Contains(out.String(), "defualt") {
			t.Errorf("doctor on a bad configuration: %v\n%s", err, out)
		}
	})

	for _, args := range [][]string{{"-timeout", "0s"}, {"extra"}, {"-bogus"}} {
		env, _, _, _ := doctorFixture(t, up.URL)
		var ee *ExitError
		if err := doctorCommand(ctx, env, args, testDoctorDeps(&fakeService{})); !errors.As(err, &ee) || ee.Code != 2 {
			t.Errorf("doctor %q: %v, want a usage error (exit 2)", args, err)
		}
	}
}
