package faulttest

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"

	"mdqs/internal/loadgen"
	"mdqs/internal/testservers"
)

var mdqsBinary = loadgen.SharedBinary{Prefix: "mdqs-faulttest-"}

func TestMain(m *testing.M) {
	code := testservers.Run(m) // some tests need PostgreSQL or Redis: says how many skipped
	mdqsBinary.Remove()
	os.Exit(code)
}

// binary builds mdqs once per test run, into a folder any user may read
// (the read-only test runs it as nobody).
func binary(t *testing.T) string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("runs the server binary with Linux facilities")
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

// demoConfig is a small demo market; only the keys that matter here, so
// the file stays valid whatever keys config.toml grows. The tests ask for
// tokens faster than the shipped per-address limit allows.
const demoConfig = `[sources]
default = "demo"
[limits]
token_rate = 0.0
[demo]
enabled = true
stocks = 300
industries = 20
concepts = 40
history_days = 30
`

// terminalConfig serves a terminal folder: a live mode (terminal files are
// live data), with every upstream on a closed local port, since nothing
// here may reach the internet, and the demo client, which live mode seeds
// only when asked.
func terminalConfig(dir string) string {
	text := "[sources]\ndefault = \"push2\"\n[limits]\ntoken_rate = 0.0\n[demo]\nlive_client = true\n"
	for _, up := range []string{"sources.push2", "sources.push2his", "sources.akshare", "hot_rank.eastmoney",
		"news.eastmoney", "news.notices", "news.cls", "finance.datacenter", "securities.szse", "securities.sse"} {
		text += "[" + up + "]\nbase_url = \"http://127.0.0.1:9\"\nretries = 0\n"
	}
	return text + fmt.Sprintf("[tdx]\ndir = %q\n", dir)
}

// startBinary runs the binary with args and stops it (SIGINT) at cleanup.
func startBinary(t *testing.T, args []string, opt loadgen.StartOptions) *loadgen.Process {
	t.Helper()
	p, err := loadgen.Start(binary(t), args, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Stop(30 * time.Second); err != nil {
			t.Logf("mdqs stop: %v", err)
		}
	})
	return p
}

// waitIdle waits for the server's start-up jobs.
func waitIdle(t *testing.T, p *loadgen.Process) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := p.WaitJobsIdle(ctx); err != nil {
		t.Fatalf("%v\n%s", err, p.Logs())
	}
}
