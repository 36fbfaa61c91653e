package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"mdqs/db"
	"mdqs/db/dbtest"
)

// demoEnv is a demo-mode configuration of a small market (seed, stocks)
// writing into a temp database (a schema of the PostgreSQL server under
// MDQS_TEST_STORE=postgres: the commands work on either store), and an Env
// whose output lands in out.
func demoEnv(t *testing.T, seed, stocks int) (env Env, dbPath, configPath string, out *bytes.Buffer) {
	t.Helper()
	dir := t.TempDir()
	dbPath = dbtest.Target(t)
	configPath = filepath.Join(dir, "config.toml")
	cfg := "[server]\ndb = " + strconv.Quote(dbPath) + "\n[sources]\ndefault = \"demo\"\n" +
		"[demo]\nenabled = true\nseed = " + strconv.Itoa(seed) + "\nstocks = " + strconv.Itoa(stocks) + "\nindustries = 5\nconcepts = 5\n"
	if err := os.WriteFile(configPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	// The store exists, as after a server's first run: commands other than
	// client add do not create one (TestCommandsNeverCreateADatabaseSilently).
	store, err := db.Open(context.Background(), dbPath, db.Options{SQLiteSchema: dbtest.SQLiteSchema(t)})
	if err != nil {
		t.Fatal(err)
	}
	store.Close()
	out = &bytes.Buffer{}
	env = Env{Stdin: strings.NewReader(""), Stdout: out, Stderr: out, Getenv: func(string) string { return "" },
		Version: "test", SQLiteSchema: dbtest.SQLiteSchema(t)}
	return env, dbPath, configPath, out
}
