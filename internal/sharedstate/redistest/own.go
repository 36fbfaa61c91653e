package redistest

import (
	"fmt"
	"io"
	"net"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

// Server is a redis-server a test starts, kills and starts again on the
// same port, with nothing on disk: a restart comes back empty. It is for
// the tests of what an outage does, which must not kill the shared server
// URL names.
type Server struct {
	port int
	dir  string
	cmd  *exec.Cmd
}

// Own starts a Server, stopped when the test ends; redis-server must be
// installed (it is wherever URL's server runs: .ci/services.sh installs it).
func Own(t testing.TB) *Server {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Fatalf("redis-server is not installed (apt-get install redis-server): %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &Server{port: l.Addr().(*net.TCPAddr).Port, dir: t.TempDir()}
	l.Close()
	r.Start(t)
	t.Cleanup(func() {
		if r.cmd != nil {
			r.cmd.Process.Kill()
			r.cmd.Wait()
		}
	})
	return r
}

// URL is the server's redis:// URL.
func (r *Server) URL() string { return fmt.Sprintf("redis://127.0.0.1:%d", r.port) }

// Start starts the server (again) and waits until it accepts connections.
func (r *Server) Start(t testing.TB) {
	t.Helper()
	r.cmd = exec.Command("redis-server", "--bind", "127.0.0.1", "--port", strconv.Itoa(r.port),
		"--save", "", "--appendonly", "no", "--dir", r.dir)
	r.cmd.Stdout, r.cmd.Stderr = io.Discard, io.Discard
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", r.port), 100*time.Millisecond)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis-server on port %d did not start: %v", r.port, err)
		}
	}
}

// Kill is kill -9: Redis loses everything it held.
func (r *Server) Kill(t testing.TB) {
	t.Helper()
	if err := r.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	r.cmd.Wait()
	r.cmd = nil
}
