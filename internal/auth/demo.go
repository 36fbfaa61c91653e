package auth

import (
	"context"
	"time"

	"mdqs/internal/market"
)

// The demo client's credentials are public (they are in the README), so the
// client may exist only while the server listens on loopback.
const (
	DemoClientID = "demo"
	DemoSecret   = "demo-secret"
)

// ClientStore is what demo seeding needs from storage.
type ClientStore interface {
	Client(ctx context.Context, id string) (Client, error)
	PutClient(ctx context.Context, c Client) (replaced bool, err error)
	SetClientEnabled(ctx context.Context, id string, enabled bool, now time.Time) error
}

// EnsureDemoClient makes sure the demo client exists with the demo secret,
// every scope and mcp, enabled and without expiry. An existing client that already
// matches is left alone, so its tokens survive restarts. It reports whether
// it wrote anything.
func EnsureDemoClient(ctx context.Context, store ClientStore, now time.Time, kdf KDFParams) (bool, error) {
	c, err := store.Client(ctx, DemoClientID)
	if err == nil && c.Enabled && c.Scopes == demoBits && c.ExpiresAt.IsZero() && c.APIKeyHash == "" {
		if ok, _ := VerifySecret(DemoSecret, c.SecretHash); ok {
			return false, nil
		}
	}
	if err != nil && market.KindOf(err) != market.KindNotFound {
		return false, err
	}
	hash, err := HashSecret(DemoSecret, kdf)
	if err != nil {
		return false, err
	}
	_, err = store.PutClient(ctx, Client{
		ID: DemoClientID, SecretHash: hash, Scopes: demoBits, Enabled: true,
		CreatedAt: now, UpdatedAt: now,
	})
	return err == nil, err
}

// DisableDemoClient disables a demo client that still has the public demo
// secret; a server reachable from the network must not accept it. It reports
// whether it disabled one.
func DisableDemoClient(ctx context.Context, store ClientStore, now time.Time) (bool, error) {
	c, err := store.Client(ctx, DemoClientID)
	if market.KindOf(err) == market.KindNotFound {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !c.Enabled {
		return false, nil
	}
	if ok, _ := VerifySecret(DemoSecret, c.SecretHash); !ok {
		return false, nil // someone gave "demo" a private secret; leave it
	}
	return true, store.SetClientEnabled(ctx, DemoClientID, false, now)
}
