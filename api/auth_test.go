package api

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"mdqs/internal/auth"
	"mdqs/internal/client"
)

func TestBearerTokenRules(t *testing.T) {
	h := newHarness(t)
	h.addClient("c", "secret-c", clientOpts{})
	tok := h.token("c", "secret-c")
	signedWith := func(authz string) http.Header {
		hd := h.signedHeader(tok, nil)
		if authz == "" {
			hd.Del("Authorization")
		} else {
			hd.Set("Authorization", authz)
		}
		return hd
	}
	tests := []struct {
		name   string
		header http.Header
		status int
	}{
		{"valid", signedWith("Bearer " + tok), 200},
		{"scheme is case-insensitive", signedWith("bearer " + tok), 200},
		{"missing header", signedWith(""), 401},
		{"basic scheme", signedWith("Basic " + tok), 401},
		{"no token", signedWith("Bearer "), 401},
		{"unknown token", signedWith("Bearer " + strings.Repeat("ab", 32)), 401},
		{"upper-case token", signedWith("Bearer " + strings.ToUpper(tok)), 401},
		{"truncated token", signedWith("Bearer " + tok[:63]), 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := h.do(http.MethodGet, "/v1/api/whoami", nil, tt.header)
			if r.status != tt.status {
				t.Fatalf("status = %d (%s), want %d", r.status, r.raw, tt.status)
			}
			if tt.status == 401 {
				r.expect(t, 401, "unauthorized")
				if r.header.Get("WWW-Authenticate") == "" {
					t.Error("401 without WWW-Authenticate")
				}
			}
		})
	}
}

func TestExpiredTokenIsRefused(t *testing.T) {
	h := newHarness(t)
	h.addClient("c", "secret-c", clientOpts{})
	tok := h.token("c", "secret-c")
	h.signed(http.MethodGet, "/v1/api/whoami", tok, nil).expect(t, 200, "OK")
	h.clock.Advance(2*time.Hour + time.Second)
	h.signed(http.MethodGet, "/v1/api/whoami", tok, nil).expect(t, 401, "unauthorized")
}

func TestSignatureRules(t *testing.T) {
	h := newHarness(t)
	h.addClient("c", "secret-c", clientOpts{})
	tok := h.token("c", "secret-c")
	body := []byte(`{"codes":["600519.SH"]}`)
	now := h.clock.Now().Unix()
	header := func(ts int64, nonce string, signedBody []byte) http.Header {
		s := strconv.FormatInt(ts, 10)
		return http.Header{"Authorization": {"Bearer " + tok}, "X-Timestamp": {s}, "X-Nonce": {nonce},
			"X-Signature": {client.Signature(tok, s, nonce, signedBody)}}
	}
	replayed := header(now, "nonce-replay", body)
	tests := []struct {
		name   string
		header http.Header
		body   []byte
		status int
		detail string
	}{
		{"valid", header(now, "n-1", body), body, 200, ""},
		{"replay of a used nonce", replayed, body, 200, ""},
		{"replay again", replayed, body, 401, "nonce already used"},
		{"bad md5", func() http.Header {
			hd := header(now, "n-2", body)
			hd.Set("X-Signature", strings.Repeat("0", 32))
			return hd
		}(), body, 401, "signature mismatch"},
		{"tampered body", header(now, "n-3", body), []byte(`{"codes":["000001.SZ"]}`), 401, "signature mismatch"},
		{"60 s behind", header(now-60, "n-4", body), body, 200, ""},
		{"61 s behind", header(now-61, "n-5", body), body, 401, "skew"},
		{"60 s ahead", header(now+60, "n-6", body), body, 200, ""},
		{"61 s ahead", header(now+61, "n-7", body), body, 401, "skew"},
		{"milliseconds", header(now*1000, "n-8", body), body, 401, "milliseconds"},
		{"missing signature headers", http.Header{"Authorization": {"Bearer " + tok}}, body, 401, "required"},
		{"missing nonce", func() http.Header { hd := header(now, "n-9", body); hd.Del("X-Nonce"); return hd }(), body, 401, "required"},
		{"over-long nonce", header(now, strings.Repeat("n", 129), body), body, 401, "X-Nonce"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := h.do(http.MethodPost, "/test/echo", tt.body, tt.header)
			if r.status != tt.status || !strings.Contains(r.detail, tt.detail) {
				t.Fatalf("got %d %q, want %d with detail containing %q", r.status, r.raw, tt.status, tt.detail)
			}
		})
	}
	// A body the middleware read for the signature still reaches the handler.
	r := h.do(http.MethodPost, "/test/echo", body, header(now, "n-10", body))
	if !strings.Contains(string(r.data), `"bytes":23`) {
		t.Fatalf("handler saw %s, want the 23-byte body", r.data)
	}
}

func TestNonceMayBeReusedByAnotherToken(t *testing.T) {
	h := newHarness(t)
	h.addClient("c", "secret-c", clientOpts{})
	a, b := h.token("c", "secret-c"), h.token("c", "secret-c")
	now := strconv.FormatInt(h.clock.Now().Unix(), 10)
	for _, tok := range []string{a, b} {
		hd := http.Header{"Authorization": {"Bearer " + tok}, "X-Timestamp": {now}, "X-Nonce": {"shared"},
			"X-Signature": {client.Signature(tok, now, "shared", nil)}}
		h.do(http.MethodGet, "/v1/api/whoami", nil, hd).expect(t, 200, "OK")
	}
}

func TestSignatureModesThroughHTTP(t *testing.T) {
	for _, tt := range []struct {
		mode                   auth.SignatureMode
		unsigned, badSignature int
	}{
		{auth.SignatureRequired, 401, 401},
		{auth.SignatureOptional, 200, 401},
		{auth.SignatureOff, 200, 200},
	} {
		t.Run(string(tt.mode), func(t *testing.T) {
			h := newHarness(t, withSignature(tt.mode))
			h.addClient("c", "secret-c", clientOpts{})
			tok := h.token("c", "secret-c")
			if r := h.do(http.MethodGet, "/v1/api/whoami", nil, http.Header{"Authorization": {"Bearer " + tok}}); r.status != tt.unsigned {
				t.Errorf("unsigned: %d, want %d", r.status, tt.unsigned)
			}
			bad := h.signedHeader(tok, nil)
			bad.Set("X-Signature", strings.Repeat("f", 32))
			if r := h.do(http.MethodGet, "/v1/api/whoami", nil, bad); r.status != tt.badSignature {
				t.Errorf("bad signature: %d, want %d", r.status, tt.badSignature)
			}
			// Whatever the mode, the bearer token is always required.
			if r := h.do(http.MethodGet, "/v1/api/whoami", nil, nil); r.status != 401 {
				t.Errorf("no token: %d, want 401", r.status)
			}
		})
	}
}

func TestAPIKeyHeader(t *testing.T) {
	h := newHarness(t)
	const key = "k-0123456789abcdef"
	h.addClient("keyed", "secret-k", clientOpts{apiKey: key})
	h.addClient("plain", "secret-p", clientOpts{})
	keyed, plain := h.token("keyed", "secret-k"), h.token("plain", "secret-p")
	call := func(tok, apiKey string) int {
		hd := h.signedHeader(tok, nil)
		if apiKey != "" {
			hd.Set("api-key", apiKey)
		}
		return h.do(http.MethodGet, "/v1/api/whoami", nil, hd).status
	}
	for _, tt := range []struct {
		name, tok, key string
		want           int
	}{
		{"keyed client, right key", keyed, key, 200},
		{"keyed client, no key", keyed, "", 401},
		{"keyed client, wrong key", keyed, key + "x", 401},
		{"plain client ignores the header", plain, "anything", 200},
		{"plain client without header", plain, "", 200},
	} {
		if got := call(tt.tok, tt.key); got != tt.want {
			t.Errorf("%s: status %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestScopesGiveForbidden(t *testing.T) {
	h := newHarness(t)
	h.addClient("m", "secret-m", clientOpts{scopes: "market"})
	h.addClient("all", "secret-a", clientOpts{scopes: "*"})
	m, all := h.token("m", "secret-m"), h.token("all", "secret-a")
	h.signed(http.MethodGet, "/test/kline", m, nil).expect(t, 403, "forbidden")
	h.signed(http.MethodPost, "/test/admin", m, []byte("{}")).expect(t, 403, "forbidden")
	h.signed(http.MethodGet, "/test/kline", all, nil).expect(t, 200, "OK")
	h.signed(http.MethodPost, "/test/admin", all, []byte("{}")).expect(t, 200, "OK")
	// Authentication comes before authorisation: a bad signature is 401 even
	// where the scope is missing.
	bad := h.signedHeader(m, nil)
	bad.Set("X-Signature", strings.Repeat("0", 32))
	if r := h.do(http.MethodGet, "/test/kline", nil, bad); r.status != 401 {
		t.Fatalf("bad signature on a forbidden route: %d, want 401", r.status)
	}
}
