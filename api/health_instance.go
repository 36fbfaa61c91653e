package api

import (
	"context"
	"net/http"
	"time"

	"mdqs/internal/cluster"
	"mdqs/internal/relay"
)

// InstanceDeps say who this process is among a deployment's instances.
type InstanceDeps struct {
	Name string // server.instance, or HOST:PORT
	// Leader reports whether this instance runs the background jobs;
	// nil: it always does (one instance on SQLite).
	Leader func() bool
	// Redis is the shared state's status; nil without cache.redis.
	Redis func() cluster.Status
	// Relay is the stream relay's status; nil without cache.redis.
	Relay func() relay.Status
}

type instanceHealth struct {
	Instance string          `json:"instance"`
	Leader   bool            `json:"leader"`
	Store    storeHealth     `json:"store"`
	Redis    *cluster.Status `json:"redis"`        // null: no shared state configured
	Relay    *relay.Status   `json:"stream_relay"` // null: no shared state configured
}

type storeHealth struct {
	Kind   string  `json:"kind"` // sqlite or postgresql
	Up     bool    `json:"up"`
	Error  string  `json:"error,omitempty"`
	PingMS float64 `json:"ping_ms"`
}

// handleHealthInstance is GET /v1/api/health/instance: which instance
// answered, whether it leads, and the state of the store and of Redis.
// A load balancer's probe and a script asking "who am I talking to" read
// it; every answer also names the instance in X-MDQS-Instance.
func (s *Server) handleHealthInstance(w http.ResponseWriter, r *http.Request) error {
	return ok(w, s.instanceHealth(r.Context()))
}

func (s *Server) instanceHealth(ctx context.Context) instanceHealth {
	h := instanceHealth{Instance: s.Instance.Name, Leader: s.isLeader()}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	db, err := s.Store.Health(ctx)
	h.Store = storeHealth{Kind: s.Store.Kind(), Up: err == nil, PingMS: db.PingMS}
	if err != nil {
		h.Store.Error = err.Error()
	}
	if s.Instance.Redis != nil {
		st := s.Instance.Redis()
		h.Redis = &st
	}
	if s.Instance.Relay != nil {
		st := s.Instance.Relay()
		h.Relay = &st
	}
	return h
}

func (s *Server) isLeader() bool { return s.Instance.Leader == nil || s.Instance.Leader() }
