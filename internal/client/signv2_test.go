package client

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"mdqs/internal/auth"
)

// TestSignatureV2Vectors checks the client's own version 2 signer (written
// apart from the server's) against the known answers every signer shares.
func TestSignatureV2Vectors(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "signature-v2-vectors.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Canonical  []struct{ What, Query, Canonical string } `json:"canonical_query"`
		Malformed  []struct{ What, Query string }            `json:"malformed_query"`
		Signatures []struct {
			What, Token, Method, Path, Query, Timestamp, Nonce, Body, Signature string
		} `json:"signatures"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	for _, c := range v.Canonical {
		if got, err := CanonicalQuery(c.Query); err != nil || got != c.Canonical {
			t.Errorf("%s: CanonicalQuery(%q) = %q, %v; want %q", c.What, c.Query, got, err, c.Canonical)
		}
	}
	for _, c := range v.Malformed {
		if got, err := CanonicalQuery(c.Query); err == nil || !strings.Contains(err.Error(), "%25") {
			t.Errorf("%s: CanonicalQuery(%q) = %q, %v; want an error saying to escape %% as %%25", c.What, c.Query, got, err)
		}
	}
	for _, c := range v.Signatures {
		if got, err := SignatureHMAC(c.Token, c.Method, c.Path, c.Query, c.Timestamp, c.Nonce, []byte(c.Body)); err != nil || got != c.Signature {
			t.Errorf("%s: SignatureHMAC = %s, %v; want %s", c.What, got, err, c.Signature)
		}
	}
	if len(v.Canonical) == 0 || len(v.Malformed) == 0 || len(v.Signatures) == 0 {
		t.Fatal("no vectors read")
	}
}

// stubServer answers the token endpoint with versions (nil: the field
// left out, as a server before version 2) and checks every other request's
// signature as mdqs does (internal/auth), over the request as received.
type stubServer struct {
	*httptest.Server
	versions []int
	refuseV1 bool
	mu       sync.Mutex
	tokens   int
	seen     []string // "v1 GET /path?query" of each signed request accepted
}

func newStub(t *testing.T, versions []int, refuseV1 bool) *stubServer {
	s := &stubServer{versions: versions, refuseV1: refuseV1}
	const token = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if r.URL.Path == "/v1/auth/token" {
			s.tokens++
			d := map[string]any{"token": token, "expire_at": "2099-01-01 00:00:00"}
			if s.versions != nil {
				d["signature_versions"] = s.versions
			}
			json.NewEncoder(w).Encode(map[string]any{"code": 1, "data": d})
			return
		}
		body, _ := io.ReadAll(r.Body)
		h := r.Header
		ok := false
		version := h.Get("X-Signature-Version")
		switch version {
		case "", "1":
			ok = !s.refuseV1 && auth.Sign(token, h.Get("X-Timestamp"), h.Get("X-Nonce"), body) == h.Get("X-Signature")
			version = "1"
		case "2":
			path, query := auth.RequestTarget(r.RequestURI)
			sig, err := auth.SignV2(token, r.Method, path, query, h.Get("X-Timestamp"), h.Get("X-Nonce"), body)
			ok = err == nil && sig == h.Get("X-Signature")
		}
		if !ok {
			if s.refuseV1 {
				w.Header().Set("X-Signature-Versions", "2")
			} else {
				w.Header().Set("X-Signature-Versions", "1, 2")
			}
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"code":0,"message":"unauthorized","detail":"signature mismatch"}`))
			return
		}
		s.seen = append(s.seen, "v"+version+" "+r.Method+" "+r.RequestURI)
		w.Write([]byte(`{"code":1,"message":"OK","data":{}}`))
	}))
	t.Cleanup(s.Close)
	return s
}

// The client signs with version 2 when the token answer lists it, with
// version 1 when it does not (a server from before version 2), and the
// server's own check accepts what it signed: queries with UTF-8, spaces
// and escapes, bodies, every method.
func TestClientSignsWithTheVersionTheServerLists(t *testing.T) {
	for _, tc := range []struct {
		versions []int
		want     string
	}{{nil, "v1"}, {[]int{1}, "v1"}, {[]int{1, 2}, "v2"}, {[]int{2}, "v2"}} {
		s := newStub(t, tc.versions, false)
		c := New(s.URL, "id", "secret")
		for _, r := range []struct {
			method, path string
			body         []byte
		}{
			{"GET", "/v1/api/whoami", nil},
			{"GET", "/v1/api/news/list?q=%E8%B4%B5%E5%B7%9E+%E8%8C%85%E5%8F%B0&page=1", nil},
			{"GET", "/v1/api/block/members?block=" + "%E5%8D%8A%E5%AF%BC%E4%BD%93" + "&kind=concept&x=a%2Fb*~", nil},
			{"POST", "/v1/api/screener/queue/submit", []byte(`{"expression":"price > ma20","universe":{"block":"半导体"}}`)},
			{"DELETE", "/v1/api/alerts?id=a1", nil},
		} {
			resp, err := c.Do(context.Background(), r.method, r.path, r.body)
			if err != nil || resp.Status != 200 {
				t.Fatalf("versions %v: %s %s: %v %+v", tc.versions, r.method, r.path, err, resp)
			}
		}
		for _, seen := range s.seen {
			if !strings.HasPrefix(seen, tc.want+" ") {
				t.Errorf("versions %v: %s, want every request signed %s", tc.versions, seen, tc.want)
			}
		}
		if len(s.seen) != 5 || s.tokens != 1 {
			t.Errorf("versions %v: %d requests accepted with %d tokens: %q", tc.versions, len(s.seen), s.tokens, s.seen)
		}
	}
}

// A token held from before the server refused version 1 (a token cache
// that knows no versions): the 401 lists only 2, and the client signs the
// same request again with version 2, with the same token. SignatureVersion
// forces a version and never switches.
func TestClientSwitchesToTheVersionsA401Lists(t *testing.T) {
	s := newStub(t, []int{2}, true)
	c := New(s.URL, "id", "secret")
	c.SetToken("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", time.Now().Add(time.Hour))
	resp, err := c.Do(context.Background(), "GET", "/v1/api/whoami?a=1", nil)
	if err != nil || resp.Status != 200 || s.tokens != 0 || len(s.seen) != 1 || s.seen[0] != "v2 GET /v1/api/whoami?a=1" {
		t.Fatalf("Do = %+v, %v; %d tokens, seen %q", resp, err, s.tokens, s.seen)
	}
	if got := c.SignatureVersions(); len(got) != 1 || got[0] != 2 || c.Version() != 2 {
		t.Errorf("after the 401: versions %v, version %d", got, c.Version())
	}
	var lines []string
	if r, err := c.Stream(context.Background(), "/v1/api/stream?topics=ranking", nil, func(l string) error { lines = append(lines, l); return nil }); err != nil || r.Status != 200 {
		t.Errorf("Stream = %+v, %v", r, err)
	}

	forced := New(s.URL, "id", "secret")
	forced.SignatureVersion = 1
	forced.Renew = func(*Response) bool { return false }
	if resp, err := forced.Do(context.Background(), "GET", "/v1/api/whoami", nil); err != nil || resp.Status != 401 {
		t.Errorf("forced version 1 on a server refusing it: %+v, %v; want the 401", resp, err)
	}
}

// A query with a malformed %-escape has no canonical form: under version
// 2 the client refuses to sign it and sends nothing.
func TestClientRefusesToSignAMalformedQuery(t *testing.T) {
	s := newStub(t, []int{1, 2}, false)
	c := New(s.URL, "id", "secret")
	_, err := c.Do(context.Background(), "GET", "/v1/api/news/list?q=100%", nil)
	if err == nil || !strings.Contains(err.Error(), "escape a literal % as %25") || len(s.seen) != 0 {
		t.Fatalf("Do with a malformed query: %v; seen %q", err, s.seen)
	}
}
