package cli

import (
	"context"
	"fmt"
	"text/tabwriter"

	"mdqs/db"
	"mdqs/internal/config"
)

const configUsage = `usage: mdqs config COMMAND [flags]

commands:
  defaults  print the built-in defaults, a commented starting point:
            mdqs config defaults > config.toml
  check     read a configuration as serve would (the file, then the
            MDQS_* variables) and say which mode, database file and
            address it gives, then every key's value and where it came from

Run "mdqs config COMMAND -h" for a command's flags.`

// Config runs `mdqs config defaults` (print the built-in defaults, a
// commented starting point for ./config.toml) and `mdqs config check`
// (read a configuration as serve would and say which mode, file and
// sources it gives).
func Config(ctx context.Context, env Env, args []string) error {
	sub, rest, err := subcommand(env, "config", args, configUsage)
	if sub == "" {
		return err
	}
	if sub != "defaults" && sub != "check" {
		fmt.Fprintln(env.Stderr, configUsage)
		return Usage("mdqs config: unknown command %q (want defaults or check)", sub)
	}
	fs := newFlags("config "+sub, "config "+sub+" [-config FILE]", env)
	configPath := fs.String("config", "", "configuration file (default ./config.toml when present, else the built-in defaults)")
	if err := ParseFlags(env, fs, rest); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return Usage("mdqs config %s: unexpected argument %q", sub, fs.Arg(0))
	}
	switch sub {
	case "defaults":
		_, err := env.Stdout.Write(env.ConfigFile)
		return err
	case "check":
		cfg, from, origins, err := config.Explain(env.ConfigInput(*configPath))
		if err != nil {
			return &ExitError{Code: 1, Err: err}
		}
		mode := "live"
		if cfg.DemoMode() {
			mode = "demo"
		}
		fmt.Fprintln(env.Stdout, "config "+from+": "+mode+" mode (sources.default = "+cfg.Sources.Default+
			"), database "+db.Redact(cfg.DBPath())+", listening on "+cfg.Server.Addr)
		fmt.Fprintln(env.Stdout)
		// Every key, with where its value came from (flags > environment
		// > file > defaults); passwords are masked, secret files' values
		// never shown.
		tw := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "key\tvalue\tfrom")
		for _, s := range config.Settings(cfg, origins) {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Key, s.Value, s.Origin)
		}
		return tw.Flush()
	}
	return Usage(configUsage)
}
