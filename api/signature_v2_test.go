package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"mdqs/internal/auth"
	"mdqs/internal/client"
)

// withoutSignatureV1 is auth.signature_v1 = false: version 2 only.
func withoutSignatureV1(c *harnessConfig) { c.auth.RefuseSignatureV1 = true }

// signedV2Header signs a request to target (path and query as sent) with
// X-Signature-Version 2 at the harness clock's time.
func (h *harness) signedV2Header(token, method, target string, body []byte) http.Header {
	h.t.Helper()
	ts := strconv.FormatInt(h.clock.Now().Unix(), 10)
	nonce := client.NewNonce()
	path, query := auth.RequestTarget(target)
	sig, err := auth.SignV2(token, method, path, query, ts, nonce, body)
	if err != nil {
		h.t.Fatal(err)
	}
	return http.Header{
		"Authorization":       {"Bearer " + token},
		"X-Timestamp":         {ts},
		"X-Nonce":             {nonce},
		"X-Signature":         {sig},
		"X-Signature-Version": {"2"},
	}
}

// tokenAnswer is the data of POST /v1/auth/token with what it adds to
// the spec: signature_versions.
type tokenAnswer struct {
	Token             string
	SignatureVersions []int `json:"signature_versions"`
}

// The token answer says which signature versions the server accepts,
// beside the spec's fields, and so does the X-Signature-Versions header
// (on the token answer and on a 401 of the signature check).
func TestTokenAnswerListsSignatureVersions(t *testing.T) {
	for _, refuse := range []bool{false, true} {
		opts := []harnessOpt{}
		want, header := []int{1, 2}, "1, 2"
		if refuse {
			opts, want, header = append(opts, withoutSignatureV1), []int{2}, "2"
		}
		h := newHarness(t, opts...)
		h.addClient("c", "secret-c", clientOpts{})
		r := h.do(http.MethodPost, "/v1/auth/token", []byte(`{"client_id":"c","client_secret":"secret-c"}`), nil)
		r.expect(t, http.StatusOK, "OK")
		var d tokenAnswer
		var spec map[string]any
		json.Unmarshal(r.data, &d)
		json.Unmarshal(r.data, &spec)
		if !slices.Equal(d.SignatureVersions, want) || r.header.Get("X-Signature-Versions") != header {
			t.Errorf("refuse v1 %v: signature_versions %v, X-Signature-Versions %q; want %v, %q", refuse, d.SignatureVersions, r.header.Get("X-Signature-Versions"), want, header)
		}
		for _, k := range []string{"token", "expire_at", "enable_log", "token_bytes"} {
			if _, ok := spec[k]; !ok {
				t.Errorf("the spec's field %s is missing: %s", k, r.data)
			}
		}
		bad := h.do(http.MethodGet, "/v1/api/whoami", nil, http.Header{"Authorization": {"Bearer " + d.Token},
			"X-Timestamp": {"1"}, "X-Nonce": {"n"}, "X-Signature": {"0"}, "X-Signature-Version": {"3"}})
		if bad.status != http.StatusUnauthorized || bad.header.Get("X-Signature-Versions") != header {
			t.Errorf("refuse v1 %v: a 401 of the signature check: %d, X-Signature-Versions %q; want %q", refuse, bad.status, bad.header.Get("X-Signature-Versions"), header)
		}
	}
}

// TestSignatureV2BindsTheRequest: the headers a client computed for one
// request are refused on another under version 2, and would pass under
// version 1 (the spec's MD5 covers only token, timestamp, nonce and body).
// Each refused request is followed by the original, which still passes: its
// signature was good, and the refusal burnt no nonce.
func TestSignatureV2BindsTheRequest(t *testing.T) {
	h := newHarness(t, withTerminal(t))
	h.addClient("a", "secret-a", clientOpts{scopes: "*"})
	tok := h.token("a", "secret-a")

	// Version 1: GET /v1/api/whoami's headers run POST /v1/api/refresh.
	hd := h.signedHeader(tok, nil)
	if r := h.do(http.MethodPost, "/v1/api/refresh", nil, hd); r.status != http.StatusOK {
		t.Fatalf("v1 headers of a GET on POST /v1/api/refresh: %d %s; the MD5 form was expected to pass (it binds no method or path)", r.status, r.raw)
	}

	type swap struct {
		name                 string
		method, target       string // signed
		body                 []byte
		sendMethod, sendPath string // sent instead
		sendBody             []byte
	}
	submit := []byte(`{"expression":"price > 0","limit":1}`)
	for _, c := range []swap{
		{"method and path", "GET", "/v1/api/whoami", nil, "POST", "/v1/api/refresh", nil},
		{"method", "GET", "/v1/api/screener/queue/status?id=x", nil, "DELETE", "/v1/api/alerts?id=x", nil},
		{"path", "GET", "/v1/api/whoami", nil, "GET", "/v1/api/screener/fields", nil},
		{"query", "GET", "/v1/api/kline?code=600519.SH&freq=D", nil, "GET", "/v1/api/kline?code=000001.SZ&freq=D", nil},
		{"query added", "GET", "/v1/api/whoami", nil, "GET", "/v1/api/whoami?x=1", nil},
		{"query dropped", "GET", "/v1/api/kline?code=600519.SH&freq=D", nil, "GET", "/v1/api/kline", nil},
		{"a repeated value dropped", "GET", "/v1/api/quotes?codes=600519.SH&codes=000001.SZ", nil, "GET", "/v1/api/quotes?codes=600519.SH", nil},
		{"body", "POST", "/v1/api/screener/queue/submit", submit, "POST", "/v1/api/screener/queue/submit", []byte(`{"expression":"price > 9","limit":1}`)},
		{"body dropped", "POST", "/v1/api/screener/queue/submit", submit, "POST", "/v1/api/screener/queue/submit", nil},
	} {
		hd := h.signedV2Header(tok, c.method, c.target, c.body)
		r := h.do(c.sendMethod, c.sendPath, c.sendBody, hd)
		if r.status != http.StatusUnauthorized || !strings.Contains(r.detail, "signature mismatch (version 2") {
			t.Errorf("%s: headers of %s %s sent on %s %s: %d %q; want 401 signature mismatch", c.name, c.method, c.target, c.sendMethod, c.sendPath, r.status, r.detail)
		}
		if r := h.do(c.method, c.target, c.body, hd); r.status == http.StatusUnauthorized {
			t.Errorf("%s: the original %s %s with its own headers: %d %s", c.name, c.method, c.target, r.status, r.raw)
		}
	}
	// Reordered pairs are the same canonical query: accepted.
	hd = h.signedV2Header(tok, "GET", "/v1/api/kline?code=600519.SH&freq=D&start=2026-11-02&end=2026-11-20", nil)
	h.do(http.MethodGet, "/v1/api/kline?end=2026-11-20&freq=D&start=2026-11-02&code=600519.SH", nil, hd).expect(t, http.StatusOK, "")
	// A replay of a version 2 request is refused as one of version 1 is.
	hd = h.signedV2Header(tok, "GET", "/v1/api/whoami", nil)
	h.do(http.MethodGet, "/v1/api/whoami", nil, hd).expect(t, http.StatusOK, "")
	if r := h.do(http.MethodGet, "/v1/api/whoami", nil, hd); r.status != http.StatusUnauthorized || r.detail != "nonce already used" {
		t.Errorf("a replayed version 2 request: %d %q", r.status, r.detail)
	}
}

// sendAsWritten writes one request line and its headers on a connection of
// its own, as written, and answers the status and the envelope's detail:
// the path's escapes are exactly as a test writes them.
func sendAsWritten(t *testing.T, h *harness, method, target string, header http.Header) (int, string) {
	t.Helper()
	u, _ := url.Parse(h.srv.URL)
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "%s %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n", method, target, u.Host)
	header.Write(conn)
	fmt.Fprintf(conn, "\r\n")
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var env struct{ Detail string }
	json.NewDecoder(res.Body).Decode(&env)
	return res.StatusCode, env.Detail
}

// Version 2 signs the path as sent, escapes and all (the router reads it
// decoded): a path with an escaped letter is signed with the escape, and
// the decoded path's signature is refused. The query's escapes are
// canonical: '+', %20, lower- or upper-case hex, raw UTF-8 all sign alike.
// A malformed %-escape has no canonical form: 401, saying so.
func TestSignatureV2SignsTheTargetAsSent(t *testing.T) {
	h := newHarness(t)
	h.addClient("c", "secret-c", clientOpts{})
	tok := h.token("c", "secret-c")
	const escaped = "/v1/api/whoam%69"
	if status, detail := sendAsWritten(t, h, "GET", escaped, h.signedV2Header(tok, "GET", escaped, nil)); status != http.StatusOK {
		t.Errorf("GET %s signed as sent: %d %q", escaped, status, detail)
	}
	if status, detail := sendAsWritten(t, h, "GET", escaped, h.signedV2Header(tok, "GET", "/v1/api/whoami", nil)); status != http.StatusUnauthorized {
		t.Errorf("GET %s signed as /v1/api/whoami: %d %q; want 401", escaped, status, detail)
	}
	// One canonical query, many spellings.
	signed := h.signedV2Header(tok, "GET", "/v1/api/whoami?q=%E8%B4%B5%E5%B7%9E%20a&page=1", nil)
	for _, sent := range []string{
		"/v1/api/whoami?page=1&q=%e8%b4%b5%e5%b7%9e+a",
		"/v1/api/whoami?q=\xe8\xb4\xb5\xe5\xb7\x9e+a&page=1",
		"/v1/api/whoami?q=%E8%B4%B5%E5%B7%9E%20%61&&page=%31",
	} {
		hd := h.signedV2Header(tok, "GET", "/v1/api/whoami?q=%E8%B4%B5%E5%B7%9E%20a&page=1", nil)
		hd["X-Signature"] = signed["X-Signature"] // same canonical query, so the same signature would do for the same nonce
		hd["X-Nonce"], hd["X-Timestamp"] = signed["X-Nonce"], signed["X-Timestamp"]
		status, detail := sendAsWritten(t, h, "GET", sent, hd)
		if status != http.StatusOK {
			t.Errorf("GET %s with the signature of its canonical query: %d %q", sent, status, detail)
		}
		// Each spelling passed once: the nonce is now used; sign the next afresh.
		signed = h.signedV2Header(tok, "GET", "/v1/api/whoami?q=%E8%B4%B5%E5%B7%9E%20a&page=1", nil)
	}
	// A malformed escape: 401 under version 2 (no canonical form), the
	// query check's 400 under version 1.
	hd := h.signedV2Header(tok, "GET", "/v1/api/kline", nil)
	if status, detail := sendAsWritten(t, h, "GET", "/v1/api/kline?code=100%", hd); status != http.StatusUnauthorized || !strings.Contains(detail, `malformed %-escape "%"`) || !strings.Contains(detail, "%25") {
		t.Errorf("a malformed escape under version 2: %d %q", status, detail)
	}
	if r := h.do(http.MethodGet, "/v1/api/kline?code=100%", nil, h.signedHeader(tok, nil)); r.status != http.StatusBadRequest {
		t.Errorf("a malformed escape under version 1: %d %q", r.status, r.detail)
	}
}

// The canonical query sorts a repeated parameter's values, so their order
// is not signed; a handler reads the first value, so whoever alters a
// request in flight could pick it by reordering. Under version 2 a name
// repeated with different values is refused (400); the same value twice
// changes nothing and passes.
func TestSignatureV2RefusesAReorderableRepeat(t *testing.T) {
	h := newHarness(t)
	h.addClient("c", "secret-c", clientOpts{})
	tok := h.token("c", "secret-c")
	const signedAs = "/v1/api/whoami?code=000001&code=600000"
	hd := h.signedV2Header(tok, "GET", signedAs, nil)
	status, detail := sendAsWritten(t, h, "GET", "/v1/api/whoami?code=600000&code=000001", hd)
	if status != http.StatusBadRequest || !strings.Contains(detail, "parameter code is given more than once") {
		t.Errorf("a repeated parameter reordered in flight: %d %q; want 400 naming it", status, detail)
	}
	const same = "/v1/api/whoami?page=1&page=1"
	if status, detail := sendAsWritten(t, h, "GET", same, h.signedV2Header(tok, "GET", same, nil)); status != http.StatusOK {
		t.Errorf("the same value twice: %d %q", status, detail)
	}
}

// With auth.signature_v1 = false the MD5 form is refused with a detail
// that names version 2 and the setting; version 2 works; any version but 1
// and 2 is refused naming the accepted ones.
func TestSignatureV1Refused(t *testing.T) {
	h := newHarness(t, withoutSignatureV1)
	h.addClient("c", "secret-c", clientOpts{})
	tok := h.token("c", "secret-c")
	r := h.signed(http.MethodGet, "/v1/api/whoami", tok, nil)
	if r.status != http.StatusUnauthorized || !strings.Contains(r.detail, "X-Signature-Version: 2") || !strings.Contains(r.detail, "auth.signature_v1 = false") {
		t.Errorf("v1 on a server refusing it: %d %q", r.status, r.detail)
	}
	if r.header.Get("X-Signature-Versions") != "2" {
		t.Errorf("X-Signature-Versions on the 401: %q, want 2", r.header.Get("X-Signature-Versions"))
	}
	h.do(http.MethodGet, "/v1/api/whoami", nil, h.signedV2Header(tok, "GET", "/v1/api/whoami", nil)).expect(t, http.StatusOK, "OK")
	hd := h.signedV2Header(tok, "GET", "/v1/api/whoami", nil)
	hd["X-Signature-Version"] = []string{"7"}
	if r := h.do(http.MethodGet, "/v1/api/whoami", nil, hd); r.status != http.StatusUnauthorized || !strings.Contains(r.detail, "X-Signature-Version must be 2") {
		t.Errorf("version 7: %d %q", r.status, r.detail)
	}

	h1 := newHarness(t)
	h1.addClient("c", "secret-c", clientOpts{})
	tok = h1.token("c", "secret-c")
	hd = h1.signedV2Header(tok, "GET", "/v1/api/whoami", nil)
	hd["X-Signature-Version"] = []string{"7"}
	if r := h1.do(http.MethodGet, "/v1/api/whoami", nil, hd); r.status != http.StatusUnauthorized || !strings.Contains(r.detail, "must be 1 (MD5, also when the header is absent) or 2 (HMAC-SHA256)") {
		t.Errorf("version 7 on a default server: %d %q", r.status, r.detail)
	}
	hd = h1.signedHeader(tok, nil)
	hd["X-Signature-Version"] = []string{"1"}
	h1.do(http.MethodGet, "/v1/api/whoami", nil, hd).expect(t, http.StatusOK, "OK")
}

// FuzzSignatureV2 throws arbitrary X-Signature-Version values, query
// strings (malformed escapes, raw bytes), signatures and bodies at the
// authentication middleware, some rightly signed with version 2 ("sign" as
// the signature). Whatever arrives, the answer is a well-formed envelope
// and never a 5xx; a rightly signed request passes.
func FuzzSignatureV2(f *testing.F) {
	h := newHarness(f)
	h.addClient("c", "secret-c", clientOpts{})
	tok := h.token("c", "secret-c")
	f.Add("2", "code=600519.SH&freq=D", "sign", []byte(`{"a":1}`))
	f.Add("2", "q=%E4%B8%AD+a&&b", "sign", []byte(nil))
	f.Add("2", "q=100%", "sign", []byte(nil))
	f.Add("2", "q=%zz", strings.Repeat("0", 64), []byte(""))
	f.Add("", "a=1", "sign", []byte("{}"))
	f.Add("3", "", "sign", []byte(nil))
	f.Add("1", "\xff=\x00", "zz", []byte{0xff})
	handler := h.api.Handler()
	n := 0
	f.Fuzz(func(t *testing.T, version, query, signature string, body []byte) {
		n++
		if n%5000 == 0 {
			// A long run: let the nonces expire (the replay set is
			// bounded) and take a token that will not.
			h.clock.Advance(2 * time.Minute)
			h.auth.PurgeExpired(context.Background())
			iss, err := h.auth.IssueToken(context.Background(), "c", "secret-c")
			if err != nil {
				t.Fatal(err)
			}
			tok = iss.Token
		}
		ts := strconv.FormatInt(h.clock.Now().Unix(), 10)
		nonce := "fz-" + strconv.Itoa(n)
		req := httptest.NewRequest(http.MethodPost, "/test/echo", bytes.NewReader(body))
		req.RequestURI = "/test/echo?" + query
		req.URL.RawQuery = query
		signed := false
		if signature == "sign" {
			sig, err := auth.SignV2(tok, http.MethodPost, "/test/echo", query, ts, nonce, body)
			signature, signed = sig, err == nil && version == "2"
		}
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("X-Timestamp", ts)
		req.Header.Set("X-Nonce", nonce)
		req.Header.Set("X-Signature", signature)
		req.Header.Set("X-Signature-Version", version)
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("status %d for version=%q query=%q sig=%q: %s", rec.Code, version, query, signature, rec.Body.Bytes())
		}
		var env struct {
			Code    *int    `json:"code"`
			Message *string `json:"message"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil || env.Code == nil || env.Message == nil {
			t.Fatalf("not an envelope (%d): %q", rec.Code, rec.Body.Bytes())
		}
		if signed && rec.Code == http.StatusUnauthorized {
			t.Fatalf("rightly signed, version 2, query %q: %s", query, rec.Body.Bytes())
		}
		if rec.Code == http.StatusUnauthorized && rec.Header().Get("X-Signature-Versions") != "1, 2" {
			t.Fatalf("a 401 without X-Signature-Versions: %s", rec.Body.Bytes())
		}
		if rec.Body.Len() > 4096 && rec.Code != http.StatusOK {
			t.Fatalf("error body of %d bytes", rec.Body.Len())
		}
	})
}
