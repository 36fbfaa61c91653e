package auth_test

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/auth"
	"mdqs/internal/market"
)

var t0 = time.Date(2026, 11, 23, 10, 0, 0, 0, market.Shanghai())

// countingStore counts token lookups that reach SQLite.
type countingStore struct {
	*db.Store
	lookups atomic.Int64
}

func (c *countingStore) TokenByHash(ctx context.Context, h string) (auth.Token, auth.Client, error) {
	c.lookups.Add(1)
	return c.Store.TokenByHash(ctx, h)
}

type fixture struct {
	store *countingStore
	svc   *auth.Service
	clock *market.FixedClock
}

func newFixture(t *testing.T, cfg auth.Config) fixture {
	t.Helper()
	store := &countingStore{Store: dbtest.Open(t)}
	clock := market.NewFixedClock(t0)
	def := auth.Config{TokenTTL: 2 * time.Hour, MaxTokensPerClient: 20, Signature: auth.SignatureRequired,
		MaxClockSkew: 60 * time.Second, NonceCapacity: 10_000, TokenCacheSize: 1000, RevocationCheck: time.Hour}
	if cfg.TokenTTL != 0 {
		def.TokenTTL = cfg.TokenTTL
	}
	if cfg.Signature != "" {
		def.Signature = cfg.Signature
	}
	if cfg.RevocationCheck != 0 {
		def.RevocationCheck = cfg.RevocationCheck
	}
	def.RefuseSignatureV1 = cfg.RefuseSignatureV1
	svc, err := auth.New(store, clock, def)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	return fixture{store: store, svc: svc, clock: clock}
}

func (f fixture) addClient(t *testing.T, c auth.Client, secret string) {
	t.Helper()
	h, err := auth.HashSecret(secret, auth.DefaultKDF)
	if err != nil {
		t.Fatal(err)
	}
	c.SecretHash = h
	if c.Scopes == 0 {
		c.Scopes = auth.DefaultScopes()
	}
	c.CreatedAt, c.UpdatedAt = t0, t0
	if _, err := f.store.PutClient(context.Background(), c); err != nil {
		t.Fatal(err)
	}
}

func TestIssueTokenStoresOnlyTheHash(t *testing.T) {
	f := newFixture(t, auth.Config{})
	f.addClient(t, auth.Client{ID: "c1", Enabled: true, EnableLog: true}, "secret-1")
	iss, err := f.svc.IssueToken(context.Background(), "c1", "secret-1")
	if err != nil {
		t.Fatal(err)
	}
	if len(iss.Token) != 64 || !iss.ExpiresAt.Equal(t0.Add(2*time.Hour)) || !iss.EnableLog {
		t.Fatalf("Issued = %+v", iss)
	}
	ctx := context.Background()
	if _, _, err := f.store.TokenByHash(ctx, auth.HashToken(iss.Token)); err != nil {
		t.Fatalf("token not stored under its SHA-256: %v", err)
	}
	if _, _, err := f.store.TokenByHash(ctx, iss.Token); market.KindOf(err) != market.KindNotFound {
		t.Fatalf("the raw token is stored: %v", err)
	}
}

func TestIssueTokenRefusals(t *testing.T) {
	f := newFixture(t, auth.Config{})
	f.addClient(t, auth.Client{ID: "ok", Enabled: true}, "secret-ok")
	f.addClient(t, auth.Client{ID: "off", Enabled: false}, "secret-off")
	f.addClient(t, auth.Client{ID: "old", Enabled: true, ExpiresAt: t0.Add(-time.Second)}, "secret-old")
	for _, tt := range []struct{ id, secret string }{
		{"ok", "wrong"}, {"nobody", "secret-ok"}, {"off", "secret-off"}, {"old", "secret-old"},
	} {
		_, err := f.svc.IssueToken(context.Background(), tt.id, tt.secret)
		if market.KindOf(err) != market.KindUnauthorized {
			t.Errorf("IssueToken(%s, %s) kind = %v, want unauthorized", tt.id, tt.secret, market.KindOf(err))
		}
	}
}

func TestTokenExpiryIsCappedByTheClients(t *testing.T) {
	f := newFixture(t, auth.Config{})
	f.addClient(t, auth.Client{ID: "c", Enabled: true, ExpiresAt: t0.Add(30 * time.Minute)}, "secret-c")
	iss, err := f.svc.IssueToken(context.Background(), "c", "secret-c")
	if err != nil {
		t.Fatal(err)
	}
	if !iss.ExpiresAt.Equal(t0.Add(30 * time.Minute)) {
		t.Fatalf("ExpiresAt = %v, want the client's expiry %v", iss.ExpiresAt, t0.Add(30*time.Minute))
	}
	f.clock.Advance(31 * time.Minute)
	if _, err := f.svc.Authenticate(context.Background(), iss.Token); market.KindOf(err) != market.KindUnauthorized {
		t.Fatalf("token of an expired client: kind %v, want unauthorized", market.KindOf(err))
	}
}

func TestAuthenticateServesFromMemoryAndExpires(t *testing.T) {
	f := newFixture(t, auth.Config{})
	f.addClient(t, auth.Client{ID: "c", Enabled: true}, "secret-c")
	iss, _ := f.svc.IssueToken(context.Background(), "c", "secret-c")
	ctx := context.Background()
	p, err := f.svc.Authenticate(ctx, iss.Token)
	if err != nil || p.ClientID != "c" || !p.Allows(auth.ScopeMarket) || p.Allows(auth.ScopeAdmin) {
		t.Fatalf("Authenticate = %+v, %v", p, err)
	}
	// Wait until the cache has applied the first lookup's Set.
	deadline := time.Now().Add(5 * time.Second)
	for f.svc.CacheStats().KeysAdded == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	before := f.store.lookups.Load()
	for range 50 {
		if _, err := f.svc.Authenticate(ctx, iss.Token); err != nil {
			t.Fatal(err)
		}
	}
	if n := f.store.lookups.Load() - before; n != 0 {
		t.Fatalf("50 authentications of a cached token made %d SQLite lookups, want 0", n)
	}
	f.clock.Advance(2*time.Hour + time.Second)
	_, err = f.svc.Authenticate(ctx, iss.Token)
	if market.KindOf(err) != market.KindUnauthorized || !auth.TokenRenewable(detailOf(err)) {
		t.Fatalf("expired token: kind %v detail %q, want unauthorized and renewable", market.KindOf(err), detailOf(err))
	}
}

func detailOf(err error) string {
	var e *market.Error
	if errors.As(err, &e) {
		return e.Detail
	}
	return ""
}

// TestTokenRenewable: a client renews its token only when the 401 is about
// the token itself; a new token cannot cure a bad signature, key or client.
func TestTokenRenewable(t *testing.T) {
	for _, tt := range []struct {
		detail string
		want   bool
	}{
		{"unknown, expired or revoked token", true},
		{"token expired", true},
		{"token evicted: the client has more than 20 live tokens (each new one evicts the oldest); reuse a token until it expires", true},
		{"signature mismatch", false},
		{"nonce already used", false},
		{"missing or wrong api-key", false},
		{"client disabled", false},
		{"client expired", false},
		{"malformed token", false},
		{"X-Timestamp is +75 s off the server clock; the allowed skew is 60 s either way", false},
		{"", false},
	} {
		if got := auth.TokenRenewable(tt.detail); got != tt.want {
			t.Errorf("TokenRenewable(%q) = %v, want %v", tt.detail, got, tt.want)
		}
	}
}

func TestTwentyFirstTokenEvictsTheOldestEvenWhenCached(t *testing.T) {
	f := newFixture(t, auth.Config{})
	f.addClient(t, auth.Client{ID: "c", Enabled: true}, "secret-c")
	ctx := context.Background()
	var tokens []string
	for i := range 21 {
		iss, err := f.svc.IssueToken(ctx, "c", "secret-c")
		if err != nil {
			t.Fatal(err)
		}
		tokens = append(tokens, iss.Token)
		if i == 0 {
			// Put the first token in the cache before it is evicted.
			f.svc.Authenticate(ctx, iss.Token)
			f.svc.Authenticate(ctx, iss.Token)
		}
		f.clock.Advance(time.Second)
	}
	_, err := f.svc.Authenticate(ctx, tokens[0])
	if market.KindOf(err) != market.KindUnauthorized {
		t.Fatalf("oldest token after the 21st issuance: kind %v, want unauthorized", market.KindOf(err))
	}
	if d := detailOf(err); !strings.HasPrefix(d, "token evicted: the client has more than 20 live tokens") || !auth.TokenRenewable(d) {
		t.Fatalf("evicted token's detail = %q (renewable %v), want it to say evicted", d, auth.TokenRenewable(d))
	}
	for i, tok := range tokens[1:] {
		if _, err := f.svc.Authenticate(ctx, tok); err != nil {
			t.Fatalf("token %d rejected: %v", i+1, err)
		}
	}
	infos, _ := f.store.Clients(ctx, f.clock.Now())
	if infos[0].LiveTokens != 20 {
		t.Fatalf("live tokens = %d, want 20", infos[0].LiveTokens)
	}
}

func TestConcurrentIssuanceKeepsExactlyTheLimit(t *testing.T) {
	f := newFixture(t, auth.Config{})
	f.addClient(t, auth.Client{ID: "c", Enabled: true}, "secret-c")
	ctx := context.Background()
	const n = 32
	var wg sync.WaitGroup
	tokens := make([]string, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			iss, err := f.svc.IssueToken(ctx, "c", "secret-c")
			tokens[i], errs[i] = iss.Token, err
			// Keep lookups racing the evictions.
			f.svc.Authenticate(ctx, iss.Token)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	valid := 0
	for _, tok := range tokens {
		if _, err := f.svc.Authenticate(ctx, tok); err == nil {
			valid++
		}
	}
	infos, _ := f.store.Clients(ctx, f.clock.Now())
	if valid != 20 || infos[0].LiveTokens != 20 {
		t.Fatalf("after %d concurrent issuances: %d tokens authenticate, %d stored; want 20 and 20", n, valid, infos[0].LiveTokens)
	}
}

func TestClientDisabledByAnotherProcessLosesAccess(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/shared.db"
	server := &countingStore{Store: dbtest.OpenAt(t, path)}
	clock := market.NewFixedClock(t0)
	svc, err := auth.New(server, clock, auth.Config{TokenTTL: time.Hour, MaxTokensPerClient: 20, Signature: auth.SignatureOff,
		MaxClockSkew: time.Minute, NonceCapacity: 1000, TokenCacheSize: 1000, RevocationCheck: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	h, _ := auth.HashSecret("secret-c", auth.DefaultKDF)
	server.PutClient(context.Background(), auth.Client{ID: "c", SecretHash: h, Scopes: auth.DefaultScopes(), Enabled: true, CreatedAt: t0, UpdatedAt: t0})
	iss, err := svc.IssueToken(context.Background(), "c", "secret-c")
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := svc.Authenticate(context.Background(), iss.Token); err != nil {
			t.Fatal(err)
		}
	}
	// `mdqs client disable` opens the same file in its own process.
	other := dbtest.OpenAt(t, path)
	if err := other.SetClientEnabled(context.Background(), "c", false, t0); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Authenticate(context.Background(), iss.Token); market.KindOf(err) != market.KindUnauthorized {
		t.Fatalf("token of a client disabled elsewhere: kind %v, want unauthorized", market.KindOf(err))
	}
}

func TestVerifySignatureRules(t *testing.T) {
	f := newFixture(t, auth.Config{})
	// A server up for a while: the skew rules, not the start-up rule
	// (TestRequestSignedBeforeStartIsRefused).
	f.clock.Advance(5 * time.Minute)
	f.addClient(t, auth.Client{ID: "c", Enabled: true}, "secret-c")
	iss, _ := f.svc.IssueToken(context.Background(), "c", "secret-c")
	p, _ := f.svc.Authenticate(context.Background(), iss.Token)
	now := f.clock.Now().Unix()
	body := []byte(`{"x":1}`)
	signed := func(ts int64, nonce string, b []byte) auth.Signed {
		s := strconv.FormatInt(ts, 10)
		return auth.Signed{Timestamp: s, Nonce: nonce, Signature: auth.Sign(iss.Token, s, nonce, b)}
	}
	tests := []struct {
		name string
		h    auth.Signed
		body []byte
		ok   bool
	}{
		{"valid", signed(now, "n1", body), body, true},
		{"replayed nonce", signed(now, "n1", body), body, false},
		{"same nonce other timestamp is still a replay", signed(now+1, "n1", body), body, false},
		{"tampered body", signed(now, "n2", body), []byte(`{"x":2}`), false},
		{"60s behind is allowed", signed(now-60, "n3", body), body, true},
		{"61s behind", signed(now-61, "n4", body), body, false},
		{"60s ahead is allowed", signed(now+60, "n5", body), body, true},
		{"61s ahead", signed(now+61, "n6", body), body, false},
		{"milliseconds", signed(now*1000, "n7", body), body, false},
		{"missing nonce", auth.Signed{Timestamp: "1", Signature: "x"}, body, false},
		{"nonce with a space", signed(now, "a b", body), body, false},
		{"non-numeric timestamp", auth.Signed{Timestamp: "now", Nonce: "n8", Signature: auth.Sign(iss.Token, "now", "n8", body)}, body, false},
	}
	for _, tt := range tests {
		err := f.svc.VerifySignature(context.Background(), p, iss.Token, tt.h, tt.body)
		if (err == nil) != tt.ok {
			t.Errorf("%s: VerifySignature = %v, want ok=%v", tt.name, err, tt.ok)
		}
		if err != nil && market.KindOf(err) != market.KindUnauthorized {
			t.Errorf("%s: kind %v, want unauthorized", tt.name, market.KindOf(err))
		}
	}
}

// TestVerifySignatureV2 is X-Signature-Version 2 through VerifySignature:
// it binds the method, path, query and body (headers made for one request
// are refused on another, where the MD5 form passes), keeps the skew and
// nonce rules of version 1 (a refused signature burns no nonce), and the
// version header takes 1, 2 or nothing; with RefuseSignatureV1, only 2.
func TestVerifySignatureV2(t *testing.T) {
	ctx := context.Background()
	for _, refuseV1 := range []bool{false, true} {
		f := newFixture(t, auth.Config{RefuseSignatureV1: refuseV1})
		f.clock.Advance(5 * time.Minute)
		f.addClient(t, auth.Client{ID: "c", Enabled: true}, "secret-c")
		iss, _ := f.svc.IssueToken(ctx, "c", "secret-c")
		p, _ := f.svc.Authenticate(ctx, iss.Token)
		now := strconv.FormatInt(f.clock.Now().Unix(), 10)
		v2 := func(method, path, query, ts, nonce string, body []byte) auth.Signed {
			sig, err := auth.SignV2(iss.Token, method, path, query, ts, nonce, body)
			if err != nil {
				t.Fatal(err)
			}
			return auth.Signed{Timestamp: ts, Nonce: nonce, Signature: sig, Version: "2", Method: method, Path: path, Query: query}
		}
		v1 := func(method, path, nonce string, body []byte) auth.Signed {
			return auth.Signed{Timestamp: now, Nonce: nonce, Signature: auth.Sign(iss.Token, now, nonce, body), Method: method, Path: path}
		}
		retarget := func(h auth.Signed, method, path, query string) auth.Signed {
			h.Method, h.Path, h.Query = method, path, query
			return h
		}
		check := func(name string, h auth.Signed, body []byte, ok bool, detail string) {
			t.Helper()
			err := f.svc.VerifySignature(ctx, p, iss.Token, h, body)
			if (err == nil) != ok {
				t.Errorf("refuse v1 %v, %s: VerifySignature = %v, want ok=%v", refuseV1, name, err, ok)
			}
			if err != nil && (market.KindOf(err) != market.KindUnauthorized || !strings.Contains(err.Error(), detail)) {
				t.Errorf("refuse v1 %v, %s: %v (kind %v), want unauthorized with detail containing %q", refuseV1, name, err, market.KindOf(err), detail)
			}
		}
		body := []byte(`{"expression":"price > 0"}`)
		check("v2 GET", v2("GET", "/v1/api/whoami", "", now, "a1", nil), nil, true, "")
		check("v2 GET with a query", v2("GET", "/v1/api/kline", "code=600519.SH&freq=D", now, "a2", nil), nil, true, "")
		check("v2 query in another order", retarget(v2("GET", "/v1/api/kline", "code=600519.SH&freq=D", now, "a3", nil), "GET", "/v1/api/kline", "freq=D&code=600519.SH"), nil, true, "")
		check("v2 POST with a body", v2("POST", "/v1/api/screener/queue/submit", "", now, "a4", body), body, true, "")
		check("v2 upper-case hex", func() auth.Signed {
			h := v2("GET", "/v1/api/whoami", "", now, "a5", nil)
			h.Signature = strings.ToUpper(h.Signature)
			return h
		}(), nil, true, "")

		// Headers made for GET /v1/api/whoami, sent elsewhere.
		whoami := v2("GET", "/v1/api/whoami", "", now, "b1", nil)
		check("v2 whoami headers on POST /v1/api/refresh", retarget(whoami, "POST", "/v1/api/refresh", ""), nil, false, "signature mismatch (version 2")
		check("v2 whoami headers on GET /v1/api/refresh", retarget(whoami, "GET", "/v1/api/refresh", ""), nil, false, `path "/v1/api/refresh"`)
		check("v2 whoami headers with a query added", retarget(whoami, "GET", "/v1/api/whoami", "x=1"), nil, false, `canonical query "x=1"`)
		kline := v2("GET", "/v1/api/kline", "code=600519.SH&freq=D", now, "b2", nil)
		check("v2 query retargeted", retarget(kline, "GET", "/v1/api/kline", "code=000001.SZ&freq=D"), nil, false, "signature mismatch")
		check("v2 query dropped", retarget(kline, "GET", "/v1/api/kline", ""), nil, false, "signature mismatch")
		check("v2 path escaped otherwise", retarget(v2("GET", "/v1/api/a%2fb", "", now, "b3", nil), "GET", "/v1/api/a%2Fb", ""), nil, false, "signature mismatch")
		check("v2 body swapped", v2("POST", "/v1/api/screener/queue/submit", "", now, "b4", body), []byte(`{"expression":"price > 1"}`), false, "signature mismatch")
		check("v2 body dropped", v2("POST", "/v1/api/screener/queue/submit", "", now, "b5", body), nil, false, "signature mismatch")
		check("v2 signature sent as version 1", func() auth.Signed { h := v2("GET", "/v1/api/whoami", "", now, "b6", nil); h.Version = ""; return h }(), nil, false, "")
		check("v2 malformed query", auth.Signed{Timestamp: now, Nonce: "b7", Signature: strings.Repeat("0", 64), Version: "2", Method: "GET", Path: "/v1/api/news/list", Query: "q=100%"}, nil, false, "no canonical form")
		// The refusals burnt no nonce: the same nonces, rightly signed, pass.
		for _, n := range []string{"b1", "b2", "b3", "b4", "b5", "b6", "b7"} {
			check("v2 nonce "+n+" after a refusal", v2("GET", "/v1/api/whoami", "", now, n, nil), nil, true, "")
		}
		// The rules of version 1 hold: replay, skew.
		check("v2 replayed nonce", v2("GET", "/v1/api/whoami", "", now, "a1", nil), nil, false, "nonce already used")
		check("v2 replayed nonce on another path", v2("GET", "/v1/api/quotes", "", now, "a1", nil), nil, false, "nonce already used")
		past := strconv.FormatInt(f.clock.Now().Unix()-61, 10)
		check("v2 61 s behind", v2("GET", "/v1/api/whoami", "", past, "c1", nil), nil, false, "off the server clock")

		// The version header.
		for i, bad := range []string{"3", "0", "v2", "2.0", " 2", "md5", "01"} {
			h := v2("GET", "/v1/api/whoami", "", now, "d-"+strconv.Itoa(i), nil)
			h.Version = bad
			want := "must be 1 (MD5, also when the header is absent) or 2"
			if refuseV1 {
				want = "must be 2 (HMAC-SHA256): this server refuses version 1 (auth.signature_v1 = false)"
			}
			check("version "+strconv.Quote(bad), h, nil, false, want)
		}
		// Version 1, with and without its header: accepted unless refused,
		// and it binds nothing of the request (why version 2 exists).
		if refuseV1 {
			check("v1 refused", v1("GET", "/v1/api/whoami", "e1", nil), nil, false, "sign with X-Signature-Version: 2")
			h := v1("GET", "/v1/api/whoami", "e2", nil)
			h.Version = "1"
			check("v1 named refused", h, nil, false, "auth.signature_v1 = false")
		} else {
			check("v1", v1("GET", "/v1/api/whoami", "e1", nil), nil, true, "")
			check("v1 headers of a GET on a POST", retarget(v1("GET", "/v1/api/whoami", "e2", nil), "POST", "/v1/api/refresh", ""), nil, true, "")
			h := v1("GET", "/v1/api/whoami", "e3", nil)
			h.Version = "1"
			check("v1 named", h, nil, true, "")
		}
		want := []int{1, 2}
		if refuseV1 {
			want = []int{2}
		}
		if got := f.svc.SignatureVersions(); !slices.Equal(got, want) {
			t.Errorf("refuse v1 %v: SignatureVersions = %v, want %v", refuseV1, got, want)
		}
	}
}

func TestSignatureModes(t *testing.T) {
	for _, tt := range []struct {
		mode          auth.SignatureMode
		absentOK, bad bool
	}{
		{auth.SignatureRequired, false, false},
		{auth.SignatureOptional, true, false},
		{auth.SignatureOff, true, true},
	} {
		f := newFixture(t, auth.Config{Signature: tt.mode})
		f.addClient(t, auth.Client{ID: "c", Enabled: true}, "secret-c")
		iss, _ := f.svc.IssueToken(context.Background(), "c", "secret-c")
		p, _ := f.svc.Authenticate(context.Background(), iss.Token)
		if err := f.svc.VerifySignature(context.Background(), p, iss.Token, auth.Signed{}, nil); (err == nil) != tt.absentOK {
			t.Errorf("mode %s, no headers: err = %v, want ok=%v", tt.mode, err, tt.absentOK)
		}
		wrong := auth.Signed{Timestamp: strconv.FormatInt(t0.Unix(), 10), Nonce: "n", Signature: "00000000000000000000000000000000"}
		if err := f.svc.VerifySignature(context.Background(), p, iss.Token, wrong, nil); (err == nil) != tt.bad {
			t.Errorf("mode %s, wrong signature: err = %v, want ok=%v", tt.mode, err, tt.bad)
		}
	}
}

func TestPurgeExpiredDeletesOnlyExpiredTokens(t *testing.T) {
	f := newFixture(t, auth.Config{TokenTTL: time.Hour})
	f.addClient(t, auth.Client{ID: "c", Enabled: true}, "secret-c")
	ctx := context.Background()
	f.svc.IssueToken(ctx, "c", "secret-c")
	f.clock.Advance(30 * time.Minute)
	live, _ := f.svc.IssueToken(ctx, "c", "secret-c")
	f.clock.Advance(31 * time.Minute)
	n, err := f.svc.PurgeExpired(ctx)
	if err != nil || n != 1 {
		t.Fatalf("PurgeExpired = %d, %v; want 1", n, err)
	}
	if _, err := f.svc.Authenticate(ctx, live.Token); err != nil {
		t.Fatalf("the unexpired token was purged: %v", err)
	}
}

func TestDemoClientSeeding(t *testing.T) {
	f := newFixture(t, auth.Config{})
	ctx := context.Background()
	wrote, err := auth.EnsureDemoClient(ctx, f.store, t0, auth.DefaultKDF)
	if err != nil || !wrote {
		t.Fatalf("first EnsureDemoClient = %v, %v; want a write", wrote, err)
	}
	iss, err := f.svc.IssueToken(ctx, auth.DemoClientID, auth.DemoSecret)
	if err != nil {
		t.Fatal(err)
	}
	if wrote, _ := auth.EnsureDemoClient(ctx, f.store, t0, auth.DefaultKDF); wrote {
		t.Fatal("EnsureDemoClient rewrote a matching demo client (and revoked its tokens)")
	}
	p, err := f.svc.Authenticate(ctx, iss.Token)
	if err != nil || !p.Allows(auth.ScopeAdmin) || !p.Allows(auth.ScopeMCP) {
		t.Fatalf("demo token after a restart: %+v, %v; want every scope and mcp", p, err)
	}
	disabled, err := auth.DisableDemoClient(ctx, f.store, t0)
	if err != nil || !disabled {
		t.Fatalf("DisableDemoClient = %v, %v", disabled, err)
	}
	if _, err := f.svc.IssueToken(ctx, auth.DemoClientID, auth.DemoSecret); market.KindOf(err) != market.KindUnauthorized {
		t.Fatalf("disabled demo client still gets tokens: %v", err)
	}
}

// A demo client seeded before the mcp scope existed holds "*" alone: the
// next start gives it mcp too (once; then it matches and is left alone).
func TestDemoClientSeededBeforeMCPGainsIt(t *testing.T) {
	f := newFixture(t, auth.Config{})
	ctx := context.Background()
	all, _ := auth.ParseScopes("*")
	f.addClient(t, auth.Client{ID: auth.DemoClientID, Scopes: all, Enabled: true, CreatedAt: t0, UpdatedAt: t0}, auth.DemoSecret)
	if wrote, err := auth.EnsureDemoClient(ctx, f.store, t0, auth.DefaultKDF); err != nil || !wrote {
		t.Fatalf("EnsureDemoClient on a demo client without mcp = %v, %v; want a write", wrote, err)
	}
	c, err := f.store.Client(ctx, auth.DemoClientID)
	if err != nil || !c.Scopes.Has(auth.ScopeMCP) || !c.Scopes.Has(auth.ScopeAll) {
		t.Fatalf("demo client after EnsureDemoClient: %v (%v); want every scope and mcp", c.Scopes, err)
	}
	if wrote, _ := auth.EnsureDemoClient(ctx, f.store, t0, auth.DefaultKDF); wrote {
		t.Fatal("EnsureDemoClient rewrote the demo client a second time")
	}
}

// The rule is |server − X-Timestamp| ≤ MaxClockSkew in whole seconds, the
// same both ways. A server clock part-way through a second must not tilt
// it: a timestamp 60 s behind the server's second is as far off as one
// 60 s ahead, and every try within that second gets the same answer.
func TestClockSkewIsSymmetricInWholeSeconds(t *testing.T) {
	f := newFixture(t, auth.Config{})
	f.addClient(t, auth.Client{ID: "c", Enabled: true}, "secret-c")
	iss, _ := f.svc.IssueToken(context.Background(), "c", "secret-c")
	p, _ := f.svc.Authenticate(context.Background(), iss.Token)
	n := 0
	for _, frac := range []time.Duration{0, time.Millisecond, 500 * time.Millisecond, 999 * time.Millisecond} {
		for _, tt := range []struct {
			offset int64
			ok     bool
		}{
			{-61, false}, {-60, true}, {0, true}, {60, true}, {61, false},
		} {
			f.clock.Set(t0.Add(time.Minute + frac))
			ts := strconv.FormatInt(f.clock.Now().Unix()+tt.offset, 10)
			for try := range 3 {
				n++
				nonce := "skew-" + strconv.Itoa(n)
				err := f.svc.VerifySignature(context.Background(), p, iss.Token, auth.Signed{Timestamp: ts, Nonce: nonce,
					Signature: auth.Sign(iss.Token, ts, nonce, nil)}, nil)
				if (err == nil) != tt.ok {
					t.Errorf("server clock +%v, X-Timestamp %+d s, try %d: VerifySignature = %v, want ok=%v", frac, tt.offset, try, err, tt.ok)
				}
			}
		}
	}
}

// The replay set of a lone server lives in its memory and starts empty, so
// a request signed before the process started may have been answered by
// the process before: refused, with a detail that says to sign again. The
// second the server started is accepted; a shared store records every
// nonce, so the rule does not apply there.
func TestRequestSignedBeforeStartIsRefused(t *testing.T) {
	f := newFixture(t, auth.Config{})
	f.addClient(t, auth.Client{ID: "c", Enabled: true}, "secret-c")
	ctx := context.Background()
	iss, _ := f.svc.IssueToken(ctx, "c", "secret-c")
	p, _ := f.svc.Authenticate(ctx, iss.Token)
	start := t0.Unix()
	f.clock.Advance(10 * time.Second)
	sign := func(ts int64, nonce string) auth.Signed {
		s := strconv.FormatInt(ts, 10)
		return auth.Signed{Timestamp: s, Nonce: nonce, Signature: auth.Sign(iss.Token, s, nonce, nil)}
	}
	err := f.svc.VerifySignature(ctx, p, iss.Token, sign(start-1, "a"), nil)
	if market.KindOf(err) != market.KindUnauthorized || !strings.Contains(err.Error(), "before this server started") {
		t.Fatalf("signed a second before the start: %v, want 401 saying so", err)
	}
	if err := f.svc.VerifySignature(ctx, p, iss.Token, sign(start, "b"), nil); err != nil {
		t.Fatalf("signed in the start's second: %v", err)
	}

	svc, err := auth.New(f.store, f.clock, auth.Config{TokenTTL: time.Hour, MaxTokensPerClient: 20, Signature: auth.SignatureRequired,
		MaxClockSkew: time.Minute, NonceCapacity: 100, TokenCacheSize: 100, RevocationCheck: time.Hour, SharedStore: true})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	p2, err := svc.Authenticate(ctx, iss.Token)
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.VerifySignature(ctx, p2, iss.Token, sign(f.clock.Now().Unix()-30, "c"), nil); err != nil {
		t.Errorf("shared store, signed 30 s before this process started: %v", err)
	}
}
