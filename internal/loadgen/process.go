package loadgen

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
)

// This file runs the real mdqs binary, for the load and fault tests: build
// it, start it on a port chosen by the kernel, learn the address from its
// log, stop or kill it.

// Build compiles the mdqs command of the module that holds the current
// directory into dir (CGO_ENABLED=0, as shipped) and returns its path.
func Build(ctx context.Context, dir string) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("loadgen: not inside the mdqs module")
	}
	bin := filepath.Join(dir, "mdqs")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	build.Dir = filepath.Dir(gomod)
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %w\n%s", err, out)
	}
	return bin, nil
}

// Process is a running mdqs server.
type Process struct {
	Cmd  *exec.Cmd
	Addr string // where it listens, from its log

	logs *SyncBuffer
	done chan struct{}
	err  error // Wait's result, once done is closed
}

// StartOptions adjust how a server is started.
type StartOptions struct {
	Dir string // working directory (default: the binary's)
	// Prepare may change the command before it starts (environment,
	// credentials).
	Prepare func(*exec.Cmd)
	// Wait bounds the wait for the listening line (default 60s).
	Wait time.Duration
}

var listening = regexp.MustCompile(`msg="mdqs listening" addr=(\S+)`)

// Start runs `bin serve args...` and waits until it logs its address. If it
// exits first, the error holds its log.
func Start(bin string, args []string, opt StartOptions) (*Process, error) {
	if opt.Wait <= 0 {
		opt.Wait = 60 * time.Second
	}
	cmd := exec.Command(bin, append([]string{"serve"}, args...)...)
	cmd.Dir = opt.Dir
	if cmd.Dir == "" {
		cmd.Dir = filepath.Dir(bin)
	}
	p := &Process{Cmd: cmd, logs: &SyncBuffer{}, done: make(chan struct{})}
	pr, pw := io.Pipe()
	cmd.Stdout = p.logs
	cmd.Stderr = io.MultiWriter(p.logs, pw)
	if opt.Prepare != nil {
		opt.Prepare(cmd)
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		p.err = cmd.Wait()
		pw.Close()
		close(p.done)
	}()
	addrc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		sent := false
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil && !sent {
				addrc <- m[1]
				sent = true
			}
		}
		io.Copy(io.Discard, pr)
	}()
	select {
	case p.Addr = <-addrc:
		return p, nil
	case <-p.done:
		return nil, fmt.Errorf("mdqs exited at start (%v):\n%s", p.err, p.logs)
	case <-time.After(opt.Wait):
		p.Kill()
		return nil, fmt.Errorf("mdqs did not log its address within %v:\n%s", opt.Wait, p.logs)
	}
}

// Pid is the process id.
func (p *Process) Pid() int { return p.Cmd.Process.Pid }

// RSS is the process's resident memory (Linux).
func (p *Process) RSS() (uint64, error) { return ProcRSS(p.Pid()) }

// Logs is everything the server wrote so far.
func (p *Process) Logs() string { return p.logs.String() }

// Done is closed once the process has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// Err is the process's exit error, once Done is closed.
func (p *Process) Err() error {
	<-p.done
	return p.err
}

// Stop sends SIGINT (what Ctrl-C and `kill -INT` do; SIGTERM is handled
// the same way) and waits up to timeout for the orderly exit, then kills.
func (p *Process) Stop(timeout time.Duration) error {
	select {
	case <-p.done:
		return p.err
	default:
	}
	p.Cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.done:
		return p.err
	case <-time.After(timeout):
		p.Kill()
		return fmt.Errorf("mdqs did not stop within %v; killed", timeout)
	}
}

// Kill sends SIGKILL (kill -9) and waits for the exit.
func (p *Process) Kill() {
	p.Cmd.Process.Kill()
	<-p.done
}

// WaitJobsIdle polls GET /v1/api/health/sources until none of the
// server's background jobs is running (the start-up jobs: end-of-day
// catch-up, history seeding, imports) or ctx ends.
func (p *Process) WaitJobsIdle(ctx context.Context) error {
	hc := &http.Client{Timeout: 10 * time.Second}
	var last string
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+p.Addr+"/v1/api/health/sources", nil)
		if resp, err := hc.Do(req); err == nil {
			var env struct {
				Data struct {
					Jobs []struct {
						Name    string `json:"name"`
						Running bool   `json:"running"`
					} `json:"jobs"`
				} `json:"data"`
			}
			err := json.NewDecoder(resp.Body).Decode(&env)
			resp.Body.Close()
			if err == nil {
				var running []string
				for _, j := range env.Data.Jobs {
					if j.Running {
						running = append(running, j.Name)
					}
				}
				if len(running) == 0 {
					return nil
				}
				last = strings.Join(running, ", ")
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("jobs still running (%s): %w", last, ctx.Err())
		case <-p.done:
			return fmt.Errorf("mdqs exited: %v", p.err)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// SyncBuffer is a bytes.Buffer that a server's log goroutines may write
// while a test reads it.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *SyncBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *SyncBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// SharedBinary builds mdqs at most once per test process, into a temporary
// folder any user may read (a fault test runs it as nobody). Call Remove
// from TestMain after the tests.
type SharedBinary struct {
	Prefix string // of the temporary folder's name
	// Build builds the binary into the folder and returns its path; nil
	// is Build, mdqs itself.
	Build func(ctx context.Context, dir string) (string, error)

	once sync.Once
	dir  string
	path string
	err  error
}

func (b *SharedBinary) Path() (string, error) {
	b.once.Do(func() {
		if b.dir, b.err = os.MkdirTemp("", b.Prefix); b.err != nil {
			return
		}
		if b.err = os.Chmod(b.dir, 0o755); b.err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		build := b.Build
		if build == nil {
			build = Build
		}
		b.path, b.err = build(ctx, b.dir)
	})
	return b.path, b.err
}

// Remove deletes the folder, if one was made.
func (b *SharedBinary) Remove() {
	if b.dir != "" {
		os.RemoveAll(b.dir)
	}
}
