package api

import (
	"net/http"
	"time"

	"mdqs/cache"
	"mdqs/internal/market"
	"mdqs/internal/upstream"
	"mdqs/jobs"
)

type cacheHealth struct {
	Hits        uint64        `json:"hits"`
	Misses      uint64        `json:"misses"`
	HitRatio    float64       `json:"hit_ratio"`
	KeysAdded   uint64        `json:"keys_added"`
	KeysEvicted uint64        `json:"keys_evicted"`
	CostUsed    int64         `json:"cost_used"`
	CostMax     int64         `json:"cost_max"`
	Caches      []cache.Stats `json:"caches"`
	LiveNonces  int           `json:"live_nonces"`
}

// handleHealthCache is GET /v1/api/health/cache: totals over every cache,
// then each cache on its own.
func (s *Server) handleHealthCache(w http.ResponseWriter, r *http.Request) error {
	return ok(w, s.cacheHealth())
}

func (s *Server) cacheHealth() cacheHealth {
	h := cacheHealth{Caches: []cache.Stats{s.Auth.CacheStats()}, LiveNonces: s.Auth.NonceCount()}
	for _, stats := range s.CacheStats {
		h.Caches = append(h.Caches, stats())
	}
	for _, c := range h.Caches {
		h.Hits += c.Hits
		h.Misses += c.Misses
		h.KeysAdded += c.KeysAdded
		h.KeysEvicted += c.KeysEvicted
		h.CostUsed += c.CostUsed
		h.CostMax += c.CostMax
	}
	if total := h.Hits + h.Misses; total > 0 {
		h.HitRatio = float64(h.Hits) / float64(total)
	}
	return h
}

// handleHealthDB is GET /v1/api/health/db.
func (s *Server) handleHealthDB(w http.ResponseWriter, r *http.Request) error {
	h, err := s.Store.Health(r.Context())
	if err != nil {
		return err
	}
	return ok(w, h)
}

// handleHealthSources is GET /v1/api/health/sources: each upstream's
// state (calls, failures, last error and schema drift), the background
// jobs, and whether the trading calendar covers today.
func (s *Server) handleHealthSources(w http.ResponseWriter, r *http.Request) error {
	now := s.Clock.Now()
	first, last := s.Calendar.Years()
	cal := map[string]any{"first_year": first, "last_year": last, "covers_today": s.Calendar.Covers(market.DayOf(now))}
	if !s.Calendar.Covers(market.DayOf(now)) {
		cal["warning"] = "the exchange holidays of this year are not known; every weekday counts as a trading day until they are imported (mdqs calendar import)"
	}
	out := map[string]any{
		"default":  s.SourceMode,
		"phase":    market.Phase(s.Calendar, now),
		"calendar": cal,
		"sources":  []upstream.Status{},
		"jobs":     []jobs.Status{},
	}
	if s.Sources != nil {
		sts := s.Sources()
		views := make([]sourceHealth, len(sts))
		for i, st := range sts {
			views[i] = sourceHealth{Status: st,
				LastErrorAt: healthTime(st.LastErrorAt), LastSuccess: healthTime(st.LastSuccess), DriftAt: healthTime(st.DriftAt),
				BreakerOpenedAt: healthTime(st.BreakerOpenedAt), BreakerProbeAt: healthTime(st.BreakerProbeAt)}
		}
		out["sources"] = views
	}
	if s.Jobs != nil {
		sts := s.Jobs.Statuses()
		views := make([]jobHealth, len(sts))
		for i, st := range sts {
			views[i] = jobHealth{Status: st, LastStart: healthTime(st.LastStart), LastEnd: healthTime(st.LastEnd)}
		}
		out["jobs"] = views
	}
	return ok(w, out)
}

// sourceHealth and jobHealth show an upstream's and a job's status with
// their times as every other time in the API is written, "YYYY-MM-DD
// HH:MM:SS" in Asia/Shanghai, rather than as each package's time.Time
// would marshal (RFC 3339 in whatever zone its clock gave, to the
// nanosecond). Each string field takes the place of the embedded field of
// the same JSON name: encoding/json lets the shallower one win.
type sourceHealth struct {
	upstream.Status
	LastErrorAt     string `json:"last_error_at,omitempty"`
	LastSuccess     string `json:"last_success,omitempty"`
	DriftAt         string `json:"drift_at,omitempty"`
	BreakerOpenedAt string `json:"breaker_opened_at,omitempty"`
	BreakerProbeAt  string `json:"breaker_probe_at,omitempty"`
}

type jobHealth struct {
	jobs.Status
	LastStart string `json:"last_start,omitempty"`
	LastEnd   string `json:"last_end,omitempty"`
}

// healthTime is t as the API writes times; "" (left out) when unset.
func healthTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return market.FormatTime(t)
}
