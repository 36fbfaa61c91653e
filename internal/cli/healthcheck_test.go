package cli

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The address a probe dials: the server's listen address, with an
// unspecified host (what a container listens on) made loopback, since a
// probe runs beside the server; a URL passes as it is.
func TestHealthURL(t *testing.T) {
	for _, tt := range []struct {
		addr, want string
	}{
		{"127.0.0.1:8080", "http://127.0.0.1:8080/healthz"},
		{"0.0.0.0:8080", "http://127.0.0.1:8080/healthz"},
		{":8080", "http://127.0.0.1:8080/healthz"},
		{"[::]:8080", "http://127.0.0.1:8080/healthz"},
		{"[::1]:9000", "http://[::1]:9000/healthz"},
		{"desk-a.lan:8080", "http://desk-a.lan:8080/healthz"},
		{"http://127.0.0.1:8080", "http://127.0.0.1:8080/healthz"},
		{"http://0.0.0.0:8080/", "http://127.0.0.1:8080/healthz"},
	} {
		got, err := healthURL(tt.addr)
		if err != nil || got != tt.want {
			t.Errorf("healthURL(%q) = %q, %v; want %q", tt.addr, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "8080", "127.0.0.1", "127.0.0.1:", "ftp://x:1", "127.0.0.1:http-alt:1"} {
		if got, err := healthURL(bad); err == nil {
			t.Errorf("healthURL(%q) = %q, want an error", bad, got)
		}
	}
}

// mdqs healthcheck exits 0 while /healthz answers 200, and 1 (saying
// why) on any other status, a refused connection or a hung server.
func TestHealthcheck(t *testing.T) {
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(`{"status":"ok"}`))
	}))
	defer ok.Close()
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer down.Close()
	hung := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hung:
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	defer close(hung)
	// A port nothing listens on: one just closed.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	_, okPort, _ := net.SplitHostPort(ok.Listener.Addr().String())

	for _, tt := range []struct {
		name string
		args []string
		code int    // 0: success
		want string // in the output
	}{
		{"up", []string{"-addr", ok.Listener.Addr().String()}, 0, "ok"},
		{"the container's address", []string{"-addr", "0.0.0.0:" + okPort}, 0, "http://127.0.0.1:" + okPort + "/healthz"},
		{"a URL", []string{"-addr", ok.URL}, 0, "ok"},
		{"503", []string{"-addr", down.Listener.Addr().String()}, 1, "503"},
		{"nothing listens", []string{"-addr", closed}, 1, closed},
		{"hung", []string{"-addr", slow.Listener.Addr().String(), "-timeout", "200ms"}, 1, "200ms"},
		{"no port", []string{"-addr", "127.0.0.1"}, 2, "-addr"},
		{"an argument", []string{"-addr", ok.Listener.Addr().String(), "extra"}, 2, "extra"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			env := Env{Stdout: &out, Stderr: &out, Getenv: func(string) string { return "" }}
			start := time.Now()
			err := Healthcheck(context.Background(), env, tt.args)
			code := 0
			var ee *ExitError
			switch {
			case errors.As(err, &ee):
				code = ee.Code
				out.WriteString(ee.Error())
			case err != nil:
				t.Fatalf("Healthcheck(%q) = %v, want an *ExitError", tt.args, err)
			}
			if code != tt.code || !strings.Contains(out.String(), tt.want) {
				t.Errorf("Healthcheck(%q): exit %d, output %q; want exit %d and %q", tt.args, code, out.String(), tt.code, tt.want)
			}
			if elapsed := time.Since(start); elapsed > 10*time.Second {
				t.Errorf("Healthcheck(%q) took %v: the timeout did not hold", tt.args, elapsed)
			}
		})
	}
}

// Without -addr the probe dials the configured listen address, so the
// image's HEALTHCHECK needs no flag: the configuration file's server.addr,
// under MDQS_SERVER_ADDR (which the image sets).
func TestHealthcheckReadsTheConfiguredAddress(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"status":"ok"}`))
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte("[server]\naddr = \"0.0.0.0:"+port+"\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	env := Env{Stdout: &out, Stderr: &out, Getenv: func(string) string { return "" }}
	if err := Healthcheck(context.Background(), env, []string{"-config", path}); err != nil {
		t.Fatalf("healthcheck -config: %v (%s)", err, out.String())
	}
	if !strings.Contains(out.String(), "127.0.0.1:"+port) {
		t.Errorf("output %q does not name the address it checked", out.String())
	}
}

func TestHealthcheckReadsTheAddressFromTheEnvironment(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"status":"ok"}`))
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	// A file saying another port: the environment wins over it.
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte("[server]\naddr = \"127.0.0.1:1\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	env := Env{Stdout: &out, Stderr: &out, Getenv: func(string) string { return "" },
		Environ: func() []string { return []string{"MDQS_SERVER_ADDR=0.0.0.0:" + port} }}
	if err := Healthcheck(context.Background(), env, []string{"-config", path}); err != nil {
		t.Fatalf("healthcheck with MDQS_SERVER_ADDR: %v (%s)", err, out.String())
	}
	if !strings.Contains(out.String(), "127.0.0.1:"+port) {
		t.Errorf("output %q does not name the address it checked", out.String())
	}
}
