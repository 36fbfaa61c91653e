package api

import (
	"encoding/json"
	"net/http"

	"mdqs/internal/auth"
	"mdqs/internal/market"
)

type tokenRequest struct {
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret"`
}

// tokenData is spec 2.2, and signature_versions beside it: the
// X-Signature-Version values the server accepts ([1,2], or [2] with
// auth.signature_v1 = false), so a client signs with 2 when it may.
type tokenData struct {
	Token             string `json:"token"`
	ExpireAt          string `json:"expire_at"`
	EnableLog         bool   `json:"enable_log"`
	TokenBytes        int    `json:"token_bytes"`
	SignatureVersions []int  `json:"signature_versions"`
}

// handleToken is POST /v1/auth/token (and its alias /v1/api/token).
func (s *Server) handleToken(w http.ResponseWriter, r *http.Request) error {
	addr := addrKey(r)
	if wait, ok := s.tokenLimits.take(r.Context(), addr); !ok {
		return rateLimited("this address", wait)
	}
	body, err := s.readBody(r)
	if err != nil {
		return err
	}
	var req tokenRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return market.Errorf(market.KindInvalid, `the body must be a JSON object {"client_id": "...", "client_secret": "..."}`)
	}
	switch {
	case req.ClientID == "":
		return market.Errorf(market.KindInvalid, "client_id is required")
	case req.ClientSecret == "":
		return market.Errorf(market.KindInvalid, "client_secret is required")
	}
	if err := s.secretGuessing(addr, req.ClientID); err != nil {
		return err
	}
	issued, err := s.Auth.IssueToken(r.Context(), req.ClientID, req.ClientSecret)
	if err != nil {
		if market.KindOf(err) == market.KindUnauthorized {
			s.badSecrets.take(r.Context(), req.ClientID)
			s.badSecretsAt.take(r.Context(), addr)
		}
		return err
	}
	if issued.EnableLog {
		identify(w, auth.Principal{ClientID: req.ClientID, EnableLog: true}) // logged as the client it was issued to
	}
	w.Header()["X-Signature-Versions"] = s.Auth.SignatureVersionsHeader()
	return ok(w, tokenData{
		Token:             issued.Token,
		ExpireAt:          market.FormatTime(issued.ExpiresAt),
		EnableLog:         issued.EnableLog,
		TokenBytes:        len(issued.Token),
		SignatureVersions: s.Auth.SignatureVersions(),
	})
}

// secretGuessing decides, before any key derivation, whether a secret is
// checked at all. An address that has spent its budget of wrong secrets
// is refused outright. A client id whose budget is spent (wrong secrets
// from anywhere) is still served to an address with no recent failures:
// the owner's right secret from a clean address gets its token however
// many guesses others made, while each guessing address gets one more
// checked guess per refill of its own budget.
func (s *Server) secretGuessing(addr, clientID string) error {
	if wait, empty := s.badSecretsAt.spent(addr); empty {
		return &market.Error{Kind: market.KindRateLimited, Message: "too many requests",
			Detail: "too many wrong secrets from this address; no secret is checked from it, for any client_id, " +
				"until retry_after (seconds) has passed",
			RetryAfter: wait}
	}
	wait, empty := s.badSecrets.empty(clientID)
	if !empty || s.badSecretsAt.clean(addr) {
		return nil
	}
	s.badSecrets.rejected.Add(1)
	return &market.Error{Kind: market.KindRateLimited, Message: "too many requests",
		Detail: "too many wrong secrets for client_id " + clientID + " (from several addresses), and this address has sent wrong secrets too; " +
			"its secrets are not checked until retry_after (seconds) has passed (an address with no recent failures is served)",
		RetryAfter: wait}
}

type whoami struct {
	ClientID  string   `json:"client_id"`
	Scopes    []string `json:"scopes"`
	ExpireAt  string   `json:"expire_at"`
	EnableLog bool     `json:"enable_log"`
}

// handleWhoami is GET /v1/api/whoami: who the token belongs to and what it
// may do. Scripts use it to check their signing before real calls.
func (s *Server) handleWhoami(w http.ResponseWriter, r *http.Request) error {
	p := principal(w)
	scopes := []string{}
	for _, sc := range auth.AllScopes() {
		if p.Allows(sc) {
			scopes = append(scopes, string(sc))
		}
	}
	return ok(w, whoami{ClientID: p.ClientID, Scopes: scopes, ExpireAt: market.FormatTime(p.ExpiresAt), EnableLog: p.EnableLog})
}
