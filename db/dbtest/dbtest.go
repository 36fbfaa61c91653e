// Package dbtest opens a real store for a test, so every package tests
// against the real thing: a SQLite file in the test's temp folder, or, with
// MDQS_TEST_STORE=postgres, a schema of its own on the PostgreSQL server
// MDQS_TEST_POSTGRES names (dropped when the test ends). Running a
// package's tests both ways runs the same suite against both stores.
package dbtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, for the schema's creation

	"mdqs/db"
	"mdqs/internal/checkout"
	"mdqs/internal/testservers"
)

// The environment that points the tests at PostgreSQL.
const (
	StoreEnv    = "MDQS_TEST_STORE"    // "postgres" runs the store tests on PostgreSQL
	PostgresEnv = "MDQS_TEST_POSTGRES" // the server, e.g. postgres://postgres@127.0.0.1:55432/postgres?sslmode=disable
)

// HowToPostgres says how to run the tests on PostgreSQL.
const HowToPostgres = "start a throwaway server with `. .ci/services.sh && start_postgres` (root; it exports " + PostgresEnv +
	"), then run `go test ./...` for the tests that need a server, and `" + StoreEnv +
	"=postgres go test ./db/... ./api ./internal/kline ./internal/auth` (the full list is in .ci/run) for the store's suites on it"

// Postgres reports that the tests run on PostgreSQL; it fails the test
// when asked for without a server to run on.
func Postgres(t testing.TB) bool {
	t.Helper()
	if os.Getenv(StoreEnv) != "postgres" {
		return false
	}
	if os.Getenv(PostgresEnv) == "" {
		t.Fatalf("%s=postgres but %s is not set: %s", StoreEnv, PostgresEnv, HowToPostgres)
	}
	return true
}

// NeedPostgres is the server's URL, or skips the test saying how to start
// one (and fails it under CI, which must not skip it); a package that
// calls it runs its tests through testservers.Main, which counts the skips.
func NeedPostgres(t testing.TB) string {
	t.Helper()
	return testservers.Need(t, "PostgreSQL", PostgresEnv, HowToPostgres)
}

// Target is where a fresh store for the test lives: a file in a temp
// folder, or a new schema on the PostgreSQL server.
func Target(t testing.TB) string {
	t.Helper()
	if !Postgres(t) {
		return filepath.Join(t.TempDir(), "mdqs.db")
	}
	return NewSchema(t, os.Getenv(PostgresEnv))
}

// NewSchema makes an empty schema on the server and returns the server's
// URL with it as the search path; the schema is dropped at cleanup.
func NewSchema(t testing.TB, server string) string {
	t.Helper()
	admin, err := sql.Open("pgx", server)
	if err != nil {
		t.Fatalf("dbtest: %v", err)
	}
	defer admin.Close()
	name := "t_" + strings.ToLower(rand.Text()[:16]) // a safe identifier
	if _, err := admin.Exec("CREATE SCHEMA " + name); err != nil {
		t.Fatalf("dbtest: create schema: %v", err)
	}
	t.Cleanup(func() {
		drop, err := sql.Open("pgx", server)
		if err != nil {
			return
		}
		defer drop.Close()
		drop.Exec("DROP SCHEMA " + name + " CASCADE")
	})
	u, err := url.Parse(server)
	if err != nil {
		t.Fatalf("dbtest: %v", err)
	}
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	return u.String()
}

// Open opens a fresh store and closes it when the test ends.
func Open(t testing.TB) *db.Store {
	t.Helper()
	return OpenAt(t, Target(t))
}

// OpenAt opens the store at target (a file, or a Target), for tests that
// reopen a store. A new file is written from the test binary's migrated
// store first (template.go).
func OpenAt(t testing.TB, target string) *db.Store {
	t.Helper()
	writeFresh(t, target)
	s, err := db.Open(context.Background(), target, db.Options{SQLiteSchema: SQLiteSchema(t)})
	if err != nil {
		t.Fatalf("dbtest: open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// SQLiteSchema is schema.sql, the SQLite store's schema, which package main
// embeds and hands to db.Open; a test reads it from the checkout.
func SQLiteSchema(t testing.TB) string {
	t.Helper()
	schema, err := checkout.SQLiteSchema()
	if err != nil {
		t.Fatalf("dbtest: %v", err)
	}
	return schema
}
