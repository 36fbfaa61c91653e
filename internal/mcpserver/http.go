package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mdqs/internal/auth"
	"mdqs/internal/client"
	"mdqs/internal/market"
)

// HTTPOptions configure /mcp's handler.
type HTTPOptions struct {
	Options
	// SessionIdle closes a session without a request for this long
	// (mcp.session_idle).
	SessionIdle time.Duration
	// MaxBodyBytes bounds a request's body (server.max_body_bytes).
	MaxBodyBytes int64
}

// NewHTTP is the handler api mounts at /mcp, behind its door: the server's
// tools call api, the server's own root handler, in-process, as the
// caller whose verified bearer the door put in the request's context.
//
// The SDK's own protection against DNS rebinding (a loopback listener
// refusing a Host that is not) is off: the server's Host check
// (server.allowed_hosts, 421) runs before any route and knows the names
// the operator allowed, and the door checks Origin as MCP asks.
func NewHTTP(api http.Handler, o HTTPOptions) http.Handler {
	if o.Clock == nil {
		o.Clock = market.SystemClock{}
	}
	srv := New(inProcess{api: api, clock: o.Clock}, o.Options)
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		SessionTimeout: o.SessionIdle, DisableLocalhostProtection: true, MaxRequestBodyBytes: o.MaxBodyBytes, Logger: log})
	// The SDK binds a session to the user of the request that opened it:
	// the client, so a session outlives the renewal of its token but no
	// other client can use it. Expiry is the door's (the server's clock),
	// not the SDK's wall clock.
	return sdkauth.RequireBearerToken(func(ctx context.Context, token string, r *http.Request) (*sdkauth.TokenInfo, error) {
		b, ok := auth.BearerFrom(r.Context())
		if !ok || b.Token != token {
			return nil, sdkauth.ErrInvalidToken
		}
		return &sdkauth.TokenInfo{UserID: b.Principal.ClientID, Extra: map[string]any{bearerExtra: b}}, nil
	}, &sdkauth.RequireBearerTokenOptions{AllowMissingExpiration: true})(h)
}

// inProcess calls the API's handler without a network: a request signed
// for the caller with its own token (version 2, which every server
// accepts), from its address, so the API authenticates, limits and
// checks it as it would the caller's own.
type inProcess struct {
	api   http.Handler
	clock market.Clock
}

var errNoCaller = errors.New("no verified caller: /mcp's door hands each request its bearer token")

func (p inProcess) Do(ctx context.Context, method, target string, body []byte) (*client.Response, error) {
	b, ok := auth.BearerFrom(ctx)
	if !ok {
		return nil, errNoCaller
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://127.0.0.1"+target, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.RemoteAddr = b.RemoteAddr
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	c := &client.Client{Now: p.clock.Now, APIKey: b.APIKey, SignatureVersion: client.SignatureV2}
	if err := c.SignRequest(req, b.Token, body); err != nil {
		return nil, err
	}
	w := &recorder{header: http.Header{}}
	p.api.ServeHTTP(w, req)
	return &client.Response{Status: cmpStatus(w.status), Header: w.header, Body: w.body.Bytes()}, nil
}

// recorder is the response writer of an in-process call.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (w *recorder) Header() http.Header { return w.header }
func (w *recorder) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.body.Write(b)
}
func (w *recorder) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}

func cmpStatus(s int) int {
	if s == 0 {
		return http.StatusOK
	}
	return s
}
