package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"mdqs/db/dbtest"
	"mdqs/internal/client"
)

// The commands an administrator runs work on a PostgreSQL store given as
// -db, and a server on it answers the client they made. (The reports,
// backfill and terminal import commands run on it in the cli package's
// tests under MDQS_TEST_STORE=postgres.)
func TestCommandsAndServerOnPostgreSQL(t *testing.T) {
	target := dbtest.NewSchema(t, dbtest.NeedPostgres(t))
	out, errs, code := mdqs("client", "add", "-db", target, "-id", "desk", "-scopes", "market,kline")
	secret := regexp.MustCompile(`client_secret=(\S+)`).FindStringSubmatch(out)
	if code != 0 || secret == nil {
		t.Fatalf("client add on PostgreSQL: exit %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(errs, "database postgres://") {
		t.Errorf("client add does not say which database: %q", errs)
	}
	if out, errs, code := mdqs("client", "list", "-db", target); code != 0 || !strings.Contains(out, "desk") {
		t.Errorf("client list: exit %d %q %q", code, out, errs)
	}
	holidays := filepath.Join(t.TempDir(), "h.csv")
	os.WriteFile(holidays, []byte("2027-01-01,元旦\n2027-02-08,春节\n"), 0o600)
	if out, errs, code := mdqs("calendar", "import", "-db", target, holidays); code != 0 {
		t.Errorf("calendar import: exit %d %q %q", code, out, errs)
	}
	if out, errs, code := mdqs("calendar", "status", "-db", target); code != 0 || !strings.Contains(out, "2027") {
		t.Errorf("calendar status: exit %d %q %q; want 2027 imported", code, out, errs)
	}

	s := startServerWith(t, serveOptions{config: smallDemo, db: target})
	if !strings.Contains(s.logs.String(), `db="postgres://`) {
		t.Errorf("the server's log does not name its store:\n%s", s.logs)
	}
	c := client.New(s.addr, "desk", secret[1])
	resp, err := c.Do(context.Background(), "GET", "/v1/api/whoami", nil)
	if err != nil || resp.Status != 200 || !strings.Contains(string(resp.Body), `"desk"`) {
		t.Fatalf("whoami as the client made on PostgreSQL: %v %v", err, resp)
	}
	resp, err = c.Do(context.Background(), "GET", "/v1/api/hot_rank", nil)
	if err != nil || resp.Status != 403 {
		t.Errorf("the client's scopes, read back from PostgreSQL, let it read hot_rank: %v %v", err, resp)
	}
}
