package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"mdqs/internal/client"
)

// FuzzAuthHeaders throws arbitrary Authorization, signature and api-key
// headers and bodies at the authentication middleware. Whatever arrives, the
// answer is a well-formed envelope and never a 5xx.
func FuzzAuthHeaders(f *testing.F) {
	h := newHarness(f)
	h.addClient("c", "secret-c", clientOpts{apiKey: "k-0123456789abcdef"})
	tok := h.token("c", "secret-c")
	ts := strconv.FormatInt(h.clock.Now().Unix(), 10)
	body := []byte(`{"a":1}`)
	f.Add("Bearer "+tok, ts, "nonce-1", client.Signature(tok, ts, "nonce-1", body), "k-0123456789abcdef", body)
	f.Add("Bearer "+tok, ts, "nonce-2", client.Signature(tok, ts, "nonce-2", nil), "", []byte(nil))
	f.Add("bearer  "+tok+" ", "", "", "", "", []byte("{}"))
	f.Add("Bearer", "99999999999999999999", "\x00\xff", "zz", "\n", []byte{0xff})
	f.Add("Basic dXNlcjpwYXNz", "-1", "n", "00000000000000000000000000000000", "k", []byte("not json"))
	f.Add("", "1.5e9", "😀", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "", []byte(""))
	handler := h.api.Handler()
	f.Fuzz(func(t *testing.T, authz, timestamp, nonce, signature, apiKey string, body []byte) {
		req := httptest.NewRequest(http.MethodPost, "/test/echo", bytes.NewReader(body))
		req.Header.Set("Authorization", authz)
		req.Header.Set("X-Timestamp", timestamp)
		req.Header.Set("X-Nonce", nonce)
		req.Header.Set("X-Signature", signature)
		req.Header.Set("api-key", apiKey)
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("status %d for authz=%q ts=%q nonce=%q sig=%q: %s", rec.Code, authz, timestamp, nonce, signature, rec.Body.Bytes())
		}
		var env struct {
			Code    *int    `json:"code"`
			Message *string `json:"message"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil || env.Code == nil || env.Message == nil {
			t.Fatalf("not an envelope (%d): %q", rec.Code, rec.Body.Bytes())
		}
		if (rec.Code == http.StatusOK) != (*env.Code == 1) {
			t.Fatalf("status %d with envelope code %d", rec.Code, *env.Code)
		}
		if rec.Body.Len() > 4096 && rec.Code != http.StatusOK {
			t.Fatalf("error body of %d bytes", rec.Body.Len())
		}
	})
}
