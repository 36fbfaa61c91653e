package auth

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"mdqs/cache"
	"mdqs/internal/market"
)

// Store is what the service needs from storage (db.Store provides it).
type Store interface {
	Client(ctx context.Context, id string) (Client, error)
	InsertToken(ctx context.Context, t Token, max int) (evicted []string, err error)
	TokenByHash(ctx context.Context, hash string) (Token, Client, error)
	AuthRevision(ctx context.Context) (int64, error)
	PurgeExpiredTokens(ctx context.Context, now time.Time) (int64, error)
	// RecordNonce records a signed request's nonce key until expires and
	// reports whether it was fresh, for every process on the store.
	RecordNonce(ctx context.Context, key string, expires, now time.Time) (fresh bool, err error)
	LiveNonces(ctx context.Context, now time.Time) ([]RecordedNonce, error)
	PurgeNonces(ctx context.Context, now time.Time) (int64, error)
}

// RecordedNonce is a nonce the store holds until Expires.
type RecordedNonce struct {
	Key     string
	Expires time.Time
}

// SignatureMode is auth.signature in the configuration.
type SignatureMode string

const (
	SignatureRequired SignatureMode = "required"
	SignatureOptional SignatureMode = "optional" // checked only when the headers are present
	SignatureOff      SignatureMode = "off"
)

// Config holds the access rules' limits.
type Config struct {
	TokenTTL           time.Duration
	MaxTokensPerClient int
	Signature          SignatureMode
	MaxClockSkew       time.Duration
	NonceCapacity      int
	TokenCacheSize     int
	// RevocationCheck is how often a request may look for client changes
	// made by another process; it bounds how long a disabled client's
	// cached tokens keep working.
	RevocationCheck time.Duration
	KDF             KDFParams
	// SharedStore says that several processes may serve the store (a
	// team on PostgreSQL): every nonce is recorded in it, so a nonce one
	// instance accepted every other refuses, whatever Redis does, and a
	// restart forgets nothing. Otherwise this process's memory holds the
	// nonces, and the store only those dated ahead of the clock (see
	// StartedAt).
	SharedStore bool
	// StartedAt is when replay protection began for a lone server: a
	// request signed in an earlier second is refused, since the memory
	// that would know it started empty. Zero: the clock's time when New
	// runs. serve passes the next whole second and listens only from then,
	// so no request the previous process accepted can carry an acceptable
	// timestamp unless it was dated ahead of that process's clock, and
	// those the store recorded (Restore loads them).
	StartedAt time.Time
	// RefuseSignatureV1 refuses the specification's MD5 signature
	// (auth.signature_v1 = false): a signed request must use version 2.
	RefuseSignatureV1 bool
}

// Service issues tokens and authenticates requests.
//
// Token lookups are served from memory: a ristretto cache of sessions keyed
// by token hash, falling back to SQLite on a miss. A cached session must
// never outlive a revocation, so each carries the generation of its client
// (bumped when one of the client's tokens is evicted) and the epoch of the
// whole table (bumped when another process changes any client); a session
// from an older generation or epoch is a miss.
type Service struct {
	store  Store
	clock  market.Clock
	cfg    Config
	cache  *cache.Cache[session]
	nonces *NonceSet // every nonce this process accepted, while live
	// evicted: tokens dropped for the per-client limit, so their 401
	// says so (the store no longer knows them).
	evicted evictedSet
	kdf     chan struct{} // bounds concurrent argon2 runs (19 MiB each)
	dummy   func() string // a hash to verify against for unknown clients
	// notBefore: a lone server's set is empty after a restart, so a
	// request signed before the start (see Config.StartedAt) could be a
	// replay and is refused. Zero with a shared store, which records every
	// nonce.
	notBefore int64

	mu        sync.RWMutex
	gens      map[string]uint64
	evictions atomic.Uint64 // bumped before any client generation moves
	epoch     atomic.Uint64
	revision  atomic.Int64
	nextCheck atomic.Int64 // Unix ns of the next revision check
}

type session struct {
	clientID      string
	scopes        Scopes
	enableLog     bool
	apiKeyHash    string
	tokenExpires  time.Time
	clientExpires time.Time // zero: never
	gen, epoch    uint64
}

// Principal is an authenticated request's identity.
type Principal struct {
	ClientID   string
	Scopes     Scopes
	EnableLog  bool
	TokenHash  string
	ExpiresAt  time.Time
	apiKeyHash string
}

// Issued is the answer to a token request.
type Issued struct {
	Token     string
	ExpiresAt time.Time
	EnableLog bool
}

func New(store Store, clock market.Clock, cfg Config) (*Service, error) {
	c, err := cache.New[session](cache.Config{Name: "tokens", MaxCost: int64(cfg.TokenCacheSize), Entries: int64(cfg.TokenCacheSize)})
	if err != nil {
		return nil, err
	}
	if cfg.KDF == (KDFParams{}) {
		cfg.KDF = DefaultKDF
	}
	var notBefore int64
	if !cfg.SharedStore {
		notBefore = clock.Now().Unix()
		if !cfg.StartedAt.IsZero() {
			notBefore = cfg.StartedAt.Unix()
		}
	}
	s := &Service{
		store: store, clock: clock, cfg: cfg, cache: c,
		nonces:    NewNonceSet(cfg.NonceCapacity),
		notBefore: notBefore,
		kdf:       make(chan struct{}, runtime.GOMAXPROCS(0)),
		gens:      map[string]uint64{},
	}
	s.dummy = sync.OnceValue(func() string {
		h, _ := HashSecret("mdqs-timing-equaliser", cfg.KDF)
		return h
	})
	return s, nil
}

// Close releases the token cache. Call it after the HTTP server has stopped.
func (s *Service) Close() { s.cache.Close() }

// CacheStats reports the token cache's counters.
func (s *Service) CacheStats() cache.Stats { return s.cache.Stats() }

// NonceCount is the number of live nonces held.
func (s *Service) NonceCount() int { return s.nonces.Len() }

var errUnauthorized = market.E(market.KindUnauthorized, "unauthorized")

func unauthorized(detail string) error {
	return &market.Error{Kind: market.KindUnauthorized, Message: "unauthorized", Detail: detail}
}

// IssueToken exchanges a client's credentials for a new token. Every failure
// (unknown, disabled or expired client, wrong secret) is the same 401, and
// takes the same time, so a caller cannot probe which client ids exist.
func (s *Service) IssueToken(ctx context.Context, clientID, secret string) (Issued, error) {
	c, err := s.store.Client(ctx, clientID)
	if err != nil && market.KindOf(err) != market.KindNotFound {
		return Issued{}, err
	}
	hash := c.SecretHash
	if err != nil {
		hash = s.dummy()
	}
	ok, verr := s.verify(ctx, secret, hash)
	if verr != nil {
		return Issued{}, verr
	}
	now := s.clock.Now()
	if err != nil || !ok || !c.ActiveAt(now) {
		return Issued{}, errUnauthorized
	}
	text, err := NewToken()
	if err != nil {
		return Issued{}, market.Wrap(market.KindInternal, err, "token")
	}
	expires := now.Add(s.cfg.TokenTTL)
	if !c.ExpiresAt.IsZero() && c.ExpiresAt.Before(expires) {
		expires = c.ExpiresAt
	}
	t := Token{Hash: HashToken(text), ClientID: c.ID, CreatedAt: now, ExpiresAt: expires}
	epoch := s.epoch.Load()
	evicted, err := s.store.InsertToken(ctx, t, s.cfg.MaxTokensPerClient)
	if err != nil {
		return Issued{}, err
	}
	if len(evicted) > 0 {
		// No evicted token outlives the TTL from now, whenever it was issued.
		s.evicted.add(evicted, now.Add(s.cfg.TokenTTL), now)
		s.revoke(c.ID, evicted)
	}
	// The new token's session goes into the cache now: its first call
	// needs no store read, and a limit on unknown tokens (which spares the
	// tokens the cache holds) never stands in its way. Generation and epoch
	// as of now: a revocation from here on makes the entry stale, as it
	// would an entry Authenticate made.
	if gen := s.gen(c.ID); s.epoch.Load() == epoch {
		sess := session{clientID: c.ID, scopes: c.Scopes, enableLog: c.EnableLog, apiKeyHash: c.APIKeyHash,
			tokenExpires: expires, clientExpires: c.ExpiresAt, gen: gen, epoch: epoch}
		s.cache.SetSync(t.Hash, sess, 1, expires.Sub(now)+time.Second)
	}
	return Issued{Token: text, ExpiresAt: expires, EnableLog: c.EnableLog}, nil
}

func (s *Service) verify(ctx context.Context, secret, hash string) (bool, error) {
	select {
	case s.kdf <- struct{}{}:
	case <-ctx.Done():
		return false, market.Wrap(market.KindUnavailable, ctx.Err(), "busy")
	}
	defer func() { <-s.kdf }()
	ok, err := VerifySecret(secret, hash)
	if err != nil {
		// A stored hash we cannot read is our fault, not the caller's.
		return false, market.Wrap(market.KindInternal, err, "secret hash")
	}
	return ok, nil
}

// revoke invalidates cached sessions of evicted tokens. The eviction counter
// moves before the generation, so a lookup that raced the eviction sees the
// counter move and does not cache what it read.
func (s *Service) revoke(clientID string, hashes []string) {
	s.evictions.Add(1)
	s.mu.Lock()
	s.gens[clientID]++
	s.mu.Unlock()
	for _, h := range hashes {
		s.cache.Del(h)
	}
}

func (s *Service) gen(clientID string) uint64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.gens[clientID]
}

// Authenticate resolves a bearer token to its principal.
func (s *Service) Authenticate(ctx context.Context, token string) (Principal, error) {
	if !isTokenText(token) {
		return Principal{}, unauthorized("malformed token")
	}
	s.checkRevision(ctx)
	now := s.clock.Now()
	hash := HashToken(token)
	if sess, ok := s.cache.Get(hash); ok && sess.epoch == s.epoch.Load() && sess.gen == s.gen(sess.clientID) {
		return sess.principal(hash, now)
	}
	evictions, epoch := s.evictions.Load(), s.epoch.Load()
	t, c, err := s.store.TokenByHash(ctx, hash)
	if market.KindOf(err) == market.KindNotFound {
		if s.evicted.has(hash, now) {
			return Principal{}, unauthorized(evictedDetail(s.cfg.MaxTokensPerClient))
		}
		return Principal{}, unauthorized(detailTokenUnknown)
	}
	if err != nil {
		return Principal{}, err
	}
	if !c.Enabled {
		return Principal{}, unauthorized("client disabled")
	}
	sess := session{
		clientID: c.ID, scopes: c.Scopes, enableLog: c.EnableLog, apiKeyHash: c.APIKeyHash,
		tokenExpires: t.ExpiresAt, clientExpires: c.ExpiresAt, gen: s.gen(c.ID), epoch: epoch,
	}
	if s.evictions.Load() == evictions {
		if ttl := t.ExpiresAt.Sub(now); ttl > 0 {
			// Waits until it is stored: a script's next signed call comes at
			// once and must find it (ristretto applies a plain Set later, and
			// under load that next call read the store again).
			s.cache.SetSync(hash, sess, 1, ttl+time.Second)
		}
	}
	return sess.principal(hash, now)
}

// Cached reports whether token is one the cache holds: a known caller,
// whom a limit on unknown tokens must not slow down.
func (s *Service) Cached(token string) bool {
	if !isTokenText(token) {
		return false
	}
	_, ok := s.cache.Get(HashToken(token))
	return ok
}

func (sess session) principal(hash string, now time.Time) (Principal, error) {
	if !now.Before(sess.tokenExpires) {
		return Principal{}, unauthorized(detailTokenExpired)
	}
	if !sess.clientExpires.IsZero() && !now.Before(sess.clientExpires) {
		return Principal{}, unauthorized("client expired")
	}
	return Principal{
		ClientID: sess.clientID, Scopes: sess.scopes, EnableLog: sess.enableLog,
		TokenHash: hash, ExpiresAt: sess.tokenExpires, apiKeyHash: sess.apiKeyHash,
	}, nil
}

// checkRevision notices client changes made by other processes (mdqs client
// disable on the same file), at most once per RevocationCheck, by one
// request at a time.
func (s *Service) checkRevision(ctx context.Context) {
	now := time.Now().UnixNano() // pacing only: real time, whatever the market clock says
	next := s.nextCheck.Load()
	if now < next || !s.nextCheck.CompareAndSwap(next, now+int64(s.cfg.RevocationCheck)) {
		return
	}
	rev, err := s.store.AuthRevision(ctx)
	if err != nil {
		return // keep serving; the next check retries
	}
	if old := s.revision.Swap(rev); old != rev {
		s.epoch.Add(1)
	}
}

func isTokenText(t string) bool {
	if len(t) != 64 {
		return false
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// Allows reports whether the principal holds scope.
func (p Principal) Allows(scope Scope) bool { return p.Scopes.Has(scope) }

// CheckAPIKey enforces the api-key header for clients that have a key; for
// the others the header is ignored.
func (p Principal) CheckAPIKey(header string) error {
	if p.apiKeyHash == "" {
		return nil
	}
	if header == "" || !EqualHashes(HashToken(header), p.apiKeyHash) {
		return unauthorized("missing or wrong api-key")
	}
	return nil
}

// Signed carries the signature headers of a request, and what version 2
// signs of the request itself.
type Signed struct {
	Timestamp string
	Nonce     string
	Signature string
	// Version is X-Signature-Version: "" or "1" the MD5 form, "2" HMAC-SHA256.
	Version string
	// Method, Path and Query are the request as sent: the method, and the
	// request target's path (%-escapes untouched) and query string (without
	// its '?'), as RequestTarget splits it. Only version 2 reads them.
	Method, Path, Query string
}

func (h Signed) empty() bool { return h.Timestamp == "" && h.Nonce == "" && h.Signature == "" }

// VerifySignature applies the configured signature mode to a request: the
// MD5 must match, the timestamp must be within MaxClockSkew of the server's
// clock (both ways), and the nonce must not have been used with this token
// while its timestamp could still pass. The nonce is recorded only once
// everything else has passed, so forged requests cannot burn nonces.
func (s *Service) VerifySignature(ctx context.Context, p Principal, token string, h Signed, body []byte) error {
	switch s.cfg.Signature {
	case SignatureOff:
		return nil
	case SignatureOptional:
		if h.empty() {
			return nil
		}
	}
	if h.Timestamp == "" || h.Nonce == "" || h.Signature == "" {
		return unauthorized("X-Timestamp, X-Nonce and X-Signature are required")
	}
	ts, ok := parseTimestamp(h.Timestamp)
	if !ok {
		return unauthorized("X-Timestamp must be epoch seconds")
	}
	if !validNonce(h.Nonce) {
		return unauthorized("X-Nonce must be 1-128 visible ASCII characters")
	}
	if err := s.checkSignature(token, h, body); err != nil {
		return err
	}
	now := s.clock.Now()
	// Whole seconds on both sides: X-Timestamp has no finer unit, and
	// comparing it with the server's instant would make a timestamp 60 s
	// behind fail whenever the server is part-way through its second
	// while 60 s ahead passes.
	maxSkew := int64(s.cfg.MaxClockSkew / time.Second)
	if skew := now.Unix() - ts.Unix(); skew > maxSkew || skew < -maxSkew {
		if ts.Unix() > 1e11 {
			return unauthorized("X-Timestamp looks like milliseconds; send epoch seconds")
		}
		return unauthorized(fmt.Sprintf("X-Timestamp is %+d s off the server clock; the allowed skew is %d s either way", -skew, maxSkew))
	}
	if ts.Unix() < s.notBefore {
		return unauthorized(fmt.Sprintf("X-Timestamp %d is before this server started (%d): replay protection begins with the process, "+
			"so a request signed before a restart is refused; sign it again with the current time", ts.Unix(), s.notBefore))
	}
	// The timestamp passes until the server's second is maxSkew past it.
	return s.recordNonce(ctx, p.TokenHash[:32]+h.Nonce, ts, ts.Add(time.Duration(maxSkew+1)*time.Second), now)
}

// recordNonce accepts a nonce at most once. The store decides first
// wherever another process could have seen it: on a shared store every
// nonce; on a lone server those dated ahead of its clock, the only ones
// the start-up rule cannot refuse after a restart. Then this process's
// own set, which holds every nonce it accepted until the timestamp can no
// longer pass, whatever the store forgets. Nothing is recorded for a
// request the store could not answer, so its retry is not a replay.
func (s *Service) recordNonce(ctx context.Context, key string, ts, expires, now time.Time) error {
	if s.cfg.SharedStore || ts.Unix() > now.Unix() {
		fresh, err := s.store.RecordNonce(ctx, key, expires, now)
		if err != nil {
			cause := "the store failed"
			if me := (*market.Error)(nil); errors.As(err, &me) && me.Detail != "" {
				cause = me.Detail
			}
			return &market.Error{Kind: market.KindUnavailable, Message: market.DefaultMessage(market.KindUnavailable),
				Detail: "replay protection could not record this request's nonce in the store (" + storeWhy(s.cfg.SharedStore) + "): " +
					cause + "; retry shortly", RetryAfter: time.Second, Err: err}
		}
		if !fresh {
			return unauthorized("nonce already used")
		}
	}
	added, err := s.nonces.Add(key, expires, now)
	if errors.Is(err, ErrNonceSetFull) {
		return market.Errorf(market.KindUnavailable, "too many signed requests in the replay window; retry shortly")
	}
	if err != nil {
		return market.Errorf(market.KindUnavailable, "replay protection: %v", err)
	}
	if !added {
		return unauthorized("nonce already used")
	}
	return nil
}

func storeWhy(shared bool) string {
	if shared {
		return "every instance of a team records each nonce there"
	}
	return "a request dated ahead of the server's clock is recorded there, so a restart cannot accept it again"
}

// Restore loads the nonces the store holds into this process's set, so a
// lone server refuses after a restart what the previous process accepted
// with a timestamp ahead of its clock. serve calls it before listening.
// On a shared store it does nothing: the store answers every request.
func (s *Service) Restore(ctx context.Context) (int, error) {
	if s.cfg.SharedStore {
		return 0, nil
	}
	now := s.clock.Now()
	live, err := s.store.LiveNonces(ctx, now)
	if err != nil {
		return 0, err
	}
	for _, n := range live {
		if _, err := s.nonces.Add(n.Key, n.Expires, now); err != nil {
			return 0, err
		}
	}
	return len(live), nil
}

// PurgeExpired deletes expired tokens and forgets expired nonces; a job
// runs it periodically.
func (s *Service) PurgeExpired(ctx context.Context) (int64, error) {
	now := s.clock.Now()
	s.nonces.Sweep(now)
	if _, err := s.store.PurgeNonces(ctx, now); err != nil {
		return 0, err
	}
	return s.store.PurgeExpiredTokens(ctx, now)
}
