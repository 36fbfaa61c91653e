package auth

import (
	"fmt"
	"strings"
	"sync"
	"time"
)

// The details of a 401 about the token itself: a fresh token cures these,
// and only these (TokenRenewable). Clients match them, so they are part of
// the interface, though the spec fixes only the message.
const (
	detailTokenUnknown = "unknown, expired or revoked token"
	detailTokenExpired = "token expired"
	detailTokenEvicted = "token evicted"
)

// TokenRenewable reports whether a 401's detail says the token is gone
// (expired, evicted, revoked or unknown to this server), which a new token
// cures. Any other 401 (signature, nonce, clock, api-key, a disabled client)
// would fail the same way with a new token, and asking for one would only
// evict another of the client's tokens.
func TokenRenewable(detail string) bool {
	return detail == detailTokenUnknown || detail == detailTokenExpired || strings.HasPrefix(detail, detailTokenEvicted+":")
}

func evictedDetail(max int) string {
	return fmt.Sprintf("%s: the client has more than %d live tokens (each new one evicts the oldest); reuse a token until it expires",
		detailTokenEvicted, max)
}

// maxEvictedRecords bounds the memory the eviction record may take (about
// 100 bytes an entry); past it, an evicted token gets the generic detail.
const maxEvictedRecords = 10_000

// evictedSet remembers the tokens evicted for the per-client limit until
// they would have expired, so their 401 can say why: the store deletes an
// evicted token, and then it looks like any unknown one. It is memory only:
// after a restart an evicted token gets the generic detail.
type evictedSet struct {
	mu    sync.Mutex
	until map[string]time.Time // token hash → when it would have expired
}

func (e *evictedSet) add(hashes []string, until, now time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.until == nil {
		e.until = map[string]time.Time{}
	}
	if len(e.until)+len(hashes) > maxEvictedRecords {
		for h, u := range e.until {
			if !now.Before(u) {
				delete(e.until, h)
			}
		}
	}
	for _, h := range hashes {
		if len(e.until) >= maxEvictedRecords {
			return
		}
		e.until[h] = until
	}
}

func (e *evictedSet) has(hash string, now time.Time) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	u, ok := e.until[hash]
	return ok && now.Before(u)
}
