package api

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"mdqs/internal/auth"
	"mdqs/internal/market"
)

// principal is the authenticated caller of a protected request. It rides
// on the route's instrumented writer, which records the caller for the
// request log anyway, rather than in a copy of the request with a context
// value: those were three allocations on every request (issue 19).
func principal(w http.ResponseWriter) auth.Principal {
	switch x := w.(type) {
	case *statusWriter:
		return x.caller
	case *csvRecorder: // a CSV answer's handler writes its JSON here
		return principal(x.w)
	}
	return auth.Principal{}
}

// authenticate guards a protected endpoint: bearer token, api-key, request
// signature over the raw body, then scope. The body is read once here (the
// signature covers it) and handed on as a fresh reader.
func (s *Server) authenticate(scope auth.Scope, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := s.authorize(w, r, scope, next); err != nil {
			s.writeError(w, r, err)
		}
	})
}

func (s *Server) authorize(w http.ResponseWriter, r *http.Request, scope auth.Scope, next http.Handler) error {
	if r.ContentLength > s.MaxBodyBytes {
		return s.tooLarge()
	}
	token, p, err := s.bearerOf(w, r)
	if err != nil {
		return err
	}
	body, err := s.readBody(r)
	if err != nil {
		return err
	}
	path, query := requestTarget(r)
	sig := auth.Signed{
		Timestamp: field(r, "X-Timestamp"),
		Nonce:     field(r, "X-Nonce"),
		Signature: field(r, "X-Signature"),
		Version:   field(r, "X-Signature-Version"),
		Method:    r.Method,
		Path:      path,
		Query:     query,
	}
	if err := s.Auth.VerifySignature(r.Context(), p, token, sig, body); err != nil {
		if market.KindOf(err) == market.KindUnauthorized {
			// Which versions to sign with: a client that used one this
			// server refuses (a token cached before it changed) switches.
			w.Header()["X-Signature-Versions"] = s.Auth.SignatureVersionsHeader()
		}
		return err
	}
	if scope != "" && !p.Allows(scope) {
		return &market.Error{Kind: market.KindForbidden, Message: "forbidden", Detail: "this endpoint needs scope " + string(scope)}
	}
	if len(body) > 0 {
		// A handler reads the body again; handlers must not change the
		// server's request, so the reader goes on a copy (GETs, most
		// calls, need neither).
		r = r.WithContext(r.Context())
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	next.ServeHTTP(w, r)
	return nil
}

// bearerOf is the first half of every authenticated request, signed or
// not (/mcp takes a bare token): the bearer token, the principal it
// stands for, the client's rate budget and its api-key. An address that
// keeps sending tokens the server does not know is refused before any
// lookup.
func (s *Server) bearerOf(w http.ResponseWriter, r *http.Request) (string, auth.Principal, error) {
	token, ok := bearer(field(r, "Authorization"))
	if !ok {
		return "", auth.Principal{}, &market.Error{Kind: market.KindUnauthorized, Message: "unauthorized", Detail: "missing Authorization: Bearer <token> header"}
	}
	addr := ""
	if s.badTokens.def.Rate > 0 {
		addr = addrKey(r)
		if wait, empty := s.badTokens.spent(addr); empty && !s.Auth.Cached(token) {
			return "", auth.Principal{}, &market.Error{Kind: market.KindRateLimited, Message: "too many requests",
				Detail: "too many unknown or expired tokens from this address; a token this server does not hold is " +
					"refused until retry_after (seconds) has passed (get a new token then, POST /v1/auth/token)",
				RetryAfter: wait}
		}
	}
	p, err := s.Auth.Authenticate(r.Context(), token)
	if err != nil {
		if addr != "" && market.KindOf(err) == market.KindUnauthorized {
			s.badTokens.take(r.Context(), addr)
		}
		return "", auth.Principal{}, err
	}
	identify(w, p)
	if wait, ok := s.clientLimits.take(r.Context(), p.ClientID); !ok {
		return "", auth.Principal{}, rateLimited("client "+p.ClientID, wait)
	}
	if err := p.CheckAPIKey(field(r, "Api-Key")); err != nil {
		return "", auth.Principal{}, err
	}
	return token, p, nil
}

// requestTarget is the path and query string of the request target as
// received, which signature version 2 signs: the path's %-escapes as
// sent, not as net/url would write them again.
func requestTarget(r *http.Request) (path, query string) {
	if r.RequestURI == "" { // a request made in-process, never received
		return r.URL.EscapedPath(), r.URL.RawQuery
	}
	return auth.RequestTarget(r.RequestURI)
}

// field is a request header's first value by its canonical name (as
// net/http keys a received request's header): Header.Get canonicalises the
// name on every call, and a signed request reads seven (issue 19).
func field(r *http.Request, canonical string) string {
	if v := r.Header[canonical]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// bearer extracts the token of an "Authorization: Bearer <token>" header;
// the scheme is case-insensitive (RFC 7235).
func bearer(h string) (string, bool) {
	scheme, token, found := strings.Cut(strings.TrimSpace(h), " ")
	if !found || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// readBody reads the whole request body up to the configured limit.
func (s *Server) readBody(r *http.Request) ([]byte, error) {
	if r.ContentLength > s.MaxBodyBytes {
		return nil, s.tooLarge()
	}
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, s.MaxBodyBytes+1))
	if err != nil {
		return nil, market.Errorf(market.KindInvalid, "could not read the request body")
	}
	if int64(len(body)) > s.MaxBodyBytes {
		return nil, s.tooLarge()
	}
	return body, nil
}

// idBody reads the body {"id": "..."} of the POSTs that act on one of
// the client's resources (an alert, a screen); what names it in the error.
func (s *Server) idBody(r *http.Request, what string) (string, error) {
	body, err := s.readBody(r)
	if err != nil {
		return "", err
	}
	var req struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(body, &req); err != nil || req.ID == "" {
		return "", market.Errorf(market.KindInvalid, `the body must be {"id": "<%s id>"}`, what)
	}
	return req.ID, nil
}

func (s *Server) tooLarge() error {
	return market.Errorf(market.KindTooLarge, "request bodies are limited to %d bytes", s.MaxBodyBytes)
}
