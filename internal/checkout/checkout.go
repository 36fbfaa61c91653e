// Package checkout reads the files at the root of the source checkout that
// package main embeds into the binary: schema.sql (the SQLite store's
// schema) and config.toml (the shipped defaults). Tests and development
// tools cannot import package main, so they read the same files from disk
// here, by walking up from the working directory (a test runs in its
// package's folder, `go run ./cmd/...` in the checkout) to the module's
// go.mod. The shipped binary never uses this package.
package checkout

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Root is the folder of the mdqs module's go.mod that holds the working
// directory.
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.HasPrefix(mod, []byte("module mdqs\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("checkout: not inside the mdqs source checkout (no go.mod of module mdqs above the working directory)")
		}
		dir = parent
	}
}

// SQLiteSchema is the text of schema.sql.
func SQLiteSchema() (string, error) {
	b, err := read("schema.sql")
	return string(b), err
}

// ConfigFile is the text of config.toml, the shipped defaults.
func ConfigFile() ([]byte, error) { return read("config.toml") }

func read(name string) ([]byte, error) {
	root, err := Root()
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(root, name))
	if err != nil {
		return nil, fmt.Errorf("checkout: %w", err)
	}
	return b, nil
}
