package auth_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/auth"
	"mdqs/internal/market"
)

// process is one mdqs process's auth service on a store others may share.
type process struct {
	svc   *auth.Service
	p     auth.Principal
	token string
}

func startProcess(t *testing.T, store auth.Store, clock market.Clock, shared bool, token string) process {
	t.Helper()
	cfg := auth.Config{TokenTTL: 2 * time.Hour, MaxTokensPerClient: 20, Signature: auth.SignatureRequired,
		MaxClockSkew: 60 * time.Second, NonceCapacity: 1000, TokenCacheSize: 100, RevocationCheck: time.Hour,
		SharedStore: shared, StartedAt: clock.Now()}
	svc, err := auth.New(store, clock, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	if _, err := svc.Restore(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if token == "" {
		iss, err := svc.IssueToken(ctx, "c", "secret-c")
		if err != nil {
			t.Fatal(err)
		}
		token = iss.Token
	}
	p, err := svc.Authenticate(ctx, token)
	if err != nil {
		t.Fatal(err)
	}
	return process{svc: svc, p: p, token: token}
}

func (pr process) verify(ts int64, nonce string) error {
	s := strconv.FormatInt(ts, 10)
	return pr.svc.VerifySignature(context.Background(), pr.p, pr.token,
		auth.Signed{Timestamp: s, Nonce: nonce, Signature: auth.Sign(pr.token, s, nonce, nil)}, nil)
}

// replayStore opens the store at target; the first one made there
// registers client c.
func replayStore(t *testing.T, target string) *db.Store {
	s := dbtest.OpenAt(t, target)
	if c, err := s.Client(context.Background(), "c"); err == nil && c.ID == "c" {
		return s
	}
	h, err := auth.HashSecret("secret-c", auth.KDFParams{MemoryKiB: 64, Time: 1, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutClient(context.Background(), auth.Client{ID: "c", SecretHash: h, Scopes: auth.DefaultScopes(), Enabled: true,
		CreatedAt: t0, UpdatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	return s
}

// Issue 27 point 1: on a shared store a nonce one instance accepted every
// other refuses, and so does a restarted one; nothing depends on Redis.
func TestOnASharedStoreEveryInstanceRefusesAReplay(t *testing.T) {
	target := dbtest.Target(t)
	clock := market.NewFixedClock(t0)
	a := startProcess(t, replayStore(t, target), clock, true, "")
	b := startProcess(t, replayStore(t, target), clock, true, a.token)
	now := clock.Now().Unix()
	if err := a.verify(now, "n1"); err != nil {
		t.Fatalf("first use on a: %v", err)
	}
	for name, pr := range map[string]process{"a": a, "b": b} {
		if err := pr.verify(now, "n1"); market.KindOf(err) != market.KindUnauthorized || !strings.Contains(err.Error(), "nonce already used") {
			t.Errorf("replay on %s: %v, want 401 nonce already used", name, err)
		}
	}
	clock.Advance(5 * time.Second)
	c := startProcess(t, replayStore(t, target), clock, true, a.token) // a restart, or a new instance
	if err := c.verify(now, "n1"); market.KindOf(err) != market.KindUnauthorized {
		t.Errorf("replay on a new instance 5 s later: %v, want 401", err)
	}
	if err := c.verify(clock.Now().Unix()-30, "n2"); err != nil {
		t.Errorf("a fresh request signed before c started: %v (the start-up rule is a lone server's)", err)
	}
}

// A lone server keeps nonces in memory and refuses what was signed before
// it started; a request dated ahead of the clock could pass that rule
// after a restart, so the store records it. Fails without the record: the
// restarted process accepted the replay.
func TestALoneServerRefusesAfterARestartARequestDatedAhead(t *testing.T) {
	target := dbtest.Target(t)
	clock := market.NewFixedClock(t0)
	a := startProcess(t, replayStore(t, target), clock, false, "")
	now := clock.Now().Unix()
	if err := a.verify(now+40, "ahead"); err != nil {
		t.Fatalf("a request dated 40 s ahead: %v", err)
	}
	if err := a.verify(now, "level"); err != nil {
		t.Fatalf("a request dated now: %v", err)
	}
	clock.Advance(3 * time.Second)
	b := startProcess(t, replayStore(t, target), clock, false, a.token)
	if err := b.verify(now+40, "ahead"); market.KindOf(err) != market.KindUnauthorized || !strings.Contains(err.Error(), "nonce already used") {
		t.Errorf("the request dated ahead, replayed after a restart: %v, want 401 nonce already used", err)
	}
	if err := b.verify(now, "level"); market.KindOf(err) != market.KindUnauthorized {
		t.Errorf("the request dated now, replayed after a restart: %v, want 401", err)
	}
	if err := b.verify(clock.Now().Unix()+10, "new"); err != nil {
		t.Errorf("a new request dated ahead after the restart: %v", err)
	}
}

// failingNonces is a store whose nonce record is down.
type failingNonces struct {
	*db.Store
	down bool
}

func (f *failingNonces) RecordNonce(ctx context.Context, key string, expires, now time.Time) (bool, error) {
	if f.down {
		return false, market.Wrap(market.KindUnavailable, errors.New("dial tcp: connection refused"), "record nonce: database unreachable")
	}
	return f.Store.RecordNonce(ctx, key, expires, now)
}

// When the store cannot record a nonce the request is refused with a 503
// that names the cause, and nothing is remembered: the same request,
// retried once the store answers, is accepted.
func TestANonceTheStoreCannotRecordIsRefusedAndNotRemembered(t *testing.T) {
	clock := market.NewFixedClock(t0)
	st := &failingNonces{Store: replayStore(t, dbtest.Target(t)), down: true}
	a := startProcess(t, st, clock, true, "")
	now := clock.Now().Unix()
	err := a.verify(now, "n")
	var me *market.Error
	if !errors.As(err, &me) || me.Kind != market.KindUnavailable || !strings.Contains(me.Detail, "database unreachable") || me.RetryAfter <= 0 {
		t.Fatalf("store down: %v, want 503 naming the store's failure with a retry time", err)
	}
	st.down = false
	if err := a.verify(now, "n"); err != nil {
		t.Fatalf("the same request once the store answers: %v", err)
	}
}
