package db_test

import (
	"context"
	"sync"
	"testing"

	"mdqs/db/dbtest"
)

func TestEveryReaderConnectionHasThePragmas(t *testing.T) {
	if dbtest.Postgres(t) {
		t.Skip("SQLite's connections: the server keeps PostgreSQL's settings")
	}
	s := dbtest.Open(t)
	ctx := context.Background()
	// Hold several reader connections at once so the pool must open more
	// than one; each must carry the DSN pragmas.
	var wg sync.WaitGroup
	errs := make(chan string, 16)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for name, want := range map[string]int{"foreign_keys": 1, "busy_timeout": 5000, "query_only": 1, "synchronous": 1} {
				got, err := s.ReaderPragma(ctx, name)
				if err != nil || got != want {
					errs <- name
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for name := range errs {
		t.Errorf("a reader connection lacks pragma %s", name)
	}
}

func TestReadersRefuseWrites(t *testing.T) {
	if dbtest.Postgres(t) {
		t.Skip("SQLite's query_only readers: PostgreSQL has one pool")
	}
	s := dbtest.Open(t)
	if err := s.ReaderExec(context.Background(), "CREATE TABLE x(y)"); err == nil {
		t.Fatal("a write through the reader pool succeeded")
	}
}
