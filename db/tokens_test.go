package db_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"mdqs/db/dbtest"
	"mdqs/internal/auth"
)

// A token evicted for the per-client limit is cached by the other
// instances on the store: the eviction must move the revision they poll,
// or they keep accepting it. Deleting expired tokens need not (those are
// refused by their expiry everywhere).
func TestEvictingALiveTokenMovesTheAuthRevision(t *testing.T) {
	s := dbtest.Open(t)
	ctx := context.Background()
	now := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	if _, err := s.PutClient(ctx, auth.Client{ID: "bot", SecretHash: "x", Enabled: true, CreatedAt: now, UpdatedAt: now}); err != nil {
		t.Fatal(err)
	}
	issue := func(i int, expires time.Time) []string {
		ev, err := s.InsertToken(ctx, auth.Token{Hash: fmt.Sprintf("h%02d", i), ClientID: "bot", CreatedAt: now.Add(time.Duration(i) * time.Second), ExpiresAt: expires}, 3)
		if err != nil {
			t.Fatal(err)
		}
		return ev
	}
	for i := range 3 {
		issue(i, now.Add(time.Hour))
	}
	before, _ := s.AuthRevision(ctx)
	if ev := issue(3, now.Add(time.Hour)); len(ev) != 1 {
		t.Fatalf("the 4th token of a limit of 3 evicted %v", ev)
	}
	after, _ := s.AuthRevision(ctx)
	if after == before {
		t.Fatal("evicting a live token left the auth revision where it was: other instances keep it cached")
	}
}
