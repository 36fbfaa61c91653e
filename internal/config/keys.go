package config

import (
	"encoding"
	"reflect"
	"strings"
)

// A key is one settable value of the configuration, found from Config's
// toml tags so that the file, the environment and `mdqs config check`
// can never list different keys. A table of maps (limits.clients) is one
// key: its entries are named by the user, not by mdqs.
type key struct {
	name  string // dotted, as in the file: sources.push2.base_url
	index []int  // reflect.Value.FieldByIndex from Config
	typ   reflect.Type
}

// EnvVar is the environment variable that sets the key (dotted, as in the
// file): server.db is MDQS_SERVER_DB, hot_rank.eastmoney.base_url is
// MDQS_HOT_RANK_EASTMONEY_BASE_URL. Its twin with _FILE appended reads
// the value from the file it names.
func EnvVar(dotted string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(dotted, ".", "_"))
}

const envPrefix = "MDQS_"

// keys lists every key in the order of Config's fields.
func keys() []key {
	var out []key
	var walk func(t reflect.Type, prefix string, index []int)
	walk = func(t reflect.Type, prefix string, index []int) {
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			idx := append(append([]int(nil), index...), i)
			name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
			if name == "-" {
				continue
			}
			if f.Anonymous && name == "" {
				// An embedded struct's keys are the table's own
				// (Mirrored holds Upstream's base_url).
				walk(f.Type, prefix, idx)
				continue
			}
			if isTable(f.Type) {
				walk(f.Type, prefix+name+".", idx)
				continue
			}
			out = append(out, key{name: prefix + name, index: idx, typ: f.Type})
		}
	}
	walk(reflect.TypeFor[Config](), "", nil)
	return out
}

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

// isTable: a struct the file writes as a [table], not a value a string
// spells (Duration).
func isTable(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && !reflect.PointerTo(t).Implements(textUnmarshaler)
}
