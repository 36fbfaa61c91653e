package auth

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestScopes(t *testing.T) {
	s, err := ParseScopes("market, kline")
	if err != nil {
		t.Fatal(err)
	}
	if !s.Has(ScopeMarket) || !s.Has(ScopeKline) || s.Has(ScopeAdmin) || s.Has(ScopeAll) {
		t.Fatalf("ParseScopes(market,kline) = %v", s)
	}
	if s.String() != "market,kline" {
		t.Fatalf("String() = %q", s.String())
	}
	all, _ := ParseScopes("*")
	for _, sc := range AllScopes() {
		if !all.Has(sc) && sc != ScopeMCP { // mcp must be named (TestScopeMCPMustBeNamed)
			t.Fatalf("* lacks %s", sc)
		}
	}
	if all.String() != "*" || !all.Has(ScopeAll) {
		t.Fatalf("* renders %q", all.String())
	}
	if DefaultScopes().Has(ScopeAdmin) || !DefaultScopes().Has(ScopeBridge) {
		t.Fatalf("DefaultScopes() = %v: want every read scope and not admin", DefaultScopes())
	}
	for _, bad := range []string{"", "markets", "market,root", ","} {
		if _, err := ParseScopes(bad); err == nil {
			t.Errorf("ParseScopes(%q) accepted", bad)
		}
	}
	if Scopes(0).Has("nonsense") {
		t.Fatal("an unknown scope is granted")
	}
}

// The mcp scope opens /mcp, a door that takes a bare bearer token (MCP
// clients cannot sign requests): it is never implied. "*" keeps meaning
// every scope of the signed API, as it did when a client was given it (the
// store keeps scopes as a bit mask, so a client stored with "*" before
// mcp existed reads as "*" still, and gains no door it was not given).
func TestScopeMCPMustBeNamed(t *testing.T) {
	all, _ := ParseScopes("*")
	if all.Has(ScopeMCP) {
		t.Error(`"*" grants mcp; want it named: -scopes "*,mcp"`)
	}
	both, err := ParseScopes("*, mcp")
	if err != nil || !both.Has(ScopeMCP) || !both.Has(ScopeAll) || !both.Has(ScopeAdmin) {
		t.Fatalf(`ParseScopes("*, mcp") = %v, %v; want every scope and mcp`, both, err)
	}
	for _, tt := range []struct {
		in, want string
	}{
		{"*,mcp", "*,mcp"},
		{"mcp,*", "*,mcp"},
		{"mcp", "mcp"},
		{"kline,mcp", "kline,mcp"},
		{"*", "*"},
	} {
		s, err := ParseScopes(tt.in)
		if err != nil || s.String() != tt.want {
			t.Errorf("ParseScopes(%q).String() = %q, %v; want %q", tt.in, s.String(), err, tt.want)
		}
		if again, _ := ParseScopes(s.String()); again != s {
			t.Errorf("ParseScopes(%q) = %v, want %v: String does not read back", s.String(), again, s)
		}
	}
	// A client stored with "*" before this scope existed: the mask 255.
	if old := Scopes(255); old.String() != "*" || old.Has(ScopeMCP) {
		t.Errorf("the stored mask of an old \"*\" client reads %q (mcp %v); want \"*\" without mcp", old.String(), old.Has(ScopeMCP))
	}
	if DefaultScopes().Has(ScopeMCP) {
		t.Error("DefaultScopes grants mcp")
	}
	if !slices.Contains(AllScopes(), ScopeMCP) {
		t.Errorf("AllScopes() = %v: whoami and the docs list it, so it holds mcp", AllScopes())
	}
}

func TestSecretHashing(t *testing.T) {
	h, err := HashSecret("s3cret-value", DefaultKDF)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") || strings.Contains(h, "s3cret") {
		t.Fatalf("hash = %q", h)
	}
	if ok, err := VerifySecret("s3cret-value", h); !ok || err != nil {
		t.Fatalf("VerifySecret(right) = %v, %v", ok, err)
	}
	if ok, _ := VerifySecret("s3cret-valuf", h); ok {
		t.Fatal("VerifySecret(wrong) = true")
	}
	h2, _ := HashSecret("s3cret-value", DefaultKDF)
	if h2 == h {
		t.Fatal("two hashes of one secret are equal: the salt is not random")
	}
	for _, bad := range []string{"", "plain", "$argon2i$v=19$m=1,t=1,p=1$AA$AA", "$argon2id$v=19$m=99999999,t=1,p=1$AA$AA", "$argon2id$v=19$m=8,t=1,p=1$!!$AA"} {
		if _, err := VerifySecret("x", bad); err == nil {
			t.Errorf("VerifySecret against %q: no error", bad)
		}
	}
}

func TestTokensAre64LowercaseHex(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		tok, err := NewToken()
		if err != nil || !isTokenText(tok) || seen[tok] {
			t.Fatalf("NewToken() = %q, %v (seen before: %v)", tok, err, seen[tok])
		}
		seen[tok] = true
	}
	if isTokenText(strings.Repeat("A", 64)) || isTokenText("abc") {
		t.Fatal("isTokenText accepts a malformed token")
	}
}

func TestSignKnownVector(t *testing.T) {
	// md5("abc") = 900150983cd24fb0d6963f7d28e17f72 (RFC 1321 test suite).
	if got := Sign("a", "b", "c", nil); got != "900150983cd24fb0d6963f7d28e17f72" {
		t.Fatalf("Sign(a,b,c,'') = %s", got)
	}
	// md5("message digest") = f96b697d7cb7938d525a2f31aaf161d0, split over the four parts.
	if got := Sign("mess", "age", " dig", []byte("est")); got != "f96b697d7cb7938d525a2f31aaf161d0" {
		t.Fatalf("Sign over four parts = %s", got)
	}
	if !signatureMatches("900150983CD24FB0D6963F7D28E17F72", "a", "b", "c", nil) {
		t.Fatal("upper-case hex of the right digest rejected")
	}
	for _, bad := range []string{"", "900150983cd24fb0d6963f7d28e17f7", "900150983cd24fb0d6963f7d28e17f7z", "900150983cd24fb0d6963f7d28e17f73"} {
		if signatureMatches(bad, "a", "b", "c", nil) {
			t.Errorf("signature %q accepted", bad)
		}
	}
}

func TestNonceSetRejectsReplaysUntilExpiry(t *testing.T) {
	s := NewNonceSet(100)
	now := time.Unix(1_800_000_000, 0)
	exp := now.Add(61 * time.Second)
	if ok, err := s.Add("k", exp, now); !ok || err != nil {
		t.Fatalf("first Add = %v, %v", ok, err)
	}
	if ok, _ := s.Add("k", exp, now.Add(60*time.Second)); ok {
		t.Fatal("replay inside the window accepted")
	}
	if ok, _ := s.Add("k2", exp, now); !ok {
		t.Fatal("a different nonce rejected")
	}
	if ok, _ := s.Add("k", exp.Add(time.Minute), exp); !ok {
		t.Fatal("a nonce past its expiry is still held")
	}
	// k2 expired with k's first entry; whether an Add already swept it
	// depends on the (randomly seeded) shard each key fell in, so sweep.
	s.Sweep(exp)
	if s.Len() != 1 {
		t.Fatalf("Len() = %d, want 1 (k re-added; k2 expired)", s.Len())
	}
}

func TestNonceSetIsBoundedAndSweeps(t *testing.T) {
	s := NewNonceSet(1000)
	now := time.Unix(1_800_000_000, 0)
	for i := range 1000 {
		if ok, err := s.Add(strings.Repeat("x", i%7)+string(rune(0x4e00+i)), now.Add(time.Minute), now); !ok || err != nil {
			t.Fatalf("Add #%d = %v, %v", i, ok, err)
		}
	}
	if _, err := s.Add("one-too-many", now.Add(time.Minute), now); err != ErrNonceSetFull {
		t.Fatalf("Add beyond capacity: err = %v, want ErrNonceSetFull", err)
	}
	// Once they expire, a full set sweeps itself and accepts again.
	later := now.Add(2 * time.Minute)
	if ok, err := s.Add("fresh", later.Add(time.Minute), later); !ok || err != nil {
		t.Fatalf("Add after expiry = %v, %v", ok, err)
	}
	s.Sweep(later)
	if s.Len() != 1 {
		t.Fatalf("Len() after Sweep = %d, want 1", s.Len())
	}
}

// The set against a plain map of every key ever added: the same answer to
// every Add, and after a Sweep the same number of live entries. Expiries
// fall anywhere within a second and out of order (clients' clocks differ),
// keys come back after expiring, and time moves in uneven steps, so
// entries sharing an expiry second, re-added keys still waiting in an old
// second, and seconds ending between two Adds are all exercised.
func TestNonceSetMatchesAPlainMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	s := NewNonceSet(1 << 20)
	ref := map[string]int64{}
	now := int64(1_800_000_000) * 1e9
	for i := range 200_000 {
		now += rng.Int64N(20e6) // 0–20 ms
		key := "k" + strconv.Itoa(rng.IntN(5000))
		exp := now + rng.Int64N(3e9) - 5e8 // some already past: refused by the skew check in real use, but the set must stay exact
		want := ref[key] <= now
		got, err := s.Add(key, time.Unix(0, exp), time.Unix(0, now))
		if err != nil || got != want {
			t.Fatalf("Add #%d %s at %d (held until %d) = %v, %v; want %v", i, key, now, ref[key], got, err, want)
		}
		if want {
			ref[key] = exp
		}
		if i%10_000 == 0 {
			s.Sweep(time.Unix(0, now))
			live := 0
			for _, e := range ref {
				if e > now {
					live++
				}
			}
			// An entry expiring within this second may still be held: Len
			// counts it until its second ends.
			held := 0
			for _, e := range ref {
				if e <= now && (e+1e9-1)/1e9*1e9 > now {
					held++
				}
			}
			if n := s.Len(); n < live || n > live+held {
				t.Fatalf("after %d adds Len() = %d, want %d live (+ up to %d expiring this second)", i, n, live, held)
			}
		}
	}
}

func TestNonceSetConcurrentReplayIsAcceptedOnce(t *testing.T) {
	s := NewNonceSet(10_000)
	now := time.Unix(1_800_000_000, 0)
	var wg sync.WaitGroup
	var mu sync.Mutex
	accepted := 0
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if ok, _ := s.Add("same", now.Add(time.Minute), now); ok {
				mu.Lock()
				accepted++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if accepted != 1 {
		t.Fatalf("a nonce sent by 32 concurrent requests was accepted %d times", accepted)
	}
}

// A body that fits the stack buffer and one that does not are checked by
// different code; both must accept the right digest and nothing else. The
// RFC 1321 vector of 80 digits is the reference the longer bodies extend.
func TestSignatureMatchesEitherSideOfTheStackBuffer(t *testing.T) {
	digits := strings.Repeat("1234567890", 8)
	if got := Sign("", "", "", []byte(digits)); got != "57edf4a22be3c955ac49da2e2107b67a" {
		t.Fatalf("md5 of the RFC 1321 80-digit vector = %s", got)
	}
	tok, ts, nonce := strings.Repeat("t", 43), "1795399200", "n-123"
	for _, n := range []int{0, 1, 400, 512 - 58, 512 - 57, 600, 100_000} {
		body := []byte(strings.Repeat(digits, n/80+1)[:n])
		sig := Sign(tok, ts, nonce, body)
		if !signatureMatches(sig, tok, ts, nonce, body) {
			t.Errorf("body of %d bytes: the right signature refused", n)
		}
		if n > 0 {
			body[n-1] ^= 1
			if signatureMatches(sig, tok, ts, nonce, body) {
				t.Errorf("body of %d bytes: a changed body accepted", n)
			}
		}
	}
	if allocs := testing.AllocsPerRun(100, func() { signatureMatches(Sign(tok, ts, nonce, nil), tok, ts, nonce, nil) }) - testing.AllocsPerRun(100, func() { Sign(tok, ts, nonce, nil) }); allocs != 0 {
		t.Errorf("checking a GET's signature allocates %.0f times; the stack buffer should make it none", allocs)
	}
}
