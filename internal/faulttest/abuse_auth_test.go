//go:build faults

package faulttest

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mdqs/internal/auth"
	"mdqs/internal/client"
	"mdqs/internal/loadgen"
)

// serveArgs are the flags of `mdqs serve` (loadgen.Start adds the command) on a database in dir with config text.
func serveArgs(t *testing.T, dir, config string) []string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "mdqs.toml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{"-config", filepath.Join(dir, "mdqs.toml"), "-addr", "127.0.0.1:0", "-db", filepath.Join(dir, "mdqs.db")}
}

// send is one request with exactly these headers (a replay sends the same
// four signature headers again).
func send(t *testing.T, hc *http.Client, addr, path string, h http.Header) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, "http://"+addr+path, nil)
	req.Header = h.Clone()
	res, err := hc.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// Issue 20 point 4: the replay set lived in memory only, so a signed
// request was accepted again by the next process, after SIGTERM or kill -9.
// Now the same bytes are refused after either restart, and a request
// signed afresh is accepted (the token itself survives in the store).
func TestReplayRefusedAfterRestart(t *testing.T) {
	dir := t.TempDir()
	args := serveArgs(t, dir, demoConfig)
	for _, stop := range []string{"SIGTERM", "kill -9"} {
		t.Run(stop, func(t *testing.T) {
			p := startBinary(t, args, loadgen.StartOptions{Dir: dir})
			cl := client.New(p.Addr, auth.DemoClientID, auth.DemoSecret)
			tok, h := signedWhoami(t, cl, "")
			hc := &http.Client{Timeout: 10 * time.Second}
			if code, body := send(t, hc, p.Addr, "/v1/api/whoami", h); code != 200 {
				t.Fatalf("first send: %d %s", code, body)
			}
			if code, _ := send(t, hc, p.Addr, "/v1/api/whoami", h); code != 401 {
				t.Fatalf("replay to the same process: %d, want 401", code)
			}
			if stop == "SIGTERM" {
				if err := p.Stop(30 * time.Second); err != nil {
					t.Logf("stop: %v", err)
				}
			} else {
				p.Kill()
			}
			q := startBinary(t, args, loadgen.StartOptions{Dir: dir})
			code, body := send(t, hc, q.Addr, "/v1/api/whoami", h)
			if code != 401 || !strings.Contains(body, "before this server started") {
				t.Fatalf("the same request after %s and a restart: %d %s, want 401 saying it was signed before the start", stop, code, body)
			}
			_, fresh := signedWhoami(t, cl, tok)
			if code, body := send(t, hc, q.Addr, "/v1/api/whoami", fresh); code != 200 {
				t.Fatalf("a fresh signature with the same token: %d %s", code, body)
			}
			q.Stop(30 * time.Second)
		})
	}
}

// Issue 27: the start-up rule refuses what was signed before the start,
// but a request dated ahead of the server's clock carries a timestamp
// after it. Such a request, accepted and then replayed after kill -9 and a
// restart, was accepted again; the store now records it.
func TestReplayDatedAheadRefusedAfterRestart(t *testing.T) {
	dir := t.TempDir()
	args := serveArgs(t, dir, demoConfig)
	p := startBinary(t, args, loadgen.StartOptions{Dir: dir})
	cl := client.New(p.Addr, auth.DemoClientID, auth.DemoSecret)
	cl.Now = func() time.Time { return time.Now().Add(40 * time.Second) } // a client whose clock runs 40 s ahead
	tok, h := signedWhoami(t, cl, "")
	hc := &http.Client{Timeout: 10 * time.Second}
	if code, body := send(t, hc, p.Addr, "/v1/api/whoami", h); code != 200 {
		t.Fatalf("first send: %d %s", code, body)
	}
	p.Kill()
	q := startBinary(t, args, loadgen.StartOptions{Dir: dir})
	if code, body := send(t, hc, q.Addr, "/v1/api/whoami", h); code != 401 || !strings.Contains(body, "nonce already used") {
		t.Fatalf("the request dated 40 s ahead, replayed after kill -9 and a restart: %d %s, want 401 nonce already used", code, body)
	}
	_, fresh := signedWhoami(t, cl, tok)
	if code, body := send(t, hc, q.Addr, "/v1/api/whoami", fresh); code != 200 {
		t.Fatalf("a fresh request dated ahead after the restart: %d %s", code, body)
	}
	q.Stop(30 * time.Second)
}

// signedWhoami is the headers of one signed request with tok (a new token
// from cl when tok is ""), and the token.
func signedWhoami(t *testing.T, cl *client.Client, tok string) (string, http.Header) {
	t.Helper()
	if tok == "" {
		var err error
		if tok, err = cl.Token(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	h := http.Header{}
	cl.Sign(h, tok, nil)
	h.Set("Authorization", "Bearer "+tok)
	return tok, h
}

// fromLoopback is an HTTP client whose connections come from 127.0.0.n.
func fromLoopback(n int) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, byte(n/250), byte(1+n%250))}, Timeout: 5 * time.Second}
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DialContext: d.DialContext, DisableKeepAlives: true}}
}

// Issue 20 point 5, through the binary with the shipped limits: rotating
// the source over 127.0.0.0/8 does not escape the token endpoint's
// per-address bucket; wrong secrets are limited per address (the right
// secret from the same machine is refused too until the bucket refills:
// every 127.x.y.z is that machine); random tokens are
// limited per address while a caller with a known token carries on.
func TestGuessingLimitedThroughTheBinary(t *testing.T) {
	dir := t.TempDir()
	config := strings.Replace(demoConfig, "token_rate = 0.0\n", "", 1) // the shipped token limits
	p := startBinary(t, serveArgs(t, dir, config), loadgen.StartOptions{Dir: dir})
	post := func(hc *http.Client, secret string) (int, string) {
		res, err := hc.Post("http://"+p.Addr+"/v1/auth/token", "application/json",
			strings.NewReader(fmt.Sprintf(`{"client_id":%q,"client_secret":%q}`, auth.DemoClientID, secret)))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	// One known token first, for the last part.
	cl := client.New(p.Addr, auth.DemoClientID, auth.DemoSecret)
	good, err := cl.Token(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var statuses []int
	for i := range 30 {
		code, _ := post(fromLoopback(i), "guess-"+fmt.Sprint(i))
		statuses = append(statuses, code)
	}
	var limited int
	for _, c := range statuses {
		if c == 429 {
			limited++
		}
	}
	if limited == 0 || statuses[0] != 401 {
		t.Fatalf("30 wrong secrets from 30 loopback addresses: %v; want 401s, then 429s", statuses)
	}
	code, body := post(fromLoopback(77), auth.DemoSecret)
	if code != 429 {
		t.Fatalf("the right secret after the wrong ones: %d %s, want 429", code, body)
	}

	hc := fromLoopback(5)
	var bad []int
	for i := range 25 {
		h := http.Header{}
		fake := strings.Repeat("f", len(good)-2) + fmt.Sprintf("%02d", i)
		cl.Sign(h, fake, nil)
		h.Set("Authorization", "Bearer "+fake)
		c, _ := send(t, hc, p.Addr, "/v1/api/whoami", h)
		bad = append(bad, c)
	}
	if bad[0] != 401 || bad[len(bad)-1] != 429 {
		t.Fatalf("25 random tokens from one machine: %v; want 401s, then 429s", bad)
	}
	h := http.Header{}
	cl.Sign(h, good, nil)
	h.Set("Authorization", "Bearer "+good)
	if c, body := send(t, fromLoopback(6), p.Addr, "/v1/api/whoami", h); c != 200 {
		t.Fatalf("a known token from the same machine meanwhile: %d %s", c, body)
	}
}
