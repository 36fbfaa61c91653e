package config

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// environment is the MDQS_<SECTION>_<KEY> variables of a process
// environment, by name. An empty value counts as unset: a compose file's
// `MDQS_CACHE_REDIS: ""` leaves the key to the file, as no variable would.
type environment map[string]string

func readEnvironment(environ []string) environment {
	env := environment{}
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if ok && value != "" && strings.HasPrefix(name, envPrefix) {
			env[name] = value
		}
	}
	return env
}

// check refuses a variable that names a section of the configuration but
// none of its keys (MDQS_SERVER_ADR): left alone, the typo would leave the
// server on its default without a word. Variables outside the sections
// (MDQS_CLIENT_ID for mdqs call, MDQS_TEST_POSTGRES) belong to others.
func (env environment) check(all []key) error {
	known := map[string]bool{}
	sections := map[string]bool{}
	for _, k := range all {
		v := EnvVar(k.name)
		known[v], known[v+fileSuffix] = true, true
		section, _, _ := strings.Cut(k.name, ".")
		sections[EnvVar(section)+"_"] = true
	}
	var bad []string
	for name := range env {
		if known[name] {
			continue
		}
		for s := range sections {
			if strings.HasPrefix(name, s) {
				bad = append(bad, name)
				break
			}
		}
	}
	if len(bad) > 0 {
		slices.Sort(bad)
		return fmt.Errorf("environment: no configuration key is set by %s (each key's variable is in docs/configuration.md, and `mdqs config check` lists them)", strings.Join(bad, ", "))
	}
	return nil
}

const fileSuffix = "_FILE"

// value is the text the environment gives a key, and where it came from:
// the variable, or its _FILE twin and the file it names. ok is false when
// neither is set.
func (env environment) value(k key) (text string, origin Origin, ok bool, err error) {
	name := EnvVar(k.name)
	direct, hasDirect := env[name]
	path, hasFile := env[name+fileSuffix]
	switch {
	case hasDirect && hasFile:
		return "", Origin{}, false, fmt.Errorf("environment: %s and %s are both set; keep one", name, name+fileSuffix)
	case hasDirect:
		return direct, Origin{Kind: FromEnvironment, Name: name}, true, nil
	case hasFile:
		b, err := os.ReadFile(path)
		if err != nil {
			return "", Origin{}, false, fmt.Errorf("environment %s: %w", name+fileSuffix, err)
		}
		// A secret file written by echo or an editor ends with a newline
		// that is not part of the secret.
		text := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
		return text, Origin{Kind: FromSecretFile, Name: name + fileSuffix, Path: path}, true, nil
	}
	return "", Origin{}, false, nil
}

// set lays the text over the key's field. Strings and durations take the
// text as it is; a list of strings takes "a,b,c" or a TOML array; other
// values (numbers, booleans, the inline table of limits.clients) are
// TOML, as they are written in the file.
func (k key) set(cfg *Config, text string) error {
	field := reflect.ValueOf(cfg).Elem().FieldByIndex(k.index)
	switch {
	case k.typ.Kind() == reflect.String:
		field.SetString(text)
		return nil
	case reflect.PointerTo(k.typ).Implements(textUnmarshaler):
		return field.Addr().Interface().(interface{ UnmarshalText([]byte) error }).UnmarshalText([]byte(text))
	case k.typ.Kind() == reflect.Slice && k.typ.Elem().Kind() == reflect.String && !strings.HasPrefix(strings.TrimSpace(text), "["):
		list := reflect.MakeSlice(k.typ, 0, 0)
		for part := range strings.SplitSeq(text, ",") {
			if part = strings.TrimSpace(part); part != "" {
				list = reflect.Append(list, reflect.ValueOf(part).Convert(k.typ.Elem()))
			}
		}
		field.Set(list)
		return nil
	}
	holder := reflect.New(reflect.StructOf([]reflect.StructField{{Name: "V", Type: k.typ, Tag: `toml:"v"`}}))
	dec := toml.NewDecoder(bytes.NewReader([]byte("v = " + text))).DisallowUnknownFields()
	if err := dec.Decode(holder.Interface()); err != nil {
		return fmt.Errorf("want a TOML value of the kind the file takes (%s): %w", kindOf(k.typ), describe(err))
	}
	field.Set(holder.Elem().Field(0))
	return nil
}

func kindOf(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "an integer"
	case reflect.Float64, reflect.Float32:
		return "a number"
	case reflect.Map:
		return "an inline table such as { desk = { rate = 50.0, burst = 100 } }"
	case reflect.Slice:
		return "an array such as [\"a\", \"b\"]"
	}
	return t.String()
}

// applyEnvironment lays the environment's values over cfg and records
// their origins.
func applyEnvironment(cfg *Config, all []key, env environment, origins map[string]Origin) error {
	if err := env.check(all); err != nil {
		return err
	}
	for _, k := range all {
		text, origin, ok, err := env.value(k)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if err := k.set(cfg, text); err != nil {
			return fmt.Errorf("environment %s (%s): %w", origin.Name, k.name, err)
		}
		origins[k.name] = origin
	}
	return nil
}
