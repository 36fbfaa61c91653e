package api

import (
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"time"

	"mdqs/internal/auth"
	"mdqs/internal/market"
)

// MCPDeps configure /mcp, the MCP endpoint (mcp.* in the configuration).
type MCPDeps struct {
	// Front builds the MCP server's handler from the API's own root
	// handler, which its tools call in-process: the tools then meet every
	// check of the API as the caller. nil: /mcp is off (mcp.http) and
	// answers 503 saying so.
	Front func(api http.Handler) http.Handler
	// Remote answers callers on other machines too (mcp.remote).
	Remote bool
	// Origins are the web origins allowed besides the server's own
	// (mcp.allowed_origins, normalised as browsers send them).
	Origins []string
}

// mcpRoutes registers /mcp: Streamable HTTP takes POST (messages), GET (a
// stream of the server's messages) and DELETE (the end of a session).
func (s *Server) mcpRoutes() {
	var front http.Handler
	if s.MCP.Front != nil {
		front = s.MCP.Front(s.Handler())
	}
	door := s.mcpDoor(front)
	for _, m := range []string{http.MethodPost, http.MethodGet, http.MethodDelete} {
		s.register(m, "/mcp", door)
	}
}

// mcpDoor admits a request to the MCP front: from this machine unless
// mcp.remote, with no Origin or an allowed one, with a bearer token whose
// client holds scope mcp (the client's rate budget and api-key apply as
// on any endpoint). The MCP clients of desktop agents cannot sign
// requests, so the door takes the bare token; the front signs its own
// calls of the API with it (auth.Bearer).
func (s *Server) mcpDoor(front http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if front == nil {
			s.writeError(w, r, market.NotConfigured("MCP over HTTP is off on this server: set mcp.http = true ([mcp] http = true in config.toml, "+
				"or MDQS_MCP_HTTP=true) and restart it; a desktop agent can run mdqs mcp (stdio) instead, which needs neither"))
			return
		}
		if !s.MCP.Remote && !loopbackPeer(r) {
			s.writeError(w, r, &market.Error{Kind: market.KindForbidden, Message: "forbidden",
				Detail: "/mcp answers callers on this machine only (mcp.remote = false): a bearer token sent across a network can be replayed by anyone who reads it"})
			return
		}
		if o := r.Header.Get("Origin"); o != "" && !s.originAllowed(o, r.Host) {
			// MCP asks servers to refuse a foreign Origin with 403: a web
			// page (DNS rebinding, or a page that learnt a token) must not
			// drive the tools.
			s.writeError(w, r, &market.Error{Kind: market.KindForbidden, Message: "forbidden",
				Detail: "the Origin " + shorten(o, 100) + " is not this server's and not in mcp.allowed_origins: web pages of other origins may not call /mcp"})
			return
		}
		token, p, err := s.bearerOf(w, r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		if !p.Allows(auth.ScopeMCP) {
			s.writeError(w, r, &market.Error{Kind: market.KindForbidden, Message: "forbidden",
				Detail: "this endpoint needs scope mcp, which \"*\" does not hold: give the client -scopes \"*,mcp\" (mdqs client add)"})
			return
		}
		if r.Method == http.MethodGet {
			// A GET is the session's stream of server messages: it lasts
			// longer than the server's read and write timeouts. (A writer
			// without deadlines, as in tests, answers ErrNotSupported.)
			rc := http.NewResponseController(w)
			rc.SetReadDeadline(time.Time{})
			rc.SetWriteDeadline(time.Time{})
		}
		ctx := auth.WithBearer(r.Context(), auth.Bearer{Token: token, APIKey: field(r, "Api-Key"), RemoteAddr: r.RemoteAddr, Principal: p})
		front.ServeHTTP(w, r.WithContext(ctx))
	})
}

// originAllowed: the Origin of a page of this server (its host and port
// are the request's Host), or one of mcp.allowed_origins.
func (s *Server) originAllowed(origin, host string) bool {
	if slices.Contains(s.MCP.Origins, origin) {
		return true
	}
	_, rest, ok := strings.Cut(origin, "://")
	return ok && host != "" && strings.EqualFold(rest, host)
}

// loopbackPeer reports that the request comes from this machine.
func loopbackPeer(r *http.Request) bool {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	return err == nil && ap.Addr().Unmap().IsLoopback()
}
