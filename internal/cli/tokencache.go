package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"mdqs/internal/auth"
	"mdqs/internal/client"
	"mdqs/internal/market"
)

// tokenCache keeps the token `mdqs call` last obtained for one server
// address and client in a file of its own, so consecutive calls (a shell
// loop) reuse it instead of asking for a token each time: the token
// endpoint is rate limited, and each new token evicts the client's oldest
// once it holds 20, which would break the client's other scripts.
//
// The file holds the token, its expiry and the signature versions the
// server listed with it, nothing else (not the secret, which stays with the
// caller); it is the user's alone (0600 in a 0700 folder), since the token
// is a credential until it expires.
type tokenCache struct {
	path string
}

// cachedToken is the file's content.
type cachedToken struct {
	Token   string    `json:"token"`
	Expires time.Time `json:"expires"`
	// SignatureVersions the server accepts, from its token answer; absent
	// in files written before version 2 (the client then signs with 1
	// until a 401 lists the versions).
	SignatureVersions []int `json:"signature_versions,omitempty"`
}

// tokenKeeper keeps a client's token in its cache file: loaded before
// the first call, saved after a call got a new one, dropped when the
// server refused it. mdqs call keeps it once; mdqs mcp after each call of
// a session (calls may run at once: mu).
type tokenKeeper struct {
	mu     sync.Mutex
	cache  tokenCache
	cached cachedToken
	note   func(format string, args ...any)
}

// keepTokens gives c the cached token of its address and client, if
// any; nil when there is no cache folder (note says why).
func keepTokens(env Env, c *client.Client, clientID string, note func(string, ...any)) *tokenKeeper {
	dir, err := tokenCacheDir(env)
	if err != nil {
		note("token cache: none (%v)", err)
		return nil
	}
	k := &tokenKeeper{cache: newTokenCache(dir, c.BaseURL, clientID), note: note}
	if t, ok := k.cache.load(); ok {
		k.cached = t
		c.SetToken(t.Token, t.Expires)
		c.SetSignatureVersions(t.SignatureVersions)
	}
	return k
}

// keep brings the file in line with the token c holds after a call that
// answered resp (nil: no answer); prog names the command in a warning.
func (k *tokenKeeper) keep(env Env, c *client.Client, resp *client.Response, prog string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	held, expires := c.HeldToken()
	versions := c.SignatureVersions()
	switch {
	case held == "" || (resp != nil && resp.Status == http.StatusUnauthorized && auth.TokenRenewable(detailOf(resp))):
		// Refused (or refused again after renewal): keep nothing the
		// server no longer takes.
		if k.cached.Token != "" {
			k.cache.drop()
			k.cached = cachedToken{}
		}
	case held == k.cached.Token:
		k.note("token: reused from %s (expires %s)", k.cache.path, market.FormatTime(expires))
		if !slices.Equal(versions, k.cached.SignatureVersions) {
			// Learnt from a 401 (the server's setting changed): keep it.
			k.cached.SignatureVersions = versions
			k.cache.save(k.cached)
		}
	default:
		t := cachedToken{Token: held, Expires: expires, SignatureVersions: versions}
		if serr := k.cache.save(t); serr != nil {
			fmt.Fprintf(env.Stderr, "%s: the token could not be cached (%v); the next call asks for a new one\n", prog, serr)
		} else {
			k.cached = t
			k.note("token: new, cached in %s (expires %s)", k.cache.path, market.FormatTime(expires))
		}
	}
}

// tokenCacheDir is the folder of the token files under the user's cache.
func tokenCacheDir(env Env) (string, error) {
	if env.CacheDir == nil {
		return "", errors.New("no cache folder")
	}
	base, err := env.CacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(base, "mdqs", "tokens"), nil
}

// newTokenCache names the file of one address (a base URL) and client. The
// name is a hash, so the folder does not list which servers and clients
// the user talks to.
func newTokenCache(dir, baseURL, clientID string) tokenCache {
	sum := sha256.Sum256([]byte(baseURL + "\n" + clientID))
	return tokenCache{path: filepath.Join(dir, hex.EncodeToString(sum[:16])+".json")}
}

// load returns the cached token, if a well-formed one is there.
func (c tokenCache) load() (cachedToken, bool) {
	b, err := os.ReadFile(c.path)
	if err != nil {
		return cachedToken{}, false
	}
	var t cachedToken
	if json.Unmarshal(b, &t) != nil || !isTokenText(t.Token) || t.Expires.IsZero() {
		return cachedToken{}, false
	}
	return t, true
}

// save replaces the file whole (a temporary file renamed over it), so a
// concurrent call never reads half a token.
func (c tokenCache) save(t cachedToken) error {
	dir := filepath.Dir(c.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	// A folder made earlier by something else may be wider than ours.
	if err := os.Chmod(dir, 0o700); err != nil {
		return err
	}
	b, err := json.Marshal(t)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".token-*") // created 0600
	if err != nil {
		return err
	}
	_, werr := f.Write(b)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), c.path); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}

// drop forgets a token the server no longer takes.
func (c tokenCache) drop() error {
	if err := os.Remove(c.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// isTokenText is the token's form: 64 lowercase hex digits.
func isTokenText(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
