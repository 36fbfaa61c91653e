// Package auth holds the service's access rules: clients and their secrets,
// access tokens, request signatures, replay protection and scopes. It knows
// nothing of HTTP or SQL; the API layer feeds it header values and the db
// package stores its records.
package auth

import "time"

// Client is a registered API consumer. Secrets and API keys are stored only
// as hashes.
type Client struct {
	ID         string
	SecretHash string // argon2id, PHC string form
	Scopes     Scopes
	Enabled    bool
	ExpiresAt  time.Time // zero: never expires
	APIKeyHash string    // hex SHA-256 of the api-key header value; empty: none
	EnableLog  bool
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// ActiveAt reports whether the client may obtain and use tokens at t.
func (c Client) ActiveAt(t time.Time) bool {
	return c.Enabled && (c.ExpiresAt.IsZero() || t.Before(c.ExpiresAt))
}

// Token is an issued access token. Only its SHA-256 is ever stored.
type Token struct {
	Hash      string // hex SHA-256 of the token text
	ClientID  string
	CreatedAt time.Time
	ExpiresAt time.Time
}

// ClientInfo is a client as `mdqs client list` shows it.
type ClientInfo struct {
	Client
	LiveTokens int
}
