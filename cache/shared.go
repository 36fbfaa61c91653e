package cache

import (
	"bytes"
	"context"
	"encoding/gob"
	"log/slog"
	"time"
)

// Shared is a store of versioned entries that the instances of one
// deployment share (Redis, through package cluster). An entry is put with
// its build time as version and replaces only an older one, so every
// instance converges on the newest build and answers with the same bytes.
type Shared interface {
	// Version is the newest shared version of key. It is read on every
	// request, so an implementation answers it from memory and learns of a
	// newer version by invalidation.
	Version(ctx context.Context, key string) (version int64, ok bool, err error)
	Get(ctx context.Context, key string) (data []byte, version int64, ok bool, err error)
	PutIfNewer(ctx context.Context, key string, version int64, data []byte, ttl time.Duration) (stored bool, err error)
}

// Tier is the shared half of a two-level cache: the caller's own cache
// (ristretto, or a map) is the near level and asks the tier whether
// another instance holds something newer before it serves, and publishes
// what it builds. Values travel as gob, not JSON: unknown measures are
// NaN, which encoding/json refuses.
//
// A nil *Tier is a lone instance's: nothing is shared, every call is a
// no-op. When the shared store fails the near level answers alone; the
// store's adapter reports the outage (cluster), so the tier says nothing
// of it.
type Tier[V any] struct {
	shared Shared
	prefix string // namespaces this tier's keys in the shared store
	log    *slog.Logger
}

// NewTier is a tier over shared, or nil (nothing shared) when shared is.
func NewTier[V any](shared Shared, prefix string, log *slog.Logger) *Tier[V] {
	if shared == nil {
		return nil
	}
	return &Tier[V]{shared: shared, prefix: prefix, log: log}
}

// Newer returns the shared value of key when its version is newer than
// have, the version the near level holds (0: none).
func (t *Tier[V]) Newer(ctx context.Context, key string, have int64) (V, bool) {
	var zero V
	if t == nil {
		return zero, false
	}
	v, found, err := t.shared.Version(ctx, t.prefix+key)
	if err != nil || !found || v <= have {
		return zero, false
	}
	return t.get(ctx, key)
}

func (t *Tier[V]) get(ctx context.Context, key string) (V, bool) {
	var out V
	data, _, found, err := t.shared.Get(ctx, t.prefix+key)
	if err != nil || !found {
		return out, false
	}
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&out); err != nil {
		t.log.Warn("shared cache entry unreadable; ignoring it", "key", t.prefix+key, "err", err)
		var zero V
		return zero, false
	}
	return out, true
}

// Publish offers v as key's version for ttl. When the shared store holds
// this version or a newer one, Publish returns that one (ok true) for the
// caller to serve instead of its own, so no two instances answer with
// different builds for longer than a request.
func (t *Tier[V]) Publish(ctx context.Context, key string, version int64, v V, ttl time.Duration) (newer V, ok bool) {
	var zero V
	if t == nil || ttl <= 0 {
		return zero, false
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(v); err != nil {
		t.log.Warn("not shared", "key", t.prefix+key, "err", err)
		return zero, false
	}
	stored, err := t.shared.PutIfNewer(ctx, t.prefix+key, version, buf.Bytes(), ttl)
	if err != nil || stored {
		return zero, false
	}
	return t.get(ctx, key)
}
