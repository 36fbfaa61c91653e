//go:build faults

package faulttest

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"mdqs/internal/client"
	"mdqs/internal/loadgen"
)

// Issue 20 point 8: in a folder it may not write, the server opened the
// database immutable, which silently ignored transactions committed in a
// -wal file that a killed writer left. Wanted, as nobody over a root-owned
// folder: with the -shm left beside it, the server reads the -wal through
// it and serves the committed data (and says so); with no -shm, which
// SQLite would need, it refuses to start saying how to fold the -wal in.
func TestReadOnlyFolderWithLeftoverWAL(t *testing.T) {
	bin := binary(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root to run the server as another user")
	}
	dir, cfg := rootOwnedFolder(t, "mdqs-wal-")
	dbPath := filepath.Join(dir, "mdqs.db")
	args := []string{"-config", cfg, "-addr", "127.0.0.1:0", "-db", dbPath}
	ctx := context.Background()

	// As root: fill the store, hold a token, find a news item.
	p, err := loadgen.Start(bin, args, loadgen.StartOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	waitIdle(t, p)
	c := client.New(p.Addr, "demo", "demo-secret")
	c.HTTP = &http.Client{Timeout: time.Minute, Transport: &http.Transport{}}
	r, err := c.Do(ctx, http.MethodGet, "/v1/api/news/list?page_size=1", nil)
	var list struct {
		Data struct {
			Items []struct {
				ID int64 `json:"id"`
			} `json:"items"`
		} `json:"data"`
	}
	if err != nil || r.Status != http.StatusOK || json.Unmarshal(r.Body, &list) != nil || len(list.Data.Items) == 0 {
		t.Fatalf("news list as root: %v %+v", err, r)
	}
	id := strconv.FormatInt(list.Data.Items[0].ID, 10)
	if err := p.Stop(30 * time.Second); err != nil {
		t.Fatalf("stop: %v\n%s", err, p.Logs())
	}
	c.HTTP.CloseIdleConnections()

	// A transaction committed in the -wal only, as a writer killed right
	// after it would leave the files.
	const title = "committed in the -wal only"
	d, err := sql.Open("sqlite", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	d.SetMaxOpenConns(1)
	for _, q := range []string{"PRAGMA wal_autocheckpoint = 0", "UPDATE news SET title = '" + title + "' WHERE id = " + id} {
		if _, err := d.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	image := map[string][]byte{}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if image[suffix], err = os.ReadFile(dbPath + suffix); err != nil {
			t.Fatal(err)
		}
	}
	d.Close()
	for suffix, b := range image {
		if err := os.WriteFile(dbPath+suffix, b, 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chmod(dbPath+suffix, 0o644)
	}

	asNobody := loadgen.StartOptions{Dir: dir, Wait: time.Minute, Prepare: func(cmd *exec.Cmd) {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
		cmd.Env = []string{"HOME=/nonexistent", "PATH=/usr/bin:/bin"}
	}}
	t.Run("with -shm", func(t *testing.T) {
		p, err := loadgen.Start(bin, args, asNobody)
		if err != nil {
			t.Fatalf("the server does not start: %v", err)
		}
		defer p.Stop(30 * time.Second)
		c.BaseURL = "http://" + p.Addr
		r, err := c.Do(ctx, http.MethodGet, "/v1/api/news/view?id="+id, nil)
		if err != nil || r.Status != http.StatusOK || !strings.Contains(string(r.Body), title) {
			t.Errorf("news %s: %v %.300s; want the title committed in the -wal", id, err, r.Body)
		}
		if !strings.Contains(p.Logs(), "holds committed transactions not yet in the file") {
			t.Errorf("the start did not say it reads the -wal:\n%s", p.Logs())
		}
	})
	t.Run("without -shm", func(t *testing.T) {
		if err := os.Remove(dbPath + "-shm"); err != nil {
			t.Fatal(err)
		}
		p, err := loadgen.Start(bin, args, asNobody)
		if err == nil {
			defer p.Stop(30 * time.Second)
			t.Fatal("the server started, serving the file without the transactions its -wal holds")
		}
		if !strings.Contains(err.Error(), "mdqs.db-wal holds") || !strings.Contains(err.Error(), "wal_checkpoint(TRUNCATE)") {
			t.Errorf("exit = %v; want the -wal named and the fix", err)
		}
	})
}
