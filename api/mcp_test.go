package api

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"mdqs/internal/auth"
	"mdqs/internal/client"
)

// withMCP serves /mcp with the door's settings and a front built by front
// from the API's own handler.
func withMCP(front func(api http.Handler) http.Handler, remote bool, origins ...string) harnessOpt {
	return func(c *harnessConfig) {
		c.deps.MCP = MCPDeps{Front: front, Remote: remote, Origins: origins}
	}
}

// echoFront stands for the MCP front: it answers what the door handed it
// (the verified bearer) and, like the front's tools, calls the API it was
// given in-process, signing with the caller's token.
func echoFront(t *testing.T, clock func() time.Time) func(api http.Handler) http.Handler {
	return func(api http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, ok := auth.BearerFrom(r.Context())
			if !ok {
				http.Error(w, "no bearer in the context", http.StatusInternalServerError)
				return
			}
			inner, _ := http.NewRequestWithContext(r.Context(), http.MethodGet, "http://127.0.0.1/v1/api/whoami", nil)
			inner.RemoteAddr = b.RemoteAddr
			c := &client.Client{Now: clock}
			c.SetSignatureVersions([]int{client.SignatureV2})
			if err := c.SignRequest(inner, b.Token, nil); err != nil {
				t.Error(err)
			}
			rec := httptest.NewRecorder()
			api.ServeHTTP(rec, inner)
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{"client": b.Principal.ClientID, "token_ok": b.Token != "", "whoami": rec.Code,
				"whoami_body": json.RawMessage(rec.Body.Bytes())})
		})
	}
}

// mcpPost is a POST to /mcp with a bearer token (if any) and more headers.
func (h *harness) mcpPost(token string, header http.Header) response {
	h.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, h.srv.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Header = header.Clone()
	if req.Header == nil {
		req.Header = http.Header{}
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := h.srv.Client().Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	r := response{status: res.StatusCode, header: res.Header, raw: raw}
	var env struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Detail  string          `json:"detail"`
		Data    json.RawMessage `json:"data"`
	}
	json.Unmarshal(raw, &env)
	r.code, r.message, r.detail, r.data = env.Code, env.Message, env.Detail, env.Data
	return r
}

// /mcp takes a bare bearer token (MCP clients cannot sign) whose client
// holds the scope mcp; whatever it refuses is the API's envelope, and what
// it admits reaches the front with the verified token, which the front's
// in-process calls of the API sign with, so they meet every check of the
// API as the caller.
func TestMCPDoor(t *testing.T) {
	var h *harness
	h = newHarness(t, withMCP(echoFront(t, func() time.Time { return h.clock.Now() }), false, "https://agent.desk.lan"))
	h.addClient("agent", "secret-agent", clientOpts{scopes: "market,mcp"})
	h.addClient("script", "secret-script", clientOpts{scopes: "*"})
	agent, script := h.token("agent", "secret-agent"), h.token("script", "secret-script")

	for _, tt := range []struct {
		name    string
		token   string
		header  http.Header
		status  int
		message string
		detail  string
	}{
		{"no token", "", nil, 401, "unauthorized", "missing Authorization: Bearer <token> header"},
		{"an unknown token", strings.Repeat("a", 64), nil, 401, "unauthorized", "unknown, expired or revoked token"},
		{"a client without mcp (\"*\" does not hold it)", script, nil, 403, "forbidden", "this endpoint needs scope mcp"},
		{"a foreign Origin", agent, http.Header{"Origin": {"http://evil.example.com"}}, 403, "forbidden", "mcp.allowed_origins"},
		{"an Origin of another port", agent, http.Header{"Origin": {"http://127.0.0.1:1"}}, 403, "forbidden", "mcp.allowed_origins"},
		{"Origin null", agent, http.Header{"Origin": {"null"}}, 403, "forbidden", "mcp.allowed_origins"},
		{"a foreign Origin without a token", "", http.Header{"Origin": {"http://evil.example.com"}}, 403, "forbidden", "mcp.allowed_origins"},
		{"no Origin (an agent outside a browser)", agent, nil, 200, "", ""},
		{"this server's own Origin", agent, http.Header{"Origin": {h.srv.URL}}, 200, "", ""},
		{"an Origin of mcp.allowed_origins", agent, http.Header{"Origin": {"https://agent.desk.lan"}}, 200, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := h.mcpPost(tt.token, tt.header)
			if r.status != tt.status {
				t.Fatalf("POST /mcp = %d %s, want %d", r.status, r.raw, tt.status)
			}
			if tt.status != 200 {
				if r.code != 0 || r.message != tt.message || !strings.Contains(r.detail, tt.detail) {
					t.Errorf("POST /mcp = %s, want the envelope %q with a detail naming %q", r.raw, tt.message, tt.detail)
				}
				if tt.status == 401 && !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer") {
					t.Errorf("a 401 without WWW-Authenticate: Bearer: %v", r.header)
				}
				return
			}
			var got struct {
				Client     string          `json:"client"`
				TokenOK    bool            `json:"token_ok"`
				Whoami     int             `json:"whoami"`
				WhoamiBody json.RawMessage `json:"whoami_body"`
			}
			json.Unmarshal(r.raw, &got)
			if got.Client != "agent" || !got.TokenOK || got.Whoami != 200 || !strings.Contains(string(got.WhoamiBody), `"scopes":["market","mcp"]`) {
				t.Errorf("the front was handed %s; want client agent, its token, and its in-process whoami answered 200 with its scopes", r.raw)
			}
		})
	}

	// A client disabled meanwhile is refused at the door on its next
	// request, within auth.revocation_check: its session ends there.
	if err := h.store.SetClientEnabled(context.Background(), "agent", false, t0); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		r := h.mcpPost(agent, nil)
		if r.status == 401 && r.message == "unauthorized" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("POST /mcp of a disabled client = %d %s, want 401", r.status, r.raw)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Off loopback, /mcp answers only callers on this machine unless
// mcp.remote is on: a bearer token sent in clear across a network is one
// anyone on the way can replay.
func TestMCPDoorRemoteCallers(t *testing.T) {
	for _, remote := range []bool{false, true} {
		var h *harness
		h = newHarness(t, withMCP(echoFront(t, func() time.Time { return h.clock.Now() }), remote))
		h.addClient("agent", "secret-agent", clientOpts{scopes: "market,mcp"})
		agent := h.token("agent", "secret-agent")
		for _, peer := range []string{"127.0.0.1:50000", "[::1]:50000", "192.0.2.7:50000"} {
			req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(`{}`))
			req.RemoteAddr = peer
			req.Header.Set("Authorization", "Bearer "+agent)
			rec := httptest.NewRecorder()
			h.api.Handler().ServeHTTP(rec, req)
			want := 200
			if !remote && peer == "192.0.2.7:50000" {
				want = 403
			}
			if rec.Code != want || (want == 403 && !strings.Contains(rec.Body.String(), "mcp.remote")) {
				t.Errorf("mcp.remote = %v, a caller at %s: %d %s, want %d", remote, peer, rec.Code, rec.Body, want)
			}
		}
	}
}

// With mcp.http off, /mcp says how to turn it on: a 503 without
// Retry-After, as a service the configuration leaves out always is.
func TestMCPDoorOff(t *testing.T) {
	h := newHarness(t)
	for _, method := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
		r := h.do(method, "/mcp", nil, nil)
		if r.status != 503 || !strings.Contains(r.detail, "mcp.http") || !strings.Contains(r.detail, "mdqs mcp") || r.header.Get("Retry-After") != "" {
			t.Errorf("%s /mcp with mcp.http off = %d %s (Retry-After %q), want 503 naming mcp.http and mdqs mcp, no Retry-After",
				method, r.status, r.raw, r.header.Get("Retry-After"))
		}
	}
}
