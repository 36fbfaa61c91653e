package main

import (
	"context"
	"log/slog"
	"time"

	"mdqs/api"
	"mdqs/cache"
	"mdqs/db"
	"mdqs/internal/cluster"
	"mdqs/internal/config"
	"mdqs/internal/sharedstate"
)

// team is what one instance of a team deployment (several mdqs on one
// PostgreSQL store) adds to a lone server: a name, the leadership that
// decides who runs the background jobs, and the state the instances share
// through Redis. On SQLite it is a lone server's: always the leader,
// nothing shared.
type team struct {
	name   string
	lead   *db.Leadership
	rc     *sharedstate.Client // nil without cache.redis
	shared *cluster.Shared     // nil without cache.redis
}

func startTeam(ctx context.Context, cfg config.Config, store *db.Store, log *slog.Logger) (*team, error) {
	t := &team{name: cfg.InstanceName()}
	t.lead = store.Leadership(t.name, db.LeaderOptions{Interval: cfg.Server.LeaderPoll.Duration, Log: log})
	if cfg.Cache.Redis != "" {
		// A wrong address or password is found at start; an outage later
		// degrades the instance instead (package cluster).
		rc, err := sharedstate.Open(ctx, cfg.Cache.Redis, sharedstate.Options{Prefix: cfg.Cache.RedisPrefix})
		if err != nil {
			return nil, err
		}
		t.rc, t.shared = rc, cluster.New(rc, log)
	}
	t.lead.Start(ctx)
	return t, nil
}

// stop gives up the leadership (another instance takes over at its next
// poll rather than after a timeout) and closes Redis.
func (t *team) stop() {
	t.lead.Stop()
	if t.rc != nil {
		t.rc.Close()
	}
}

func (t *team) limits() api.SharedLimits {
	if t.shared == nil {
		return nil
	}
	return t.shared
}

// cache is the shared level of the ranking, K-line and intraday caches;
// nil (not a nil pointer in an interface) without Redis.
func (t *team) cache() cache.Shared {
	if t.shared == nil {
		return nil
	}
	return t.shared.Cache()
}

func (t *team) redisAddr() string {
	if t.rc == nil {
		return "none"
	}
	return t.rc.Addr()
}

// redisProbeInterval: how soon an idle instance notices Redis leave or
// come back.
const redisProbeInterval = 5 * time.Second

func (t *team) instance() api.InstanceDeps {
	d := api.InstanceDeps{Name: t.name, Leader: t.lead.IsLeader}
	if t.shared != nil {
		d.Redis = t.shared.Status
	}
	return d
}
