package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"
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
