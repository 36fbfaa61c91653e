package api

import (
	"net/http"
	"strings"
	"testing"
)

// Bad input is the client's error, never the server's: a value too long
// for SQLite's LIKE, a malformed query string, a day the data cannot have.
// Each is a 4xx envelope whose detail says what to fix, and none a 500 or
// an outage (503). Found by fuzzing signed requests over every endpoint.
func TestBadInputIsTheClientsError(t *testing.T) {
	h := newHarness(t, withDemoMode, withTerminal(t))
	h.addClient("c", "secret-c", clientOpts{scopes: "*"})
	tok := h.token("c", "secret-c")
	h.signed(http.MethodPost, "/v1/api/refresh", tok, nil).expect(t, 200, "OK")
	for _, tt := range []struct {
		name, path string
		status     int
		detail     string
	}{
		{"a list of codes as a block keyword", "/v1/api/blocks?keyword=" + strings.Repeat("600519.SH,", 5000), 400, "the query string is 50008 bytes; at most 8192"},
		{"a 50,001-byte block keyword", "/v1/api/blocks?keyword=" + strings.Repeat("x", 50001), 400, "the query string is 50009 bytes"},
		{"a 50,001-byte stock keyword", "/v1/api/meta/stocks?keyword=" + strings.Repeat("x", 50001), 400, "the query string is 50009 bytes"},
		{"a keyword of 200 codes", "/v1/api/blocks?keyword=" + strings.Repeat("600519.SH,", 200), 400, "keyword is 2000 bytes long; at most 1024"},
		{"a query string over 8 KiB", "/v1/api/boards/industry?" + strings.Repeat("a=1&", 2100), 400, "the query string is 8400 bytes"},
		{"a broken escape", "/v1/api/boards/industry?name=%zz", 400, "malformed"},
		{"a control character", "/v1/api/boards/industry?name=a%00b", 400, "control character"},
		{"bytes that are not UTF-8", "/v1/api/boards/concept?name=%ff%fe", 400, "UTF-8"},
		{"a day before the exchanges", "/v1/api/boards/top50?day=1970-01-01", 404, "1970-01-01"},
		{"a day before the demo history", "/v1/api/boards/top50?day=2010-01-04", 404, "2010-01-04"},
		{"sectors of a day before the exchanges", "/v1/api/boards/industry?day=1970-01-01", 404, "1970-01-01"},
		{"movements of a day before the demo history", "/v1/api/market/movements?day=20100104", 404, "2010-01-04"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := h.signed(http.MethodGet, tt.path, tok, nil)
			if r.status != tt.status || r.code != 0 || !strings.Contains(r.detail, tt.detail) {
				t.Fatalf("got %d %.300s, want %d with detail containing %q", r.status, r.raw, tt.status, tt.detail)
			}
		})
	}
	if strings.Contains(h.logs.String(), "level=ERROR") {
		t.Errorf("bad input logged as a server error:\n%s", h.logs.String())
	}
}
