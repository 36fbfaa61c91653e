package db_test

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/auth"
	"mdqs/internal/market"
)

const holdLockEnv = "MDQS_TEST_HOLD_LOCK"

// Issue 20: a write that finds the SQLite file's write lock held by
// another process is a 503 naming that process, and reads carry on; once
// the holder lets go, writes work again.
func TestWriteLockHeldByAnotherProcess(t *testing.T) {
	if path := os.Getenv(holdLockEnv); path != "" {
		holdWriteLock(path) // the child: hold the lock until stdin closes
		return
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "mdqs.db")
	s, err := db.Open(ctx, path, db.Options{SQLiteSchema: dbtest.SQLiteSchema(t), BusyTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, market.Shanghai())
	if _, err := s.PutClient(ctx, auth.Client{ID: "c", SecretHash: "h", Enabled: true, CreatedAt: now, UpdatedAt: now}); err != nil {
		t.Fatal(err)
	}

	child := exec.Command(os.Args[0], "-test.run=^TestWriteLockHeldByAnotherProcess$")
	child.Env = append(os.Environ(), holdLockEnv+"="+path)
	release, err := child.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer child.Wait()
	defer release.Close()
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "held\n" {
		t.Fatalf("the child did not take the lock: %q %v", line, err)
	}

	_, err = s.PutClient(ctx, auth.Client{ID: "d", SecretHash: "h", Enabled: true, CreatedAt: now, UpdatedAt: now})
	var locked *db.LockedError
	if market.KindOf(err) != market.KindUnavailable || !errors.As(err, &locked) {
		t.Fatalf("write under another process's lock = %v, want an unavailable *db.LockedError", err)
	}
	if runtime.GOOS == "linux" {
		want := fmt.Sprintf("locked by another process (pid %d", child.Process.Pid)
		if locked.PID != child.Process.Pid || !strings.Contains(err.Error(), want) {
			t.Errorf("PID = %d, error %q; want the holder, pid %d, named", locked.PID, err, child.Process.Pid)
		}
	}
	if c, err := s.Client(ctx, "c"); err != nil || c.ID != "c" {
		t.Fatalf("read under another process's lock: %+v %v", c, err)
	}
	// The next write, the lock known to be held, answers the same without
	// waiting, and leaves the writer's busy_timeout as it was.
	_, err = s.PutClient(ctx, auth.Client{ID: "d", SecretHash: "h", Enabled: true, CreatedAt: now, UpdatedAt: now})
	if !errors.As(err, &locked) {
		t.Fatalf("second write under another process's lock = %v", err)
	}
	if ms, err := s.QueryInt(ctx, "PRAGMA busy_timeout"); err != nil || ms != 50 {
		t.Errorf("busy_timeout after a write under the lock = %d %v, want 50", ms, err)
	}

	release.Close()
	io.Copy(io.Discard, out)
	if err := child.Wait(); err != nil {
		t.Fatalf("child: %v", err)
	}
	if _, err := s.PutClient(ctx, auth.Client{ID: "d", SecretHash: "h", Enabled: true, CreatedAt: now, UpdatedAt: now}); err != nil {
		t.Fatalf("write after the holder let go: %v", err)
	}
	if ms, err := s.QueryInt(ctx, "PRAGMA busy_timeout"); err != nil || ms != 50 {
		t.Errorf("busy_timeout after the lock was freed = %d %v, want 50", ms, err)
	}
}

func holdWriteLock(path string) {
	d, err := sql.Open("sqlite", path)
	if err != nil {
		panic(err)
	}
	conn, err := d.Conn(context.Background())
	if err != nil {
		panic(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		panic(err)
	}
	fmt.Println("held")
	io.Copy(io.Discard, os.Stdin)
	conn.ExecContext(context.Background(), "ROLLBACK")
	conn.Close()
	d.Close()
}
