package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"

	"github.com/kardianos/service"

	"mdqs/internal/config"
	"mdqs/internal/doctor"
	"mdqs/internal/market"
)

// doctorDeps are the outside world of mdqs doctor beyond Env, for tests:
// the service manager, where to look for a terminal, the clock.
type doctorDeps struct {
	service serviceDeps
	drives  func() []doctor.Drive
	clock   market.Clock
}

// Doctor runs `mdqs doctor`: every check of package doctor, printed for a
// person or, with -json, for a script; exit 1 when one fails.
func Doctor(ctx context.Context, env Env, args []string) error {
	return doctorCommand(ctx, env, args, doctorDeps{
		service: serviceDeps{goos: runtime.GOOS, executable: os.Executable,
			newService: func(c *service.Config) (service.Service, error) { return service.New(idleProgram{}, c) }},
		drives: doctor.SystemDrives,
		clock:  market.SystemClock{},
	})
}

func doctorCommand(ctx context.Context, env Env, args []string, deps doctorDeps) error {
	fs := newFlags("doctor", "doctor [-config FILE] [-addr HOST:PORT] [-db FILE] [-timeout 5s] [-service NAME] [-json]", env)
	configPath := fs.String("config", "", "configuration file (default ./config.toml when present, else the built-in defaults), as serve reads it")
	addr := fs.String("addr", "", "the address serve would listen on (overrides server.addr)")
	dbPath := fs.String("db", "", "the database serve would open (overrides server.db)")
	timeout := fs.Duration("timeout", doctor.DefaultTimeout, "how long each upstream may take to answer (they are asked at once)")
	name := fs.String("service", "mdqs", "the service's name (mdqs service install -name)")
	asJSON := fs.Bool("json", false, "print the checks as JSON, for scripts")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: mdqs doctor [-config FILE] [-addr HOST:PORT] [-db FILE] [-timeout 5s] [-service NAME] [-json]\n\n"+
			"Checks what makes a live start fail, and says how to fix each: the configuration, the port,\n"+
			"the store (mode, writable, locked by whom, schema version), the terminal folder (tdx.dir, or an\n"+
			"install found in the usual places: vipdoc, hq_cache, gbbq, how fresh), the upstreams (reachable,\n"+
			"answering, how long), the clock against an upstream's Date header, and the service. It changes\n"+
			"nothing. Exit status 1 when a check fails (blocks a start), 0 otherwise.")
		fs.PrintDefaults()
	}
	if err := ParseFlags(env, fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return Usage("mdqs doctor: unexpected argument %q", fs.Arg(0))
	}
	if *timeout <= 0 {
		return Usage("mdqs doctor: -timeout must be positive, e.g. 5s")
	}
	cfg, from, origins, err := config.Explain(env.ConfigInput(*configPath), func(c *config.Config) {
		if *addr != "" {
			c.Server.Addr = *addr
		}
		if *dbPath != "" {
			c.Server.DB = *dbPath
		}
	})
	if from == "" {
		from = *configPath
	}
	var fromEnv []string
	for _, o := range origins {
		if o.Kind == config.FromEnvironment || o.Kind == config.FromSecretFile {
			fromEnv = append(fromEnv, o.Name)
		}
	}
	slices.Sort(fromEnv)
	cal := market.DefaultCalendar()
	if err == nil && cfg.Market.HolidaysFile != "" {
		if f, ferr := os.Open(cfg.Market.HolidaysFile); ferr == nil {
			cal.Merge(f)
			f.Close()
		}
	}
	if !*asJSON {
		fmt.Fprintf(env.Stderr, "mdqs doctor: checking (each upstream may take up to %s) ...\n", *timeout)
	}
	rep := doctor.Run(ctx, doctor.Deps{
		Config: cfg, ConfigFrom: from, ConfigErr: err, FromEnvironment: fromEnv,
		Clock: deps.clock, Calendar: cal, Timeout: *timeout,
		SQLiteSchema: env.SQLiteSchema,
		Drives:       deps.drives,
		Service:      func() doctor.ServiceState { return serviceState(deps.service, *name) },
	})
	if *asJSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		doctor.WriteText(env.Stdout, rep)
	}
	if rep.Blocking > 0 {
		return &ExitError{Code: 1, Err: fmt.Errorf("doctor: %d check(s) failed: %s", rep.Blocking, strings.Join(rep.Failed(), ", "))}
	}
	return nil
}

// serviceState asks the service manager what `mdqs service status` would
// say of the service name: the system's service, else (Linux, macOS) the
// user's.
func serviceState(deps serviceDeps, name string) doctor.ServiceState {
	st := doctor.ServiceState{Name: name}
	for _, user := range []bool{false, true} {
		if user && deps.goos == "windows" {
			break
		}
		s, err := deps.newService(&service.Config{Name: name, Option: service.KeyValue{"UserService": user}})
		if err != nil {
			st.Err = err
			return st
		}
		status, err := s.Status()
		st.Platform = s.Platform()
		switch {
		case errors.Is(err, service.ErrNotInstalled):
			continue
		case err != nil:
			st.Err = err
			return st
		}
		st.User, st.Installed, st.Running = user, true, status == service.StatusRunning
		return st
	}
	return st
}
