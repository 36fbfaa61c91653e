package cli

import (
	"context"

	"mdqs/config"
)

const configUsage = "usage: mdqs config defaults | check [-config FILE]"

// Config runs `mdqs config defaults` (print the built-in defaults, a
// commented starting point for ./config.toml) and `mdqs config check`
// (read a configuration as serve would and say which mode, file and
// sources it gives).
func Config(ctx context.Context, env Env, args []string) error {
	if len(args) == 0 {
		return Usage(configUsage)
	}
	fs := newFlags("config "+args[0], env)
	configPath := fs.String("config", "", "configuration file (default ./config.toml when present, else the built-in defaults)")
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return Usage("mdqs config: unexpected argument %q\n%s", fs.Arg(0), configUsage)
	}
	switch args[0] {
	case "defaults":
		_, err := env.Stdout.Write(config.Defaults())
		return err
	case "check":
		cfg, from, err := config.Load(*configPath)
		if err != nil {
			return &ExitError{Code: 1, Err: err}
		}
		mode := "live"
		if cfg.DemoMode() {
			mode = "demo"
		}
		_, err = env.Stdout.Write([]byte("config " + from + ": " + mode + " mode (sources.default = " + cfg.Sources.Default +
			"), database " + cfg.DBPath() + ", listening on " + cfg.Server.Addr + "\n"))
		return err
	}
	return Usage(configUsage)
}
