package api

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"mdqs/internal/market"
)

func TestTokenIssuedInSpecShape(t *testing.T) {
	h := newHarness(t)
	h.addClient("c1", "secret-one", clientOpts{enableLog: true})
	for _, path := range []string{"/v1/auth/token", "/v1/api/token"} {
		r := h.do(http.MethodPost, path, []byte(`{"client_id":"c1","client_secret":"secret-one"}`), http.Header{"Content-Type": {"application/json"}})
		r.expect(t, http.StatusOK, "OK")
		var d struct {
			Token      string `json:"token"`
			ExpireAt   string `json:"expire_at"`
			EnableLog  *bool  `json:"enable_log"`
			TokenBytes int    `json:"token_bytes"`
		}
		if err := json.Unmarshal(r.data, &d); err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(d.Token) {
			t.Errorf("%s: token %q is not 64 lowercase hex", path, d.Token)
		}
		// 10:00 Shanghai + 2h, rendered in Shanghai time whatever the host's zone.
		if d.ExpireAt != "2026-11-23 12:00:00" {
			t.Errorf("%s: expire_at = %q, want 2026-11-23 12:00:00", path, d.ExpireAt)
		}
		if d.EnableLog == nil || !*d.EnableLog || d.TokenBytes != 64 {
			t.Errorf("%s: enable_log = %v, token_bytes = %d", path, d.EnableLog, d.TokenBytes)
		}
	}
}

func TestTokenRequestErrors(t *testing.T) {
	h := newHarness(t)
	off := false
	h.addClient("ok", "secret-ok", clientOpts{})
	h.addClient("off", "secret-off", clientOpts{enabled: &off})
	h.addClient("old", "secret-old", clientOpts{expires: t0.Add(-time.Minute)})
	tests := []struct {
		name    string
		body    string
		status  int
		message string
		detail  string
	}{
		{"missing client_id", `{"client_secret":"x"}`, 400, "missing or invalid params", "client_id is required"},
		{"missing client_secret", `{"client_id":"ok"}`, 400, "missing or invalid params", "client_secret is required"},
		{"empty strings", `{"client_id":"","client_secret":""}`, 400, "missing or invalid params", "client_id is required"},
		{"not JSON", `client_id=ok&client_secret=secret-ok`, 400, "missing or invalid params", "JSON object"},
		{"empty body", ``, 400, "missing or invalid params", "JSON object"},
		{"JSON array", `["ok","secret-ok"]`, 400, "missing or invalid params", "JSON object"},
		{"wrong types", `{"client_id":5,"client_secret":true}`, 400, "missing or invalid params", "JSON object"},
		{"wrong secret", `{"client_id":"ok","client_secret":"nope"}`, 401, "unauthorized", ""},
		{"unknown client", `{"client_id":"ghost","client_secret":"secret-ok"}`, 401, "unauthorized", ""},
		{"disabled client", `{"client_id":"off","client_secret":"secret-off"}`, 401, "unauthorized", ""},
		{"expired client", `{"client_id":"old","client_secret":"secret-old"}`, 401, "unauthorized", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := h.do(http.MethodPost, "/v1/auth/token", []byte(tt.body), nil)
			r.expect(t, tt.status, tt.message)
			if !strings.Contains(r.detail, tt.detail) {
				t.Errorf("detail = %q, want it to contain %q", r.detail, tt.detail)
			}
		})
	}
}

func TestTwentyFirstTokenEvictsTheOldest(t *testing.T) {
	h := newHarness(t)
	h.addClient("c", "secret-c", clientOpts{})
	var tokens []string
	for range 21 {
		tokens = append(tokens, h.token("c", "secret-c"))
		h.clock.Advance(time.Second)
	}
	evicted := h.signed(http.MethodGet, "/v1/api/whoami", tokens[0], nil)
	evicted.expect(t, http.StatusUnauthorized, "unauthorized")
	// A script author learns why the token stopped working, and what to do.
	if want := "token evicted: the client has more than 20 live tokens"; !strings.HasPrefix(evicted.detail, want) || !strings.Contains(evicted.detail, "reuse") {
		t.Errorf("evicted token's detail = %q, want it to start %q and say reuse", evicted.detail, want)
	}
	h.signed(http.MethodGet, "/v1/api/whoami", tokens[1], nil).expect(t, http.StatusOK, "OK")
	h.signed(http.MethodGet, "/v1/api/whoami", tokens[20], nil).expect(t, http.StatusOK, "OK")
}

func TestConcurrentTokenRequestsKeepTheLimit(t *testing.T) {
	h := newHarness(t)
	h.addClient("c", "secret-c", clientOpts{})
	const n = 26
	tokens := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := http.Post(h.srv.URL+"/v1/auth/token", "application/json", strings.NewReader(`{"client_id":"c","client_secret":"secret-c"}`))
			if err != nil {
				t.Error(err)
				return
			}
			defer res.Body.Close()
			var env struct{ Data struct{ Token string } }
			json.NewDecoder(res.Body).Decode(&env)
			tokens[i] = env.Data.Token
		}()
	}
	wg.Wait()
	valid := 0
	for _, tok := range tokens {
		if h.signed(http.MethodGet, "/v1/api/whoami", tok, nil).status == http.StatusOK {
			valid++
		}
	}
	if valid != 20 {
		t.Fatalf("%d concurrent token requests left %d working tokens, want exactly 20", n, valid)
	}
}

func TestWhoamiReportsTheClient(t *testing.T) {
	h := newHarness(t)
	h.addClient("c", "secret-c", clientOpts{scopes: "market,news"})
	r := h.signed(http.MethodGet, "/v1/api/whoami", h.token("c", "secret-c"), nil)
	r.expect(t, http.StatusOK, "OK")
	var d struct {
		ClientID string   `json:"client_id"`
		Scopes   []string `json:"scopes"`
		ExpireAt string   `json:"expire_at"`
	}
	json.Unmarshal(r.data, &d)
	if d.ClientID != "c" || strings.Join(d.Scopes, ",") != "market,news" || d.ExpireAt != market.FormatTime(t0.Add(2*time.Hour)) {
		t.Fatalf("whoami = %+v", d)
	}
}
