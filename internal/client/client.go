// Package client is the reference Go client of mdqs: it obtains a token with
// a client id and secret and signs every request: with signature version 2
// (an HMAC-SHA256 that binds method, path, query and body) when the server's
// token answer lists it, else as the spec's part 5 says (version 1, MD5).
// `mdqs call` is built on it, and so are the end-to-end tests.
package client

import (
	"bufio"
	"bytes"
	"context"
	"crypto/md5"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Client talks to one mdqs server as one API client.
type Client struct {
	BaseURL string // e.g. http://127.0.0.1:8080
	ID      string
	Secret  string
	APIKey  string // sent as the api-key header when set
	HTTP    *http.Client
	// Now stamps X-Timestamp; tests move it to exercise the skew rule.
	Now func() time.Time
	// Renew decides whether a 401 answer is worth a fresh token and one
	// retry. nil: any 401 (the held token may have been evicted). A caller
	// that knows the server's details can spare the client's other tokens:
	// each new one may evict the oldest.
	Renew func(*Response) bool
	// SignatureVersion forces a signature version (1 or 2); 0 chooses: 2
	// when the server accepts it, else 1.
	SignatureVersion int

	mu      sync.Mutex
	token   string
	expires time.Time
	// versions are the signature versions the server accepts, from its
	// token answer (signature_versions) or a 401's X-Signature-Versions;
	// nil: not known (a server before version 2), so version 1.
	versions []int
}

// New returns a client for base, which may be "host:port" or a URL.
func New(base, id, secret string) *Client {
	if !strings.Contains(base, "://") {
		base = "http://" + base
	}
	return &Client{
		BaseURL: strings.TrimRight(base, "/"),
		ID:      id, Secret: secret,
		HTTP: &http.Client{Timeout: 30 * time.Second},
		Now:  time.Now,
	}
}

// Response is a server answer.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Envelope decodes the spec's envelope of a response.
func (r *Response) Envelope() (code int, message string, data json.RawMessage, err error) {
	var env struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
	err = json.Unmarshal(r.Body, &env)
	return env.Code, env.Message, env.Data, err
}

// TokenData is the data of a token response (spec 2.2), and the signature
// versions the server accepts (our addition; absent from older servers).
type TokenData struct {
	Token             string `json:"token"`
	ExpireAt          string `json:"expire_at"`
	EnableLog         bool   `json:"enable_log"`
	TokenBytes        int    `json:"token_bytes"`
	SignatureVersions []int  `json:"signature_versions,omitempty"`
}

// TokenError is a refused token request; Response is the server's answer.
type TokenError struct{ Response *Response }

func (e *TokenError) Error() string {
	return fmt.Sprintf("token request: HTTP %d: %s", e.Response.Status, bytes.TrimSpace(e.Response.Body))
}

// RequestToken asks for a new token, whatever the client holds.
func (c *Client) RequestToken(ctx context.Context) (TokenData, *Response, error) {
	body, _ := json.Marshal(map[string]string{"client_id": c.ID, "client_secret": c.Secret})
	resp, err := c.send(ctx, http.MethodPost, "/v1/auth/token", body, nil)
	if err != nil {
		return TokenData{}, nil, err
	}
	if resp.Status != http.StatusOK {
		return TokenData{}, resp, &TokenError{Response: resp}
	}
	var env struct {
		Data TokenData `json:"data"`
	}
	if err := json.Unmarshal(resp.Body, &env); err != nil || env.Data.Token == "" {
		return TokenData{}, resp, fmt.Errorf("token request: unexpected reply %s", bytes.TrimSpace(resp.Body))
	}
	return env.Data, resp, nil
}

// Token returns a held token, fetching a new one when none is held or the
// held one is about to expire.
func (c *Client) Token(ctx context.Context) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.token != "" && c.Now().Add(time.Minute).Before(c.expires) {
		return c.token, nil
	}
	td, _, err := c.RequestToken(ctx)
	if err != nil {
		return "", err
	}
	c.token = td.Token
	c.versions = td.SignatureVersions
	// The server's expire_at is its local (Shanghai) time; a parse failure
	// just means we refresh early.
	if loc, err := time.LoadLocation("Asia/Shanghai"); err == nil {
		if t, err := time.ParseInLocation(time.DateTime, td.ExpireAt, loc); err == nil {
			c.expires = t
		}
	}
	if c.expires.IsZero() {
		c.expires = c.Now().Add(time.Hour)
	}
	return c.token, nil
}

// SetToken makes the client use a token obtained earlier, e.g. by another
// process, until shortly before expires.
func (c *Client) SetToken(token string, expires time.Time) {
	c.mu.Lock()
	c.token, c.expires = token, expires
	c.mu.Unlock()
}

// SetSignatureVersions says which signature versions the server accepts,
// as its token answer listed them (a token cache keeps them with the token).
func (c *Client) SetSignatureVersions(versions []int) {
	c.mu.Lock()
	c.versions = versions
	c.mu.Unlock()
}

// SignatureVersions are the versions the server accepts as far as the
// client knows (nil: unknown).
func (c *Client) SignatureVersions() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.versions
}

// Version is the signature version the client signs with: SignatureVersion
// when set, else 2 when the server accepts it, else 1.
func (c *Client) Version() int {
	if c.SignatureVersion != 0 {
		return c.SignatureVersion
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if slices.Contains(c.versions, SignatureV2) {
		return SignatureV2
	}
	return SignatureV1
}

// switchVersion learns from a 401's X-Signature-Versions which versions
// the server accepts; true when the client now signs with another version
// than used (a token cached before the server changed auth.signature_v1).
func (c *Client) switchVersion(r *Response, used int) bool {
	if r.Status != http.StatusUnauthorized || c.SignatureVersion != 0 {
		return false
	}
	vs := parseVersions(r.Header.Get("X-Signature-Versions"))
	if len(vs) == 0 || slices.Contains(vs, used) {
		return false
	}
	c.SetSignatureVersions(vs)
	return c.Version() != used
}

// HeldToken is the token the client holds and its expiry; "" when none.
func (c *Client) HeldToken() (string, time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.token, c.expires
}

// Forget drops the held token, so the next call fetches a fresh one.
func (c *Client) Forget() {
	c.mu.Lock()
	c.token = ""
	c.mu.Unlock()
}

// Do sends a signed request for path (with its query) and body. A 401 is
// retried once with a fresh token (the held one may have expired or been
// evicted) when Renew allows it.
//
// A 401 that lists signature versions without the one used is retried
// once, signed with one it lists.
func (c *Client) Do(ctx context.Context, method, path string, body []byte) (*Response, error) {
	switched := false
	for attempt := 0; ; attempt++ {
		token, err := c.Token(ctx)
		if err != nil {
			return nil, err
		}
		version := c.Version()
		resp, err := c.send(ctx, method, path, body, func(req *http.Request) error { return c.signAs(req, token, body, version) })
		if err == nil && !switched && c.switchVersion(resp, version) {
			switched, attempt = true, attempt-1
			continue
		}
		if err != nil || resp.Status != http.StatusUnauthorized || attempt > 0 || (c.Renew != nil && !c.Renew(resp)) {
			return resp, err
		}
		c.Forget()
	}
}

// Stream sends a signed GET for path (a text/event-stream such as
// /v1/api/stream?topics=...) and hands each line of a 200 answer to line as
// it arrives, without its line break, until the server ends the body, ctx
// is done or line fails. header adds headers (Last-Event-ID). A failure
// answer is returned whole, as Do returns it, a 401 retried as Do does.
// The client's timeout does not apply: a stream lasts.
func (c *Client) Stream(ctx context.Context, path string, header http.Header, line func(string) error) (*Response, error) {
	switched := false
	for attempt := 0; ; attempt++ {
		token, err := c.Token(ctx)
		if err != nil {
			return nil, err
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.BaseURL+path, nil)
		if err != nil {
			return nil, err
		}
		version := c.Version()
		if err := c.signAs(req, token, nil, version); err != nil {
			return nil, err
		}
		for k, v := range header {
			req.Header[k] = v
		}
		req.Header.Set("Accept", "text/event-stream")
		hc := *c.HTTP
		hc.Timeout = 0
		res, err := hc.Do(req)
		if err != nil {
			return nil, err
		}
		r := &Response{Status: res.StatusCode, Header: res.Header}
		if res.StatusCode != http.StatusOK {
			r.Body, err = io.ReadAll(res.Body)
			res.Body.Close()
			if err == nil && !switched && c.switchVersion(r, version) {
				switched, attempt = true, attempt-1
				continue
			}
			if err != nil || r.Status != http.StatusUnauthorized || attempt > 0 || (c.Renew != nil && !c.Renew(r)) {
				return r, err
			}
			c.Forget()
			continue
		}
		defer res.Body.Close()
		br := bufio.NewReader(res.Body)
		for {
			s, err := br.ReadString('\n')
			if s != "" {
				if lerr := line(strings.TrimRight(s, "\r\n")); lerr != nil {
					return r, lerr
				}
			}
			switch {
			case err == io.EOF:
				return r, nil
			case err != nil && ctx.Err() != nil:
				return r, ctx.Err()
			case err != nil:
				return r, err
			}
		}
	}
}

// Sign sets Authorization and the signature headers of version 1 (the
// spec's MD5, which binds neither method nor path nor query) for body.
func (c *Client) Sign(h http.Header, token string, body []byte) {
	ts := strconv.FormatInt(c.Now().Unix(), 10)
	nonce := NewNonce()
	h.Set("Authorization", "Bearer "+token)
	h.Set("X-Timestamp", ts)
	h.Set("X-Nonce", nonce)
	h.Set("X-Signature", Signature(token, ts, nonce, body))
	if c.APIKey != "" {
		h.Set("api-key", c.APIKey)
	}
}

// SignRequest sets Authorization and the signature headers on req, whose
// body is body, with the client's signature version (Version). Version 2
// signs the request target req will send; a query string with a malformed
// %-escape cannot be signed with it (an error).
func (c *Client) SignRequest(req *http.Request, token string, body []byte) error {
	return c.signAs(req, token, body, c.Version())
}

func (c *Client) signAs(req *http.Request, token string, body []byte, version int) error {
	if version != SignatureV2 {
		c.Sign(req.Header, token, body)
		return nil
	}
	ts := strconv.FormatInt(c.Now().Unix(), 10)
	nonce := NewNonce()
	// What net/http writes on the request line: the path's escapes as
	// the URL holds them, and the query.
	path, query, _ := strings.Cut(req.URL.RequestURI(), "?")
	sig, err := SignatureHMAC(token, req.Method, path, query, ts, nonce, body)
	if err != nil {
		return fmt.Errorf("%s %s: signature version 2: %w", req.Method, req.URL.Path, err)
	}
	h := req.Header
	h.Set("Authorization", "Bearer "+token)
	h.Set("X-Timestamp", ts)
	h.Set("X-Nonce", nonce)
	h.Set("X-Signature-Version", "2")
	h.Set("X-Signature", sig)
	if c.APIKey != "" {
		h.Set("api-key", c.APIKey)
	}
	return nil
}

// Signature is md5(token + timestamp + nonce + body) in lowercase hex.
func Signature(token, timestamp, nonce string, body []byte) string {
	sum := md5.Sum(append([]byte(token+timestamp+nonce), body...))
	return hex.EncodeToString(sum[:])
}

// NewNonce returns 16 random bytes in hex.
func NewNonce() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func (c *Client) send(ctx context.Context, method, path string, body []byte, sign func(*http.Request) error) (*Response, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.BaseURL+path, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if sign != nil {
		if err := sign(req); err != nil {
			return nil, err
		}
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: b}, nil
}
