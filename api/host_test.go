package api

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestHostName(t *testing.T) {
	for _, tt := range []struct {
		in   string
		name string
		ip   bool
		ok   bool
	}{
		{"localhost", "localhost", false, true},
		{"localhost:8080", "localhost", false, true},
		{"LocalHost:8080", "localhost", false, true},
		{"localhost.", "localhost", false, true},
		{"localhost.:8080", "localhost", false, true},
		{"localhost:", "localhost", false, true}, // RFC 3986: an empty port
		{"127.0.0.1", "127.0.0.1", true, true},
		{"127.0.0.1:8080", "127.0.0.1", true, true},
		{"127.0.0.2:8080", "127.0.0.2", true, true},
		{"192.168.1.10:8080", "192.168.1.10", true, true},
		{"[::1]", "::1", true, true},
		{"[::1]:8080", "::1", true, true},
		{"[::FFFF:127.0.0.1]:80", "::ffff:127.0.0.1", true, true},
		{"[fe80::1%25eth0]:80", "fe80::1%25eth0", true, true},
		{"::1", "::1", true, true}, // unbracketed: taken as the address it can only be
		{"attacker.example", "attacker.example", false, true},
		{"Attacker.Example.:8080", "attacker.example", false, true},
		{"mdqs.lan:80", "mdqs.lan", false, true},
		{"", "", false, false},
		{":8080", "", false, false},
		{".", "", false, false},
		{"localhost:http", "", false, false},
		{"localhost:8080:1", "", false, false},
		{"localhost:1234567", "", false, false},
		{"[::1", "", false, false},
		{"[::1]x", "", false, false},
		{"[::1]:x", "", false, false},
		{"[localhost]:80", "", false, false},
		{"[127.0.0.1]:80", "", false, false}, // brackets hold IPv6 only
		{"a:b:c", "", false, false},
	} {
		name, ip, ok := hostName(tt.in)
		if name != tt.name || ip != tt.ip || ok != tt.ok {
			t.Errorf("hostName(%q) = %q, %v, %v; want %q, %v, %v", tt.in, name, ip, ok, tt.name, tt.ip, tt.ok)
		}
	}
}

func TestHostCheckKnows(t *testing.T) {
	loop := NewHostCheck(true, []string{"MDQS.lan.", ".desk.lan"})
	for host, want := range map[string]bool{
		"localhost:8080": true, "127.0.0.1:8080": true, "[::1]:8080": true, "127.0.0.2": true, "10.0.0.5": false, "[fe80::1]:80": false,
		"mdqs.lan:8080": true, "Mdqs.Lan.": true, "desk.lan": true, "a.desk.lan:80": true, "a.b.desk.lan": true,
		"attacker.example:8080": false, "mdqs.lan.attacker.example": false, "xdesk.lan": false,
		"sub.localhost": false, "localhost.attacker.example": false, "": false, "[::1": false,
	} {
		if got := loop.known(host); got != want {
			t.Errorf("known(%q) = %v, want %v", host, got, want)
		}
	}
	for _, tt := range []struct {
		name     string
		c        HostCheck
		enforced bool
	}{
		{"loopback", NewHostCheck(true, nil), true},
		{"loopback, names", NewHostCheck(true, []string{"mdqs.lan"}), true},
		{"0.0.0.0", NewHostCheck(false, nil), false},
		{"0.0.0.0, names", NewHostCheck(false, []string{"mdqs.lan"}), true},
		{"loopback, *", NewHostCheck(true, []string{"*"}), false},
		{"zero value", HostCheck{}, false},
	} {
		if tt.c.Enforced() != tt.enforced {
			t.Errorf("%s: Enforced() = %v, want %v", tt.name, tt.c.Enforced(), tt.enforced)
		}
	}
	// Off loopback (a LAN server that opted in) a user may reach it by
	// any of its addresses.
	if fwd := NewHostCheck(true, []string{"10.0.0.5"}); !fwd.known("10.0.0.5:8080") || fwd.known("10.0.0.6") {
		t.Error("a listed address is refused, or an unlisted one accepted, on loopback")
	}
	if lan := NewHostCheck(false, []string{"mdqs.lan"}); !lan.known("10.0.0.5:8080") || !lan.known("[fe80::1]:80") || lan.known("attacker.example") {
		t.Error("a LAN server's check refuses an IP address, or accepts a foreign name")
	}
	if any := NewHostCheck(true, []string{"*"}); !any.known("attacker.example") || !any.Off() {
		t.Error(`"*" does not accept every Host`)
	}
	if zero := (HostCheck{}); zero.known("attacker.example") || !zero.known("127.0.0.1:1") {
		t.Error("the zero value trusts a foreign name, or not a local one")
	}
	// Every request pays for the check: the usual hosts cost no allocation.
	for _, host := range []string{"127.0.0.1:8080", "localhost:8080", "[::1]:8080", "mdqs.lan:8080"} {
		if n := testing.AllocsPerRun(100, func() { loop.known(host) }); n != 0 {
			t.Errorf("known(%q) allocates %v times", host, n)
		}
	}
}

func withHosts(c HostCheck) harnessOpt { return func(hc *harnessConfig) { hc.deps.Hosts = c } }

// hostDo sends a request with the given Host header to the harness.
func (h *harness) hostDo(method, path, host string, body []byte) (int, http.Header, []byte) {
	h.t.Helper()
	req, err := http.NewRequest(method, h.srv.URL+path, bytes.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	req.Host = host
	res, err := h.srv.Client().Do(req)
	if err != nil {
		h.t.Fatalf("%s %s (Host %s): %v", method, path, host, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, raw
}

// Issue 27: with the check on, a request naming a host this server is not
// is refused before any handler, whatever the path, with the envelope
// naming the setting; local names, addresses and the configured names
// pass, and every refusal counts under route="unmatched".
func TestForeignHostIsRefusedBeforeAnyHandler(t *testing.T) {
	h := newHarness(t, withHosts(NewHostCheck(true, []string{"mdqs.lan"})))
	token := []byte(`{"client_id":"demo","client_secret":"demo-secret"}`)
	h.addClient("demo", "demo-secret", clientOpts{scopes: "*"})
	paths := []struct{ method, path string }{
		{"GET", "/metrics"}, {"GET", "/debug/pprof/cmdline"}, {"GET", "/debug/pprof/heap"}, {"POST", "/v1/auth/token"},
		{"POST", "/v1/api/token"}, {"GET", "/v1/api/health/db"}, {"GET", "/"}, {"GET", "/v1/api/stream"},
		{"GET", "/v1/openapi.json"}, {"GET", "/nosuch"}, {"OPTIONS", "/v1/auth/token"},
	}
	for _, p := range paths {
		status, hdr, raw := h.hostDo(p.method, p.path, "attacker.example:8080", token)
		var env struct {
			Code    *int   `json:"code"`
			Message string `json:"message"`
			Detail  string `json:"detail"`
		}
		if status != http.StatusMisdirectedRequest || json.Unmarshal(raw, &env) != nil || env.Code == nil || *env.Code != 0 ||
			env.Message != "misdirected request" || !strings.Contains(env.Detail, "server.allowed_hosts") ||
			!strings.Contains(env.Detail, `"attacker.example:8080"`) {
			t.Errorf("%s %s with Host attacker.example: %d %s", p.method, p.path, status, raw)
		}
		if hdr.Get("Content-Type") != "application/json; charset=utf-8" || hdr.Get("Allow") != "" {
			t.Errorf("%s %s: Content-Type %q, Allow %q", p.method, p.path, hdr.Get("Content-Type"), hdr.Get("Allow"))
		}
	}
	for _, host := range []string{"localhost:8080", "127.0.0.1:8080", "[::1]:8080", "LOCALHOST.", "mdqs.lan", "MDQS.LAN:8080"} {
		if status, _, raw := h.hostDo("GET", "/v1/api/health/db", host, nil); status != 200 {
			t.Errorf("Host %s: %d %s", host, status, raw)
		}
		if status, _, raw := h.hostDo("GET", "/metrics", host, nil); status != 200 {
			t.Errorf("Host %s, /metrics from loopback: %d %.200s", host, status, raw)
		}
	}
	if status, _, raw := h.hostDo("POST", "/v1/auth/token", "localhost:8080", token); status != 200 {
		t.Errorf("token with Host localhost: %d %s", status, raw)
	}
	gets := 0
	for _, p := range paths {
		if p.method == "GET" {
			gets++
		}
	}
	if n := mustSample(t, h.scrape(), "mdqs_http_requests_total", map[string]string{"route": "unmatched", "method": "GET", "code": "421"}); n != float64(gets) {
		t.Errorf("GET 421s counted under unmatched: %v, want %d", n, gets)
	}

	addr := h.srv.Listener.Addr().String()
	for _, tt := range []struct {
		name, raw string
		status    int
	}{
		// An absolute-form target's authority is the request's host
		// (RFC 9112 3.2.2): net/http puts it in r.Host, over the header.
		{"absolute-form, foreign authority", "GET http://attacker.example/metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 421},
		{"absolute-form, local authority", "GET http://127.0.0.1/metrics HTTP/1.1\r\nHost: attacker.example\r\n\r\n", 200},
		// HTTP/1.0 may leave Host out: refused, since nothing then says
		// the request is meant for this server (HTTP/1.1 without one is
		// net/http's own 400).
		{"HTTP/1.0 without Host", "GET /v1/api/health/db HTTP/1.0\r\n\r\n", 421},
		{"HTTP/1.0 with Host", "GET /v1/api/health/db HTTP/1.0\r\nHost: localhost\r\n\r\n", 200},
		{"HTTP/1.1 without Host", "GET /v1/api/health/db HTTP/1.1\r\n\r\n", 400},
		{"malformed port", "GET /v1/api/health/db HTTP/1.1\r\nHost: localhost:http\r\n\r\n", 421},
	} {
		res, body := rawRequest(t, addr, tt.raw)
		if res.StatusCode != tt.status {
			t.Errorf("%s: %d %.300s, want %d", tt.name, res.StatusCode, body, tt.status)
		}
		if tt.status == 421 && !bytes.Contains(body, []byte("server.allowed_hosts")) {
			t.Errorf("%s: the detail does not name the setting: %s", tt.name, body)
		}
	}
}

// Off loopback with no names the check refuses nothing (a LAN deployment
// is reached by whatever name its desks use), and "*" turns it off
// anywhere; a loopback caller under a foreign name is still not trusted as
// local by /metrics.
func TestHostCheckOff(t *testing.T) {
	for _, c := range []HostCheck{NewHostCheck(false, nil), NewHostCheck(true, []string{"*"})} {
		h := newHarness(t, withHosts(c))
		if status, _, raw := h.hostDo("GET", "/v1/api/health/db", "attacker.example:8080", nil); status != 200 {
			t.Errorf("%+v: %d %s", c, status, raw)
		}
		want := 401
		if c.Off() {
			want = 200 // "*": every name is this machine's
		}
		if status, _, raw := h.hostDo("GET", "/metrics", "attacker.example:8080", nil); status != want {
			t.Errorf("%+v: /metrics from loopback with Host attacker.example: %d %.200s, want %d", c, status, raw, want)
		}
	}
}
