package config

import (
	"fmt"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"
)

// Where a key's value came from, in the order later ones win: flags over
// the environment over the file over the built-in defaults.
const (
	FromDefault     = "default"
	FromFile        = "file"
	FromEnvironment = "environment"
	FromSecretFile  = "secret file" // a variable's _FILE twin
	FromFlag        = "flag"
)

// Origin says where one key's value came from.
type Origin struct {
	Kind string // one of the From constants
	Name string // the file's path, the variable's name
	Path string // FromSecretFile: the file the variable names
}

func (o Origin) String() string {
	switch o.Kind {
	case FromFile, FromEnvironment:
		return o.Kind + " " + o.Name
	case FromSecretFile:
		return o.Name + " (" + o.Path + ")"
	}
	return o.Kind
}

// Setting is one key as `mdqs config check` shows it: its value written
// as in the file, with any password hidden, and its origin.
type Setting struct {
	Key    string
	Var    string
	Value  string
	Origin Origin
}

// Settings lists every key of cfg with the origins Load recorded. A value
// read from a secret file is not shown at all; passwords in URLs (the
// PostgreSQL and Redis ones, a proxy's) are masked wherever they came from.
func Settings(cfg Config, origins map[string]Origin) []Setting {
	var out []Setting
	v := reflect.ValueOf(cfg)
	for _, k := range keys() {
		o, ok := origins[k.name]
		if !ok {
			o = Origin{Kind: FromDefault}
		}
		s := Setting{Key: k.name, Var: EnvVar(k.name), Origin: o}
		if o.Kind == FromSecretFile {
			s.Value = "(secret: not shown)"
		} else {
			s.Value = literal(v.FieldByIndex(k.index).Interface())
		}
		out = append(out, s)
	}
	return out
}

// literal writes a value as the file would, through go-toml, with
// passwords masked.
func literal(value any) string {
	switch x := value.(type) {
	case string:
		return quote(RedactSecrets(x))
	case Duration:
		return quote(shortDuration(x.Duration))
	case []string:
		parts := make([]string, len(x))
		for i, s := range x {
			parts[i] = quote(RedactSecrets(s))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	v := reflect.ValueOf(value)
	switch v.Kind() {
	case reflect.Map: // limits.clients, shown as its variable takes it
		names := make([]string, 0, v.Len())
		for _, k := range v.MapKeys() {
			names = append(names, k.String())
		}
		slices.Sort(names)
		parts := make([]string, len(names))
		for i, name := range names {
			parts[i] = name + " = " + literal(v.MapIndex(reflect.ValueOf(name)).Interface())
		}
		return inline(parts)
	case reflect.Struct:
		var parts []string
		for i := range v.NumField() {
			if name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("toml"), ","); name != "" && name != "-" {
				parts = append(parts, name+" = "+literal(v.Field(i).Interface()))
			}
		}
		return inline(parts)
	}
	b, err := toml.Marshal(map[string]any{"v": value})
	if err != nil {
		return fmt.Sprint(value)
	}
	return strings.TrimPrefix(strings.TrimSpace(string(b)), "v = ")
}

func inline(parts []string) string {
	if len(parts) == 0 {
		return "{}"
	}
	return "{ " + strings.Join(parts, ", ") + " }"
}

// quote writes a string as the file does, in double quotes.
func quote(s string) string { return strconv.Quote(s) }

// shortDuration is a duration as a person writes it: 1m, not 1m0s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// keyValuePassword finds password=... in a libpq key=value connection
// string, quoted or not.
var keyValuePassword = regexp.MustCompile(`(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)`)

// RedactSecrets masks the password of a URL (postgres://u:p@h,
// redis://:p@h, a proxy's; in the user part or a password= parameter) or
// of a key=value connection string, so a value can be printed or logged;
// other text is returned as it is. A URL that does not parse is shown by
// its scheme alone: its password cannot be found, so nothing else is.
func RedactSecrets(s string) string {
	scheme, _, isURL := strings.Cut(s, "://")
	if !isURL {
		return keyValuePassword.ReplaceAllString(s, "${1}xxxxx")
	}
	u, err := url.Parse(s)
	if err != nil {
		return scheme + "://…"
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	if q := u.Query(); q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.String()
}
