package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/kardianos/service"
)

// fakeService records what the command asks of the service manager.
type fakeService struct {
	config *service.Config
	calls  []string
	status service.Status
	err    error // returned by every action
}

func (f *fakeService) Run() error                                  { return nil }
func (f *fakeService) Start() error                                { f.calls = append(f.calls, "start"); return f.err }
func (f *fakeService) Stop() error                                 { f.calls = append(f.calls, "stop"); return f.err }
func (f *fakeService) Restart() error                              { return nil }
func (f *fakeService) Install() error                              { f.calls = append(f.calls, "install"); return f.err }
func (f *fakeService) Uninstall() error                            { f.calls = append(f.calls, "uninstall"); return f.err }
func (f *fakeService) Logger(chan<- error) (service.Logger, error) { return nil, nil }
func (f *fakeService) SystemLogger(chan<- error) (service.Logger, error) {
	return nil, nil
}
func (f *fakeService) String() string   { return "fake" }
func (f *fakeService) Platform() string { return "fake-platform" }
func (f *fakeService) Status() (service.Status, error) {
	f.calls = append(f.calls, "status")
	return f.status, f.err
}

// serviceFixture is a folder holding a configuration (whose server.db is
// relative, as it usually is) and a built binary, and deps that hand out
// the fake.
func serviceFixture(t *testing.T, goos string) (env Env, out *bytes.Buffer, dir string, deps serviceDeps, fake *fakeService) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "my mdqs") // a space, as in C:\Program Files
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "config.toml"), []byte("[server]\ndb = \"live.db\"\n[sources]\ndefault = \"auto\"\n"), 0o600)
	exe := filepath.Join(dir, "mdqs")
	os.WriteFile(exe, []byte("binary"), 0o755)
	out = &bytes.Buffer{}
	env = Env{Stdin: strings.NewReader(""), Stdout: out, Stderr: out, Getenv: func(string) string { return "" }}
	fake = &fakeService{}
	deps = serviceDeps{
		goos:       goos,
		executable: func() (string, error) { return exe, nil },
		newService: func(c *service.Config) (service.Service, error) { fake.config = c; return fake, nil },
	}
	return env, out, dir, deps, fake
}

func TestServiceInstallRunsServeWithAbsolutePaths(t *testing.T) {
	for _, goos := range []string{"linux", "darwin", "windows"} {
		t.Run(goos, func(t *testing.T) {
			env, out, dir, deps, fake := serviceFixture(t, goos)
			t.Chdir(dir)
			if err := serviceCommand(context.Background(), env, []string{"install"}, deps); err != nil {
				t.Fatalf("install: %v\n%s", err, out)
			}
			c := fake.config
			realDir, _ := filepath.EvalSymlinks(dir)
			wantArgs := []string{"serve", "-config", filepath.Join(realDir, "config.toml"), "-db", filepath.Join(realDir, "live.db")}
			if !slices.Equal(fake.calls, []string{"install"}) || c.Name != "mdqs" || !slices.Equal(c.Arguments, wantArgs) {
				t.Fatalf("calls %v, name %q, arguments %q; want install of mdqs with %q", fake.calls, c.Name, c.Arguments, wantArgs)
			}
			if c.Executable != filepath.Join(realDir, "mdqs") || c.WorkingDirectory != realDir {
				t.Errorf("executable %q, working folder %q", c.Executable, c.WorkingDirectory)
			}
			if c.Option["UserService"] != false || c.Option["RunAtLoad"] != true || c.Option["Restart"] != "on-failure" || c.Option["OnFailure"] != "restart" {
				t.Errorf("options %v", c.Option)
			}
			switch goos {
			case "linux":
				if !slices.Contains(c.Dependencies, "After=network-online.target") || c.EnvVars != nil {
					t.Errorf("linux: dependencies %q, env %v", c.Dependencies, c.EnvVars)
				}
				if unit, _ := c.Option["SystemdScript"].(string); !strings.Contains(unit, "WantedBy=multi-user.target\n") {
					t.Errorf("a system unit starts at boot, with multi-user.target:\n%s", unit)
				}
			case "windows":
				if c.EnvVars[envServiceDir] != realDir || c.EnvVars[envServiceName] != "mdqs" || !strings.Contains(out.String(), serviceLogName) {
					t.Errorf("windows: env %v; output %q", c.EnvVars, out)
				}
			}
			if !strings.Contains(out.String(), "installed service mdqs") || !strings.Contains(out.String(), "mdqs service start") {
				t.Errorf("output %q", out)
			}
		})
	}

	// -db and -config are taken relative to where install runs; -user and
	// -name reach the manager.
	env, out, dir, deps, fake := serviceFixture(t, "linux")
	elsewhere := t.TempDir()
	t.Chdir(elsewhere)
	err := serviceCommand(context.Background(), env, []string{"install", "-config", filepath.Join(dir, "config.toml"), "-db", "x.db", "-user", "-name", "mdqs-live"}, deps)
	if err != nil {
		t.Fatalf("install -user: %v\n%s", err, out)
	}
	realElsewhere, _ := filepath.EvalSymlinks(elsewhere)
	if db := fake.config.Arguments[4]; db != filepath.Join(elsewhere, "x.db") && db != filepath.Join(realElsewhere, "x.db") {
		t.Errorf("-db x.db became %q", db)
	}
	if fake.config.Name != "mdqs-live" || fake.config.Option["UserService"] != true || fake.config.Dependencies != nil {
		t.Errorf("config %+v", fake.config)
	}
	if !strings.Contains(out.String(), "at login") || !strings.Contains(out.String(), "mdqs service start -name mdqs-live -user") {
		t.Errorf("output %q", out)
	}
}

func TestServiceRefusals(t *testing.T) {
	env, out, dir, deps, fake := serviceFixture(t, "linux")
	empty := t.TempDir()
	t.Chdir(empty)
	for _, tc := range []struct {
		goos string
		args []string
		code int
		text string
	}{
		{"linux", nil, 2, "no command given"},
		{"linux", []string{"reinstall"}, 2, `unknown command "reinstall"`},
		{"linux", []string{"install"}, 1, "no configuration file"},
		{"linux", []string{"install", "-config", filepath.Join(empty, "absent.toml")}, 1, "absent.toml"},
		{"linux", []string{"install", "-config", filepath.Join(dir, "config.toml"), "extra"}, 2, `unexpected argument "extra"`},
		{"linux", []string{"install", "-config", filepath.Join(dir, "config.toml"), "-name", "my service"}, 2, "-name"},
		{"windows", []string{"install", "-config", filepath.Join(dir, "config.toml"), "-user"}, 2, "-user is for Linux and macOS"},
		{"windows", []string{"status", "-user"}, 2, "-user is for Linux and macOS"},
	} {
		deps.goos = tc.goos
		err := serviceCommand(context.Background(), env, tc.args, deps)
		var ee *ExitError
		if !errors.As(err, &ee) || ee.Code != tc.code || !strings.Contains(err.Error(), tc.text) {
			t.Errorf("service %q on %s = %v, want exit %d saying %q", tc.args, tc.goos, err, tc.code, tc.text)
		}
	}
	if len(fake.calls) != 0 {
		t.Errorf("refused commands reached the manager: %v", fake.calls)
	}

	// go run's binary is deleted when it exits: a service of it would
	// never start.
	deps.goos = "linux"
	deps.executable = func() (string, error) {
		return filepath.Join(os.TempDir(), "go-build1234", "b001", "exe", "mdqs"), nil
	}
	err := serviceCommand(context.Background(), env, []string{"install", "-config", filepath.Join(dir, "config.toml")}, deps)
	if err == nil || !strings.Contains(err.Error(), "go build -o mdqs") {
		t.Errorf("install from go run: %v", err)
	}

	// The manager's refusal names the cure.
	deps.executable = func() (string, error) { return filepath.Join(dir, "mdqs"), nil }
	fake.err = errors.New("permission denied")
	err = serviceCommand(context.Background(), env, []string{"install", "-config", filepath.Join(dir, "config.toml")}, deps)
	if err == nil || !strings.Contains(err.Error(), "permission denied") || !strings.Contains(err.Error(), "-user") {
		t.Errorf("install without root: %v", err)
	}
	_ = out
}

func TestServiceControl(t *testing.T) {
	env, out, _, deps, fake := serviceFixture(t, "linux")
	ctx := context.Background()
	for _, action := range []string{"start", "stop", "uninstall"} {
		fake.calls = nil
		out.Reset()
		if err := serviceCommand(ctx, env, []string{action, "-name", "mdqs-live"}, deps); err != nil {
			t.Fatalf("%s: %v", action, err)
		}
		if !slices.Equal(fake.calls, []string{action}) || fake.config.Name != "mdqs-live" || !strings.Contains(out.String(), action+" done") {
			t.Errorf("%s: calls %v, name %q, output %q", action, fake.calls, fake.config.Name, out)
		}
	}
	fake.status = service.StatusRunning
	out.Reset()
	if err := serviceCommand(ctx, env, []string{"status"}, deps); err != nil || !strings.Contains(out.String(), "service mdqs (fake-platform): running") {
		t.Errorf("status: %v %q", err, out)
	}
	fake.err = service.ErrNotInstalled
	err := serviceCommand(ctx, env, []string{"status", "-user"}, deps)
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 1 || !strings.Contains(err.Error(), "not installed (mdqs service install -user)") {
		t.Errorf("status of a service not installed: %v", err)
	}
}

// The unit file kardianos/service writes for a systemd user service, with
// systemctl replaced by a script that only records its arguments: what a
// Linux install registers, without installing anything on this machine.
func TestSystemdUnitOfTheInstall(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("systemd is Linux's")
	}
	var systemd service.System
	for _, s := range service.AvailableSystems() {
		if s.String() == "linux-systemd" {
			systemd = s
		}
	}
	if systemd == nil {
		t.Fatal("kardianos/service offers no linux-systemd")
	}
	home, bin := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("PATH", bin)
	record := filepath.Join(bin, "calls")
	os.WriteFile(filepath.Join(bin, "systemctl"), []byte("#!/bin/sh\necho \"$@\" >> "+record+"\n"), 0o755)

	_, _, dir, deps, _ := serviceFixture(t, "linux")
	t.Chdir(dir)
	plan, err := planInstall("", "", deps)
	if err != nil {
		t.Fatal(err)
	}
	plan.name, plan.user = "mdqs", true
	s, err := systemd.New(idleProgram{}, serviceConfig("linux", plan))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Install(); err != nil {
		t.Fatalf("install: %v", err)
	}
	unit, err := os.ReadFile(filepath.Join(home, ".config", "systemd", "user", "mdqs.service"))
	if err != nil {
		t.Fatal(err)
	}
	esc := func(p string) string { return strings.ReplaceAll(p, " ", `\x20`) }
	for _, want := range []string{
		"ExecStart=" + esc(plan.executable) + ` "serve" "-config" "` + plan.config + `" "-db" "` + plan.db + `"` + "\n",
		"WorkingDirectory=" + esc(plan.workDir) + "\n",
		"Restart=on-failure\n",
		// A user's systemd reaches default.target at login, never
		// multi-user.target.
		"WantedBy=default.target\n",
	} {
		if !strings.Contains(string(unit), want) {
			t.Errorf("unit lacks %q:\n%s", want, unit)
		}
	}
	if strings.Contains(string(unit), "network-online") {
		t.Errorf("a user unit waits for a system target:\n%s", unit)
	}
	calls, _ := os.ReadFile(record)
	if !strings.Contains(string(calls), "enable --user mdqs.service") {
		t.Errorf("systemctl calls %q; want the unit enabled as a user unit", calls)
	}
}
