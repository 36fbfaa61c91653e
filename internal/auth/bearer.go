package auth

import "context"

// Bearer is a request's bearer token once a door has verified it: the
// token itself, the api-key header that came with it, the caller's
// address and what the token stands for. /mcp takes a bare token, and
// the MCP tools behind it call the signed API with the same token (they
// sign for the caller, who cannot), from the caller's address, so that
// every check of the API (scopes, limits, api-key) is the caller's own.
type Bearer struct {
	Token      string
	APIKey     string
	RemoteAddr string
	Principal  Principal
}

type bearerKey struct{}

// WithBearer is ctx carrying a verified bearer.
func WithBearer(ctx context.Context, b Bearer) context.Context {
	return context.WithValue(ctx, bearerKey{}, b)
}

// BearerFrom is the verified bearer ctx carries, if any.
func BearerFrom(ctx context.Context) (Bearer, bool) {
	b, ok := ctx.Value(bearerKey{}).(Bearer)
	return b, ok
}
