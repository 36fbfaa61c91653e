package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// signatureVectors is testdata/signature-v2-vectors.json at the
// repository's root: the known answers every signer checks (this package,
// the Go client, the Python client and the dashboard's sign.js), computed
// by hand with python3's hmac, not with any of them.
type signatureVectors struct {
	Canonical []struct {
		What, Query, Canonical string
	} `json:"canonical_query"`
	Malformed []struct {
		What, Query string
	} `json:"malformed_query"`
	Signatures []struct {
		What, Token, Method, Path, Query, Timestamp, Nonce, Body string
		CanonicalQuery                                           string `json:"canonical_query"`
		StringToSign                                             string `json:"string_to_sign"`
		Signature                                                string
	} `json:"signatures"`
}

func loadVectors(t testing.TB) signatureVectors {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "signature-v2-vectors.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v signatureVectors
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Canonical) < 20 || len(v.Malformed) < 3 || len(v.Signatures) < 8 {
		t.Fatalf("vectors file holds %d canonical, %d malformed, %d signatures: too few", len(v.Canonical), len(v.Malformed), len(v.Signatures))
	}
	return v
}

func TestSignatureV2Vectors(t *testing.T) {
	v := loadVectors(t)
	for _, c := range v.Canonical {
		if got, err := CanonicalQuery(c.Query); err != nil || got != c.Canonical {
			t.Errorf("%s: CanonicalQuery(%q) = %q, %v; want %q", c.What, c.Query, got, err, c.Canonical)
		}
	}
	for _, c := range v.Malformed {
		got, err := CanonicalQuery(c.Query)
		var mq *MalformedQueryError
		if !errors.As(err, &mq) || !strings.HasPrefix(mq.Escape, "%") {
			t.Errorf("%s: CanonicalQuery(%q) = %q, %v; want a MalformedQueryError", c.What, c.Query, got, err)
		}
		if _, err := SignV2("t", "GET", "/", c.Query, "1", "n", nil); err == nil {
			t.Errorf("%s: SignV2 signed the malformed query %q", c.What, c.Query)
		}
	}
	seen := map[string]string{}
	for _, c := range v.Signatures {
		body := []byte(c.Body)
		canonical, err := CanonicalQuery(c.Query)
		if err != nil || canonical != c.CanonicalQuery {
			t.Errorf("%s: CanonicalQuery(%q) = %q, %v; want %q", c.What, c.Query, canonical, err, c.CanonicalQuery)
		}
		if got := StringToSignV2(c.Method, c.Path, canonical, c.Timestamp, c.Nonce, body); got != c.StringToSign {
			t.Errorf("%s: string to sign\n%q, want\n%q", c.What, got, c.StringToSign)
		}
		got, err := SignV2(c.Token, c.Method, c.Path, c.Query, c.Timestamp, c.Nonce, body)
		if err != nil || got != c.Signature {
			t.Errorf("%s: SignV2 = %s, %v; want %s", c.What, got, err, c.Signature)
		}
		for _, sig := range []string{c.Signature, strings.ToUpper(c.Signature)} {
			if !signatureV2Matches(sig, c.Token, c.Method, c.Path, canonical, c.Timestamp, c.Nonce, body) {
				t.Errorf("%s: the right signature %s refused", c.What, sig)
			}
		}
		if other, dup := seen[c.Signature]; dup {
			t.Errorf("%s and %s have the same signature", c.What, other)
		}
		seen[c.Signature] = c.What
		// Every input counts: changing any one of them is refused.
		flip := func(s string) string {
			if s == "" {
				return "x"
			}
			return s[:len(s)-1] + string(s[len(s)-1]^1)
		}
		for what, ok := range map[string]bool{
			"method":    signatureV2Matches(c.Signature, c.Token, flip(c.Method), c.Path, canonical, c.Timestamp, c.Nonce, body),
			"path":      signatureV2Matches(c.Signature, c.Token, c.Method, flip(c.Path), canonical, c.Timestamp, c.Nonce, body),
			"query":     signatureV2Matches(c.Signature, c.Token, c.Method, c.Path, flip(canonical), c.Timestamp, c.Nonce, body),
			"timestamp": signatureV2Matches(c.Signature, c.Token, c.Method, c.Path, canonical, flip(c.Timestamp), c.Nonce, body),
			"nonce":     signatureV2Matches(c.Signature, c.Token, c.Method, c.Path, canonical, c.Timestamp, flip(c.Nonce), body),
			"body":      signatureV2Matches(c.Signature, c.Token, c.Method, c.Path, canonical, c.Timestamp, c.Nonce, []byte(flip(c.Body))),
			"token":     signatureV2Matches(c.Signature, flip(c.Token), c.Method, c.Path, canonical, c.Timestamp, c.Nonce, body),
			"signature": signatureV2Matches(flip(c.Signature), c.Token, c.Method, c.Path, canonical, c.Timestamp, c.Nonce, body),
			"md5 form":  signatureV2Matches(Sign(c.Token, c.Timestamp, c.Nonce, body), c.Token, c.Method, c.Path, canonical, c.Timestamp, c.Nonce, body),
		} {
			if ok {
				t.Errorf("%s: a changed %s accepted", c.What, what)
			}
		}
	}
}

func TestRequestTarget(t *testing.T) {
	for _, c := range []struct{ uri, path, query string }{
		{"/v1/api/whoami", "/v1/api/whoami", ""},
		{"/v1/api/kline?code=600519.SH&freq=D", "/v1/api/kline", "code=600519.SH&freq=D"},
		{"/v1/api/a%2fb?x=1?y", "/v1/api/a%2fb", "x=1?y"},
		{"/p?", "/p", ""},
		{"http://127.0.0.1:8080/v1/api/whoami?a=1", "/v1/api/whoami", "a=1"},
		{"http://127.0.0.1:8080", "/", ""},
		{"*", "*", ""},
		{"", "", ""},
	} {
		if p, q := RequestTarget(c.uri); p != c.path || q != c.query {
			t.Errorf("RequestTarget(%q) = %q, %q; want %q, %q", c.uri, p, q, c.path, c.query)
		}
	}
}

// BenchmarkSignature is the server's check of one GET's signature: version
// 1 (MD5, no allocation) and version 2 (HMAC-SHA256) without and with a
// query string.
func BenchmarkSignature(b *testing.B) {
	tok, ts, nonce := strings.Repeat("0123456789abcdef", 4), "1795399200", "3f2a9c0e7b1d4a6f8e0c2b4d6f8a0c1e"
	b.Run("v1", func(b *testing.B) {
		sig := Sign(tok, ts, nonce, nil)
		b.ReportAllocs()
		for b.Loop() {
			if !signatureMatches(sig, tok, ts, nonce, nil) {
				b.Fatal("refused")
			}
		}
	})
	for _, q := range []string{"", "code=600519.SH&freq=D&start=2026-01-01&end=2026-11-23"} {
		name := "v2"
		if q != "" {
			name = "v2-query"
		}
		b.Run(name, func(b *testing.B) {
			sig, _ := SignV2(tok, "GET", "/v1/api/kline", q, ts, nonce, nil)
			b.ReportAllocs()
			for b.Loop() {
				canonical, err := CanonicalQuery(q)
				if err != nil || !signatureV2Matches(sig, tok, "GET", "/v1/api/kline", canonical, ts, nonce, nil) {
					b.Fatal("refused")
				}
			}
		})
	}
}

// FuzzCanonicalQuery: whatever the query string, CanonicalQuery neither
// panics nor loops; it fails exactly when a %-escape is malformed; its
// answer is made of unreserved characters, upper-case %XX, '=' and '&'
// only, is its own canonical form, and says what net/url's form decoding
// reads from the same string (same pairs, same order once sorted).
func FuzzCanonicalQuery(f *testing.F) {
	for _, c := range loadVectors(f).Canonical {
		f.Add(c.Query)
	}
	for _, c := range loadVectors(f).Malformed {
		f.Add(c.Query)
	}
	f.Add("a=%zz&b=1")
	f.Add("&&&=&=")
	f.Fuzz(func(t *testing.T, raw string) {
		got, err := CanonicalQuery(raw)
		malformed := false
		for _, part := range strings.Split(raw, "&") {
			for _, s := range strings.SplitN(part, "=", 2) {
				if _, uerr := url.QueryUnescape(strings.ReplaceAll(s, "+", " ")); uerr != nil {
					malformed = true
				}
			}
		}
		if (err != nil) != malformed {
			t.Fatalf("CanonicalQuery(%q) = %q, %v; net/url says malformed = %v", raw, got, err, malformed)
		}
		if err != nil {
			return
		}
		for i := 0; i < len(got); i++ {
			switch c := got[i]; {
			case unreserved(c) || c == '=' || c == '&':
			case c == '%' && i+2 < len(got) && strings.IndexByte("0123456789ABCDEF", got[i+1]) >= 0 && strings.IndexByte("0123456789ABCDEF", got[i+2]) >= 0:
				i += 2
			default:
				t.Fatalf("CanonicalQuery(%q) = %q: byte %q at %d", raw, got, c, i)
			}
		}
		if again, err := CanonicalQuery(got); err != nil || again != got {
			t.Fatalf("CanonicalQuery(%q) = %q, but that canonicalizes to %q, %v", raw, got, again, err)
		}
		// The pairs net/url decodes, each name and value encoded by
		// escapeAll, sorted: the same string.
		var want []string
		for _, part := range strings.Split(raw, "&") {
			if part == "" {
				continue
			}
			name, value, _ := strings.Cut(part, "=")
			n, _ := url.QueryUnescape(name)
			v, _ := url.QueryUnescape(value)
			want = append(want, escapeAll(n)+"\x00"+escapeAll(v))
		}
		slices.Sort(want)
		if w := strings.ReplaceAll(strings.Join(want, "&"), "\x00", "="); w != got {
			t.Fatalf("CanonicalQuery(%q) = %q; net/url's decoding gives %q", raw, got, w)
		}
	})
}

// escapeAll %-encodes every byte but the unreserved ones, as a reference
// written apart from canonicalComponent.
func escapeAll(s string) string {
	var sb strings.Builder
	for _, b := range []byte(s) {
		if strings.IndexByte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~", b) >= 0 {
			sb.WriteByte(b)
		} else {
			sb.WriteString("%" + strings.ToUpper(hex2(b)))
		}
	}
	return sb.String()
}

func hex2(b byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[b>>4], digits[b&15]})
}

// sumV2 is HMAC-SHA256 written out (to keep its buffers on the stack): it
// agrees with crypto/hmac for keys shorter than, as long as and longer than
// SHA-256's block, and for messages either side of the stack buffer.
func TestHMACAgreesWithCryptoHMAC(t *testing.T) {
	for _, keyLen := range []int{0, 1, 32, 63, 64, 65, 200} {
		token := strings.Repeat("k", keyLen)
		for _, queryLen := range []int{0, 10, 300, 400, 500, 2000} {
			query := strings.Repeat("q", queryLen)
			body := []byte(strings.Repeat("b", queryLen))
			m := hmac.New(sha256.New, []byte(token))
			m.Write([]byte(StringToSignV2("GET", "/v1/api/x", query, "1795399200", "n-1", body)))
			want := m.Sum(nil)
			if got := sumV2(token, "GET", "/v1/api/x", query, "1795399200", "n-1", body); !hmac.Equal(got[:], want) {
				t.Errorf("key %d bytes, query %d bytes: sumV2 = %x, crypto/hmac = %x", keyLen, queryLen, got, want)
			}
		}
	}
	tok, ts, nonce := strings.Repeat("0123456789abcdef", 4), "1795399200", "3f2a9c0e7b1d4a6f8e0c2b4d6f8a0c1e"
	sig, _ := SignV2(tok, "GET", "/v1/api/whoami", "", ts, nonce, nil)
	if allocs := testing.AllocsPerRun(100, func() { signatureV2Matches(sig, tok, "GET", "/v1/api/whoami", "", ts, nonce, nil) }); allocs != 0 {
		t.Errorf("checking a GET's version 2 signature allocates %.0f times; the stack buffers should make it none", allocs)
	}
}
