package api

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// One machine is one address for the per-address buckets: rotating over
// 127.0.0.0/8, or over an IPv6 /64, gets no new bucket.
func TestAddrKeyGroupsAMachine(t *testing.T) {
	for _, tt := range []struct{ remote, want string }{
		{"127.0.0.1:4000", "loopback"},
		{"127.201.3.4:1", "loopback"},
		{"[::1]:80", "loopback"},
		{"[::ffff:127.9.9.9]:80", "loopback"},
		{"[2001:db8:1:2::1]:80", "2001:db8:1:2::/64"},
		{"[2001:db8:1:2:ffff::9]:80", "2001:db8:1:2::/64"},
		{"192.0.2.9:4000", "192.0.2.9"},
		{"[::ffff:192.0.2.9]:1", "192.0.2.9"},
		{"not an address", "not an address"},
	} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = tt.remote
		if got := addrKey(r); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.remote, got, tt.want)
		}
	}
}

// The token endpoint's address limit holds against a caller rotating its
// source over 127.0.0.0/8 (before: each address had a bucket of its own).
func TestTokenLimitHoldsAcrossLoopbackAddresses(t *testing.T) {
	h := newHarness(t, withLimits(Limits{Token: RateLimit{Rate: 1, Burst: 2}}))
	h.addClient("c", "secret-c", clientOpts{})
	codes := []int{}
	for i := range 4 {
		req := httptest.NewRequest(http.MethodPost, "/v1/auth/token", strings.NewReader(`{"client_id":"c","client_secret":"wrong"}`))
		req.RemoteAddr = "127.0.0." + string(rune('1'+i)) + ":5000"
		rec := httptest.NewRecorder()
		h.api.Handler().ServeHTTP(rec, req)
		codes = append(codes, rec.Code)
	}
	if codes[0] != 401 || codes[1] != 401 || codes[2] != 429 || codes[3] != 429 {
		t.Errorf("statuses over 127.0.0.1-4: %v, want 401 401 429 429", codes)
	}
}

// Issue 27 point 4: wrong secrets from elsewhere never refuse the owner.
// A client id's failure budget, once spent by guesses from several
// addresses, refuses only addresses that have been failing themselves;
// the owner's right secret from a clean address gets its token. An
// address that spends its own budget is refused before any key
// derivation, whatever client id it names.
func TestOthersWrongSecretsNeverLockTheOwnerOut(t *testing.T) {
	h := newHarness(t, withLimits(Limits{FailedSecret: RateLimit{Rate: 0.1, Burst: 3}}))
	h.addClient("c", "secret-c", clientOpts{})
	h.addClient("d", "secret-d", clientOpts{})
	from := func(addr, id, secret string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "/v1/auth/token", strings.NewReader(`{"client_id":"`+id+`","client_secret":"`+secret+`"}`))
		req.RemoteAddr = addr
		rec := httptest.NewRecorder()
		h.api.Handler().ServeHTTP(rec, req)
		return rec
	}
	for i, addr := range []string{"192.0.2.1:1", "198.51.100.2:1", "203.0.113.3:1"} {
		if rec := from(addr, "c", "guess"); rec.Code != 401 {
			t.Fatalf("wrong secret %d: %d %s", i, rec.Code, rec.Body)
		}
	}
	if rec := from("192.0.2.77:1", "c", "secret-c"); rec.Code != 200 {
		t.Fatalf("the owner's right secret from a clean address after 3 guesses elsewhere: %d %s, want 200", rec.Code, rec.Body)
	}
	// A guesser that already failed is not checked again while the
	// client id's budget is spent, not even with the right secret.
	rec := from("192.0.2.1:1", "c", "secret-c")
	if rec.Code != 429 || !strings.Contains(rec.Body.String(), "wrong secrets for client_id c") {
		t.Fatalf("a failing address with the right secret while c's budget is spent: %d %s, want 429 naming the client id", rec.Code, rec.Body)
	}
	if ra := rec.Header().Get("Retry-After"); ra != "10" {
		t.Errorf("Retry-After %q, want 10 (one failure refills in 10 s)", ra)
	}
	// A fresh address's wrong guess is checked (and counted)...
	if rec := from("192.0.2.88:1", "c", "guess"); rec.Code != 401 {
		t.Fatalf("a clean address's guess while c's budget is spent: %d %s, want 401", rec.Code, rec.Body)
	}
	// ...and that address is now a failing one.
	if rec := from("192.0.2.88:1", "c", "guess2"); rec.Code != 429 {
		t.Fatalf("its second guess: %d %s, want 429", rec.Code, rec.Body)
	}
	if rec := from("192.0.2.88:1", "d", "secret-d"); rec.Code != 200 {
		t.Errorf("another client id from an address with one failure: %d %s", rec.Code, rec.Body)
	}
	// One address's own budget: 3 wrong secrets over any client ids, then
	// nothing from it is checked.
	for i, id := range []string{"x", "y", "d"} {
		if rec := from("203.0.113.50:1", id, "guess"); rec.Code != 401 {
			t.Fatalf("wrong secret %d from one address: %d %s", i, rec.Code, rec.Body)
		}
	}
	rec = from("203.0.113.50:1", "d", "secret-d")
	if rec.Code != 429 || !strings.Contains(rec.Body.String(), "wrong secrets from this address") {
		t.Fatalf("the right secret from an address that spent its budget: %d %s, want 429 naming the address", rec.Code, rec.Body)
	}
	h.clock.Advance(10 * time.Second)
	if rec := from("192.0.2.1:1", "c", "secret-c"); rec.Code != 200 {
		t.Errorf("after the refill: %d %s", rec.Code, rec.Body)
	}
}

// Unknown tokens are limited per address: once spent, a token the server
// does not hold is refused before any lookup, while a caller whose token
// is known keeps working from the same address.
func TestUnknownTokensLimitedPerAddress(t *testing.T) {
	h := newHarness(t, withLimits(Limits{BadToken: RateLimit{Rate: 1, Burst: 3}}))
	h.addClient("c", "secret-c", clientOpts{})
	good := h.token("c", "secret-c")
	h.signed(http.MethodGet, "/v1/api/whoami", good, nil).expect(t, 200, "OK")
	guess := strings.Repeat("0", len(good))
	for i := range 3 {
		h.signed(http.MethodGet, "/v1/api/whoami", guess[:len(guess)-1]+string(rune('a'+i)), nil).expect(t, 401, "unauthorized")
	}
	r := h.signed(http.MethodGet, "/v1/api/whoami", guess[:len(guess)-1]+"z", nil)
	r.expect(t, 429, "too many requests")
	if !strings.Contains(r.detail, "unknown or expired tokens from this address") || r.header.Get("Retry-After") == "" {
		t.Errorf("detail %q, Retry-After %q", r.detail, r.header.Get("Retry-After"))
	}
	h.signed(http.MethodGet, "/v1/api/whoami", good, nil).expect(t, 200, "OK")
	h.clock.Advance(time.Second)
	h.signed(http.MethodGet, "/v1/api/whoami", guess[:len(guess)-1]+"y", nil).expect(t, 401, "unauthorized")
}
