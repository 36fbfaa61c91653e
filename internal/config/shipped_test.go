package config

import (
	"bytes"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"

	"mdqs/internal/checkout"
)

// shippedFile is config.toml at the repository's root: the commented
// defaults `mdqs config defaults` prints and `go run .` reads.
func shippedFile(t *testing.T) []byte {
	t.Helper()
	b, err := checkout.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The shipped file says what Default says, key for key, and writes every
// key down: a key added to Config and not to the file (or with another
// value there) fails here, so the file a user copies, the configuration
// page generated from it and the values a key left out keeps stay one.
func TestShippedFileIsTheDefaults(t *testing.T) {
	text := shippedFile(t)
	var got Config
	if err := toml.NewDecoder(bytes.NewReader(text)).DisallowUnknownFields().Decode(&got); err != nil {
		t.Fatalf("config.toml does not decode strictly: %v", describe(err))
	}
	if got.Limits.Clients == nil { // an empty [limits.clients] table decodes as no map
		got.Limits.Clients = map[string]Limit{}
	}
	if want := Default(); !reflect.DeepEqual(got, want) {
		t.Errorf("config.toml differs from Default():\nfile    %+v\nDefault %+v", got, want)
	}
	var written map[string]any
	if err := toml.Unmarshal(text, &written); err != nil {
		t.Fatal(err)
	}
	have := flatKeys("", written)
	for _, key := range structKeys("", reflect.TypeFor[Config]()) {
		if !slices.Contains(have, key) {
			t.Errorf("config.toml does not write key %s down: give it with its default and a comment", key)
		}
	}
}

// flatKeys lists the dotted keys of a decoded TOML document; a table with
// no keys (limits.clients) counts as a key.
func flatKeys(prefix string, m map[string]any) []string {
	var out []string
	for k, v := range m {
		if sub, ok := v.(map[string]any); ok && len(sub) > 0 {
			out = append(out, flatKeys(prefix+k+".", sub)...)
			continue
		}
		out = append(out, prefix+k)
	}
	return out
}

// structKeys lists the dotted keys Config decodes; a map is one key.
func structKeys(prefix string, t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous && f.Tag.Get("toml") == "" { // embedded: its keys are the outer table's
			out = append(out, structKeys(prefix, f.Type)...)
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		if name == "" || name == "-" {
			continue
		}
		if f.Type.Kind() == reflect.Struct && f.Type != reflect.TypeFor[Duration]() {
			out = append(out, structKeys(prefix+name+".", f.Type)...)
			continue
		}
		out = append(out, prefix+name)
	}
	return out
}
