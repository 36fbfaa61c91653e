package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/kardianos/service"

	"mdqs/internal/config"
)

const serviceUsage = `usage: mdqs service COMMAND [flags]

commands:
  install    register "mdqs serve -config FILE -db FILE" (absolute paths) with
             the system's service manager, to run at boot: a Windows
             service, a systemd unit on Linux, a launchd daemon on macOS;
             with -user (Linux, macOS) at login, as you, without root
  uninstall  remove it (stop it first)
  start      start it now
  stop       stop it
  status     say whether it is installed and running

Installing needs an administrator (Windows) or root (Linux, macOS without
-user). The service runs in the configuration file's folder.
Run "mdqs service COMMAND -h" for a command's flags.`

// Environment variables the installed Windows service gets: the service
// manager starts it in C:\Windows\System32 and keeps no output, so it moves
// to its folder and logs to a file there.
const (
	envServiceDir  = "MDQS_SERVICE_DIR"
	envServiceName = "MDQS_SERVICE_NAME"
	serviceLogName = "mdqs-service.log"
)

// serviceDeps are the outside world of the service command, for tests: the
// platform, this binary, and the service manager.
type serviceDeps struct {
	goos       string
	executable func() (string, error)
	newService func(*service.Config) (service.Service, error)
}

// Service runs `mdqs service install|uninstall|start|stop|status`.
func Service(ctx context.Context, env Env, args []string) error {
	return serviceCommand(ctx, env, args, serviceDeps{
		goos:       runtime.GOOS,
		executable: os.Executable,
		newService: func(c *service.Config) (service.Service, error) { return service.New(idleProgram{}, c) },
	})
}

func serviceCommand(ctx context.Context, env Env, args []string, deps serviceDeps) error {
	sub, rest, err := subcommand(env, "service", args, serviceUsage)
	if sub == "" {
		return err
	}
	switch sub {
	case "install":
		return serviceInstall(env, rest, deps)
	case "uninstall", "start", "stop", "status":
		return serviceControl(env, sub, rest, deps)
	}
	fmt.Fprintln(env.Stderr, serviceUsage)
	return Usage("mdqs service: unknown command %q", sub)
}

// serviceIdentity is the flags naming an installed service.
type serviceIdentity struct {
	name *string
	user *bool
}

func addServiceIdentity(fs interface {
	String(name, value, usage string) *string
	Bool(name string, value bool, usage string) *bool
}) serviceIdentity {
	return serviceIdentity{
		name: fs.String("name", "mdqs", "service name (several installs need different names)"),
		user: fs.Bool("user", false, "a per-user service that runs at login (systemd --user, a launchd agent); Linux and macOS"),
	}
}

func (id serviceIdentity) check(goos string) error {
	if !serviceNamePattern(*id.name) {
		return Usage("-name %q: use letters, digits, '.', '_' or '-'", *id.name)
	}
	if *id.user && goos == "windows" {
		return Usage("-user is for Linux and macOS: a Windows service starts at boot, under the LocalSystem account")
	}
	return nil
}

func serviceNamePattern(s string) bool { return clientIDPattern.MatchString(s) }

// installPlan is what `service install` registers.
type installPlan struct {
	name       string
	user       bool
	executable string
	config     string // absolute
	db         string // absolute
	workDir    string // the configuration's folder
}

// serviceConfig is the service manager's entry for plan on goos.
func serviceConfig(goos string, p installPlan) *service.Config {
	c := &service.Config{
		Name:             p.name,
		DisplayName:      "mdqs market data service (" + p.name + ")",
		Description:      "mdqs: A-share market data over signed HTTP/JSON, from " + p.db,
		Executable:       p.executable,
		Arguments:        []string{"serve", "-config", p.config, "-db", p.db},
		WorkingDirectory: p.workDir,
		Option: service.KeyValue{
			"UserService": p.user,
			// launchd: start at load (boot, or login for an agent) and
			// again whenever it exits.
			"RunAtLoad": true,
			"KeepAlive": true,
			// systemd: restart after a crash, not after a clean stop.
			"Restart": "on-failure",
			// Windows: restart after a crash, a little later.
			"OnFailure":              "restart",
			"OnFailureDelayDuration": "10s",
		},
	}
	if goos == "linux" {
		c.Option["SystemdScript"] = systemdUnit(p.user)
		if !p.user {
			// A live server reaches its upstreams at start.
			c.Dependencies = []string{"After=network-online.target", "Wants=network-online.target"}
		}
	}
	if goos == "windows" {
		// Windows ignores WorkingDirectory; RunService moves there.
		c.EnvVars = map[string]string{envServiceDir: p.workDir, envServiceName: p.name}
	}
	return c
}

// systemdUnit is the unit template (kardianos/service's own syntax). The
// library's default hooks every unit to multi-user.target, which a user's
// systemd never reaches, so a -user service would not start at login; it
// also waits 120 s between restarts.
func systemdUnit(user bool) string {
	target := "multi-user.target" // boot
	if user {
		target = "default.target" // the user's login
	}
	return `[Unit]
Description={{Description}}
ConditionFileIsExecutable={{Path | cmdEscape}}
{{range Dependencies}}{{.}}
{{end}}
[Service]
ExecStart={{Path | cmdEscape}}{{range Arguments}} {{. | cmd}}{{end}}
{{if WorkingDirectory}}WorkingDirectory={{WorkingDirectory | cmdEscape}}
{{end}}{{if Restart}}Restart={{Restart}}
{{end}}RestartSec=10
TimeoutStopSec=60

[Install]
WantedBy=` + target + "\n"
}

func serviceInstall(env Env, args []string, deps serviceDeps) error {
	fs := newFlags("service install", "service install [-config FILE] [-db FILE] [-name mdqs] [-user]", env)
	configPath := fs.String("config", "", "configuration file (default ./config.toml; it must exist)")
	dbPath := fs.String("db", "", "database file (default: server.db of the configuration)")
	id := addServiceIdentity(fs)
	if err := ParseFlags(env, fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return Usage("mdqs service install: unexpected argument %q", fs.Arg(0))
	}
	if err := id.check(deps.goos); err != nil {
		return err
	}
	plan, err := planInstall(*configPath, *dbPath, deps)
	if err != nil {
		return err
	}
	plan.name, plan.user = *id.name, *id.user
	s, err := deps.newService(serviceConfig(deps.goos, plan))
	if err != nil {
		return &ExitError{Code: 1, Err: fmt.Errorf("service manager: %w", err)}
	}
	if err := s.Install(); err != nil {
		return &ExitError{Code: 1, Err: fmt.Errorf("install service %s: %w%s", plan.name, err, privilegeHint(deps.goos, plan.user))}
	}
	when := "at boot"
	if plan.user {
		when = "at login"
	}
	fmt.Fprintf(env.Stdout, "installed service %s (%s): %s serve -config %s -db %s, in %s\nit starts %s; start it now with: mdqs service start%s\n",
		plan.name, s.Platform(), plan.executable, plan.config, plan.db, plan.workDir, when, identityFlags(plan.name, plan.user))
	if deps.goos == "windows" {
		fmt.Fprintf(env.Stdout, "its log: %s\n", filepath.Join(plan.workDir, serviceLogName))
	}
	return nil
}

// planInstall resolves what the service will run: this binary, with the
// configuration and database as absolute paths, in the configuration's
// folder (where relative paths in it resolve, as for a serve started there).
func planInstall(configPath, dbPath string, deps serviceDeps) (installPlan, error) {
	if configPath == "" {
		configPath = "config.toml"
		if _, err := os.Stat(configPath); errors.Is(err, fs.ErrNotExist) {
			return installPlan{}, &ExitError{Code: 1, Err: errors.New("no configuration file: a service should not run on the built-in demo defaults; " +
				"write one (mdqs config defaults > config.toml, then edit it) or give -config FILE")}
		}
	}
	// The file alone: the service manager starts the service without
	// this shell's MDQS_* variables, so it must not be checked with them.
	cfg, _, err := config.Load(config.Input{Path: configPath}, func(c *config.Config) {
		if dbPath != "" {
			c.Server.DB = dbPath
		}
	})
	if err != nil {
		return installPlan{}, &ExitError{Code: 1, Err: err}
	}
	absConfig, err := filepath.Abs(configPath)
	if err != nil {
		return installPlan{}, err
	}
	// serve opens a relative server.db in its working folder, which for
	// the service is the configuration's; -db is relative to here.
	db := cfg.DBPath()
	absDB := db // a server's URL is no path
	if !config.IsServerURL(db) {
		if dbPath == "" && !filepath.IsAbs(db) {
			db = filepath.Join(filepath.Dir(absConfig), db)
		}
		if absDB, err = filepath.Abs(db); err != nil {
			return installPlan{}, err
		}
	}
	exe, err := deps.executable()
	if err != nil {
		return installPlan{}, fmt.Errorf("this binary's path: %w", err)
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	if isGoRunBinary(exe) {
		return installPlan{}, &ExitError{Code: 1, Err: fmt.Errorf("%s is the temporary binary of go run, deleted when it exits: build mdqs (go build -o mdqs .) and run install with it", exe)}
	}
	return installPlan{executable: exe, config: absConfig, db: absDB, workDir: filepath.Dir(absConfig)}, nil
}

// isGoRunBinary spots go run's build folder (…/go-build123/…/exe/mdqs).
func isGoRunBinary(exe string) bool {
	for _, part := range strings.Split(filepath.ToSlash(exe), "/") {
		if strings.HasPrefix(part, "go-build") {
			return true
		}
	}
	return false
}

func serviceControl(env Env, action string, args []string, deps serviceDeps) error {
	fs := newFlags("service "+action, "service "+action+" [-name mdqs] [-user]", env)
	id := addServiceIdentity(fs)
	if err := ParseFlags(env, fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return Usage("mdqs service %s: unexpected argument %q", action, fs.Arg(0))
	}
	if err := id.check(deps.goos); err != nil {
		return err
	}
	s, err := deps.newService(&service.Config{Name: *id.name, Option: service.KeyValue{"UserService": *id.user}})
	if err != nil {
		return &ExitError{Code: 1, Err: fmt.Errorf("service manager: %w", err)}
	}
	if action == "status" {
		st, err := s.Status()
		switch {
		case errors.Is(err, service.ErrNotInstalled):
			return &ExitError{Code: 1, Err: fmt.Errorf("service %s is not installed (mdqs service install%s)", *id.name, identityFlags(*id.name, *id.user))}
		case err != nil:
			return &ExitError{Code: 1, Err: fmt.Errorf("service %s: %w", *id.name, err)}
		}
		fmt.Fprintf(env.Stdout, "service %s (%s): %s\n", *id.name, s.Platform(), statusText(st))
		return nil
	}
	var run func() error
	switch action {
	case "uninstall":
		run = s.Uninstall
	case "start":
		run = s.Start
	case "stop":
		run = s.Stop
	}
	if err := run(); err != nil {
		return &ExitError{Code: 1, Err: fmt.Errorf("%s service %s: %w%s", action, *id.name, err, privilegeHint(deps.goos, *id.user))}
	}
	fmt.Fprintf(env.Stdout, "service %s: %s done\n", *id.name, action)
	return nil
}

func statusText(st service.Status) string {
	switch st {
	case service.StatusRunning:
		return "running"
	case service.StatusStopped:
		return "stopped"
	}
	return "unknown"
}

// identityFlags repeats the flags that name a service other than the
// default one, for the next command the output suggests.
func identityFlags(name string, user bool) string {
	var s string
	if name != "mdqs" {
		s += " -name " + name
	}
	if user {
		s += " -user"
	}
	return s
}

func privilegeHint(goos string, user bool) string {
	switch {
	case goos == "windows":
		return " (run it from an administrator's console)"
	case user:
		return ""
	}
	return " (system services need root: sudo, or -user for one that runs at login)"
}

// idleProgram is the program of a service handle that only installs or
// controls, and never runs.
type idleProgram struct{}

func (idleProgram) Start(service.Service) error { return nil }
func (idleProgram) Stop(service.Service) error  { return nil }
