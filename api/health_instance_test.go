package api

import (
	"encoding/json"
	"net/http"
	"testing"

	"mdqs/internal/cluster"
)

// A script or a load balancer asks which instance answered and whether it
// leads; every answer names its instance in a header.
func TestHealthInstanceSaysWhoAnswered(t *testing.T) {
	leading := false
	h := newHarness(t, func(c *harnessConfig) {
		c.deps.Instance = InstanceDeps{Name: "desk-b:8080", Leader: func() bool { return leading },
			Redis: func() cluster.Status {
				return cluster.Status{Addr: "redis://10.0.0.5:6379", Up: false, Failures: 3, LastError: "dial tcp: refused", Degraded: "own memory"}
			}}
	})
	r := h.do(http.MethodGet, "/v1/api/health/instance", nil, nil)
	if r.status != 200 || r.header.Get("X-MDQS-Instance") != "desk-b:8080" {
		t.Fatalf("health/instance = %d, X-MDQS-Instance %q", r.status, r.header.Get("X-MDQS-Instance"))
	}
	var got instanceHealth
	if err := json.Unmarshal(r.data, &got); err != nil {
		t.Fatal(err)
	}
	if got.Instance != "desk-b:8080" || got.Leader || !got.Store.Up || got.Store.Kind != h.store.Kind() ||
		got.Redis == nil || got.Redis.Up || got.Redis.Failures != 3 || got.Redis.Degraded == "" {
		t.Fatalf("health/instance = %s", r.data)
	}
	leading = true
	r = h.do(http.MethodGet, "/v1/api/health/instance", nil, nil)
	if err := json.Unmarshal(r.data, &got); err != nil || !got.Leader {
		t.Fatalf("after taking the lead: %s", r.data)
	}
}

// Without a deployment around it (SQLite, no Redis) the instance leads and
// says there is no shared state.
func TestHealthInstanceAlone(t *testing.T) {
	h := newHarness(t)
	r := h.do(http.MethodGet, "/v1/api/health/instance", nil, nil)
	var got map[string]any
	if err := json.Unmarshal(r.data, &got); err != nil {
		t.Fatal(err)
	}
	if got["leader"] != true || got["redis"] != nil {
		t.Fatalf("a lone instance: %s", r.data)
	}
}
