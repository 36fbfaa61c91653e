// Package testservers is how a test that needs a real server (PostgreSQL,
// Redis) meets its absence: without the server's variable it is skipped,
// saying how to start one; under CI, whose .ci/run starts both, it fails
// instead, so a broken start cannot turn into silent skips. A package
// whose tests skip this way runs them through Main, which says at the
// package's end how many were skipped and how to run them.
package testservers

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"mdqs/internal/checkout"
)

// HowTo is how to run every test that needs a server.
const HowTo = "start throwaway ones with `. .ci/services.sh && start_postgres && start_redis` (root; it exports " +
	"MDQS_TEST_POSTGRES and MDQS_TEST_REDIS), then run go test ./... again; .ci/run does all of it"

// runThem is HowTo, short enough for the summary line.
const runThem = "bash -c '. .ci/services.sh && start_postgres && start_redis && go test ./...' (as root: throwaway servers, gone at the end), or .ci/run"

// skips counts this test binary's skipped tests by the server they need.
var skips = struct {
	sync.Mutex
	by map[string]int
}{by: map[string]int{}}

// Need is the value of env, the server's address; without one the test is
// skipped with how (or fails under CI).
func Need(t testing.TB, server, env, how string) string {
	t.Helper()
	v := os.Getenv(env)
	if v != "" {
		return v
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%s is not set but CI is: .ci/run must start %s", env, server)
	}
	skips.Lock()
	skips.by[server]++
	skips.Unlock()
	t.Skipf("%s not set: %s", env, how)
	return ""
}

// Main runs the package's tests and exits; see Run.
func Main(m *testing.M) { os.Exit(Run(m)) }

// Run runs the package's tests and, when some were skipped for want of a
// server, says so in one line where go test ./... shows it.
func Run(m *testing.M) int {
	before, guarded := packageFolder()
	code := m.Run()
	if guarded {
		if left := litter(before); len(left) > 0 {
			fmt.Fprintf(os.Stderr, "FAIL: the tests left %s in the package's folder: a test must write under t.TempDir(), or a commit picks it up\n", strings.Join(left, ", "))
			if code == 0 {
				code = 1
			}
		}
	}
	if line := summary(); line != "" {
		if w, err := goOutput(); err == nil {
			io.WriteString(w, line)
			w.Close()
		}
	}
	return code
}

// packageFolder lists the working folder when it is a package's source
// folder (it holds _test.go files), which go test runs tests in; a helper
// process a test starts in a temporary folder is not guarded.
func packageFolder() (map[string]bool, bool) {
	entries, err := os.ReadDir(".")
	if err != nil {
		return nil, false
	}
	names := map[string]bool{}
	source := false
	for _, e := range entries {
		names[e.Name()] = true
		source = source || strings.HasSuffix(e.Name(), "_test.go")
	}
	return names, source
}

// litter is what the working folder holds now that it did not before.
func litter(before map[string]bool) []string {
	entries, err := os.ReadDir(".")
	if err != nil {
		return nil
	}
	var left []string
	for _, e := range entries {
		if !before[e.Name()] {
			left = append(left, e.Name())
		}
	}
	return left
}

// summary is the line, "" when nothing was skipped.
func summary() string {
	skips.Lock()
	defer skips.Unlock()
	var servers []string
	n := 0
	for server, k := range skips.by {
		servers = append(servers, server)
		n += k
	}
	if n == 0 {
		return ""
	}
	sort.Strings(servers)
	return fmt.Sprintf("skip    %s: %d %s %s %s and %s skipped; run %s with %s\n",
		packagePath(), n, plural(n, "test", "tests"), plural(n, "needs", "need"), strings.Join(servers, " and "),
		plural(n, "was", "were"), plural(n, "it", "them"), runThem)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// packagePath is the import path of the package under test: a test runs
// in its package's folder.
func packagePath() string {
	root, err := checkout.Root()
	wd, _ := os.Getwd()
	if err != nil {
		return filepath.Base(wd)
	}
	rel, err := filepath.Rel(root, wd)
	if err != nil || rel == "." {
		return "mdqs"
	}
	return "mdqs/" + filepath.ToSlash(rel)
}

// goOutput is where the line is seen. go test ./... prints nothing of a
// package that passed but its "ok" line (a skipped test passes), so the
// line goes to the go command's own standard output, which the test
// binary's parent holds (Linux: /proc/PPID/fd/1, taken only when it is a
// terminal or a pipe, never a file whose offset go's own writes would
// overwrite), else to the terminal. Under -v the binary's own output is
// shown, so it goes there.
func goOutput() (io.WriteCloser, error) {
	if testing.Verbose() {
		return nopCloser{os.Stdout}, nil
	}
	if runtime.GOOS == "linux" {
		ppid := os.Getppid()
		comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", ppid))
		out := fmt.Sprintf("/proc/%d/fd/1", ppid)
		if strings.TrimSpace(string(comm)) == "go" {
			if fi, err := os.Stat(out); err == nil && fi.Mode()&(os.ModeNamedPipe|os.ModeCharDevice) != 0 {
				if f, err := os.OpenFile(out, os.O_WRONLY, 0); err == nil {
					return f, nil
				}
			}
		}
	}
	tty := "/dev/tty"
	if runtime.GOOS == "windows" {
		tty = "CONOUT$"
	}
	return os.OpenFile(tty, os.O_WRONLY, 0)
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
