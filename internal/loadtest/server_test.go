package loadtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"mdqs/internal/loadgen"
	"mdqs/internal/testservers"
)

var mdqsBinary = loadgen.SharedBinary{Prefix: "mdqs-loadtest-"}

func TestMain(m *testing.M) {
	code := testservers.Run(m) // some tests need PostgreSQL or Redis: says how many skipped
	mdqsBinary.Remove()
	os.Exit(code)
}

// binary builds mdqs once per test run.
func binary(t *testing.T) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("runs the server binary with POSIX signals")
	}
	if testing.Short() {
		t.Skip("builds and runs the server binary")
	}
	path, err := mdqsBinary.Path()
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// market is the size of the demo market a server runs.
type market struct {
	stocks, industries, concepts, historyDays int
}

var (
	realSize  = market{5300, 90, 450, 130} // the built-in defaults (config.toml)
	smallSize = market{300, 20, 40, 30}
)

// startDemo runs the binary in demo mode on 127.0.0.1:0 with a temporary
// database and waits until its start-up jobs are done, so the load meets
// a settled server.
func startDemo(t *testing.T, m market) *loadgen.Process {
	t.Helper()
	return startDemoOn(t, m, "", "")
}

// startDemoOn is startDemo on the store db ("": a file in a temp folder)
// with more configuration text (whole tables the base text lacks).
func startDemoOn(t *testing.T, m market, db, extra string) *loadgen.Process {
	t.Helper()
	bin := binary(t)
	dir := t.TempDir()
	if db == "" {
		db = filepath.Join(dir, "mdqs.db")
	}
	cfg := filepath.Join(dir, "config.toml")
	// Only the keys that matter here: everything else keeps its built-in
	// default, whatever other keys config.toml grows.
	text := fmt.Sprintf(`[sources]
default = "demo"
[demo]
enabled = true
stocks = %d
industries = %d
concepts = %d
history_days = %d
[limits.clients]
demo = { rate = 0.0, burst = 1 }  # the load client is not rate limited
[log]
level = "info"
`, m.stocks, m.industries, m.concepts, m.historyDays) + extra
	if err := os.WriteFile(cfg, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := loadgen.Start(bin, []string{"-config", cfg, "-addr", "127.0.0.1:0", "-db", db},
		loadgen.StartOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Stop(30 * time.Second); err != nil {
			t.Errorf("mdqs did not stop cleanly: %v\n%s", err, p.Logs())
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := p.WaitJobsIdle(ctx); err != nil {
		t.Fatalf("%v\n%s", err, p.Logs())
	}
	return p
}

// report prints a run's figures and fails on any error answer.
func report(t *testing.T, res *loadgen.Result) {
	t.Helper()
	var b bytesWriter
	res.Print(&b)
	t.Log("\n" + string(b))
	if res.Total.Errors > 0 {
		t.Errorf("%d of %d requests failed", res.Total.Errors, res.Total.Requests)
	}
	for _, s := range res.Endpoints {
		if s.Requests == 0 {
			t.Errorf("no %s request was answered", s.Name)
		}
	}
}

type bytesWriter []byte

func (b *bytesWriter) Write(p []byte) (int, error) {
	*b = append(*b, p...)
	return len(p), nil
}
