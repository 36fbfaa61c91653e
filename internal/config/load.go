package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"

	"github.com/pelletier/go-toml/v2"
)

// Input says where a configuration comes from besides the built-in
// defaults.
type Input struct {
	// Path is -config: a file that must exist. "": the file MDQS_CONFIG
	// names, else ./config.toml when present, else none.
	Path string
	// Environ is the process environment (os.Environ()): its
	// MDQS_<SECTION>_<KEY> variables set keys over the file. nil reads
	// none (tests).
	Environ []string
}

// ConfigVar names the configuration file when -config does not.
const ConfigVar = "MDQS_CONFIG"

// Load reads the configuration: the built-in defaults, then the file (see
// Input.Path), then the environment's MDQS_* variables, then the overrides
// (a command's flags: -db, -addr), each over the one before. Keys a file
// leaves out keep their defaults. It reports which file it read. The
// result is validated only after the overrides, since the relations
// between settings hold for what runs, not for the file alone (a team's
// file names Redis and each machine gives the shared store as -db).
func Load(in Input, overrides ...func(*Config)) (cfg Config, from string, err error) {
	cfg, from, _, err = Explain(in, overrides...)
	return cfg, from, err
}

// Explain is Load, also saying where each key's value came from (by
// dotted key; a key missing from the map has its default).
func Explain(in Input, overrides ...func(*Config)) (cfg Config, from string, origins map[string]Origin, err error) {
	env := readEnvironment(in.Environ)
	path := in.Path
	if path == "" {
		path = env[ConfigVar]
	}
	var data []byte
	switch {
	case path != "":
		data, err = os.ReadFile(path)
		if err != nil {
			return Config{}, "", nil, fmt.Errorf("config: %w", err)
		}
		from = path
	default:
		data, err = os.ReadFile("config.toml")
		switch {
		case err == nil:
			from = "config.toml"
		case errors.Is(err, os.ErrNotExist):
			from = "built-in defaults"
		default:
			return Config{}, "", nil, fmt.Errorf("config: %w", err)
		}
	}
	cfg, text, err := parse(data)
	if err != nil {
		return Config{}, from, nil, fmt.Errorf("config %s: %w", from, err)
	}
	if path != "" || from == "config.toml" {
		cfg.home = filepath.Dir(from)
	}
	all := keys()
	origins = map[string]Origin{}
	if err := fileOrigins(text, from, all, origins); err != nil {
		return Config{}, from, nil, fmt.Errorf("config %s: %w", from, err)
	}
	if err := applyEnvironment(&cfg, all, env, origins); err != nil {
		return Config{}, from, nil, err
	}
	before := reflect.ValueOf(cfg)
	for _, o := range overrides {
		o(&cfg)
	}
	after := reflect.ValueOf(cfg)
	for _, k := range all {
		if !reflect.DeepEqual(before.FieldByIndex(k.index).Interface(), after.FieldByIndex(k.index).Interface()) {
			origins[k.name] = Origin{Kind: FromFlag}
		}
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, from, nil, fmt.Errorf("config %s: %w", describeFrom(from, origins), err)
	}
	return cfg, from, origins, nil
}

// describeFrom names what a validation error may come from: the file, and
// the environment when it set anything.
func describeFrom(from string, origins map[string]Origin) string {
	for _, o := range origins {
		if o.Kind == FromEnvironment || o.Kind == FromSecretFile {
			return from + " and the environment"
		}
	}
	return from
}

// fileOrigins marks the keys the file's text sets.
func fileOrigins(text []byte, from string, all []key, origins map[string]Origin) error {
	var doc map[string]any
	if err := toml.Unmarshal(text, &doc); err != nil {
		return err
	}
	set := map[string]bool{}
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		for k, v := range m {
			set[prefix+k] = true
			if sub, ok := v.(map[string]any); ok {
				walk(prefix+k+".", sub)
			}
		}
	}
	walk("", doc)
	for _, k := range all {
		if set[k.name] {
			origins[k.name] = Origin{Kind: FromFile, Name: from}
		}
	}
	return nil
}

// Keys lists every key of the configuration, dotted.
func Keys() []string {
	var out []string
	for _, k := range keys() {
		out = append(out, k.name)
	}
	return out
}
