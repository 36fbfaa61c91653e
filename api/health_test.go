package api

import (
	"encoding/json"
	"mdqs/db/dbtest"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestHealthDBIsPublicAndRevealsNoPath(t *testing.T) {
	h := newHarness(t)
	r := h.do(http.MethodGet, "/v1/api/health/db", nil, nil)
	r.expect(t, 200, "OK")
	var d struct {
		PingMS        *float64 `json:"ping_ms"`
		JournalMode   string   `json:"journal_mode"`
		SchemaVersion int      `json:"schema_version"`
		PageCount     int64    `json:"page_count"`
		FileBytes     int64    `json:"file_bytes"`
	}
	json.Unmarshal(r.data, &d)
	journal, pages := "wal", d.PageCount >= 1
	if dbtest.Postgres(t) {
		journal, pages = "postgresql", true // a server: no journal mode or pages of a file
	}
	if d.PingMS == nil || d.JournalMode != journal || d.SchemaVersion < 1 || !pages || d.FileBytes < 1 {
		t.Fatalf("health/db = %s", r.data)
	}
	if strings.Contains(string(r.raw), "mdqs.db") || strings.Contains(string(r.raw), t.TempDir()[:5]) {
		t.Fatalf("health/db reveals a path: %s", r.raw)
	}
}

func TestHealthCacheCountsTokenLookups(t *testing.T) {
	h := newHarness(t)
	h.addClient("c", "secret-c", clientOpts{})
	tok := h.token("c", "secret-c")
	type cacheHealth struct {
		Hits, Misses, KeysAdded uint64
		HitRatio                float64 `json:"hit_ratio"`
		CostMax                 int64   `json:"cost_max"`
	}
	read := func() cacheHealth {
		r := h.do(http.MethodGet, "/v1/api/health/cache", nil, nil)
		r.expect(t, 200, "OK")
		var d struct {
			Hits      uint64  `json:"hits"`
			Misses    uint64  `json:"misses"`
			KeysAdded uint64  `json:"keys_added"`
			HitRatio  float64 `json:"hit_ratio"`
			CostMax   int64   `json:"cost_max"`
		}
		json.Unmarshal(r.data, &d)
		return cacheHealth{d.Hits, d.Misses, d.KeysAdded, d.HitRatio, d.CostMax}
	}
	before := read()
	h.signed(http.MethodGet, "/v1/api/whoami", tok, nil).expect(t, 200, "OK")
	deadline := time.Now().Add(5 * time.Second)
	for read().KeysAdded == before.KeysAdded && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond) // the cache applies Sets asynchronously
	}
	mid := read()
	for range 10 {
		h.signed(http.MethodGet, "/v1/api/whoami", tok, nil).expect(t, 200, "OK")
	}
	after := read()
	if after.Hits-mid.Hits != 10 || after.Misses != mid.Misses || after.CostMax <= 0 || after.HitRatio <= 0 {
		t.Fatalf("after 10 cached requests: before %+v, after %+v; want +10 hits, no new misses", mid, after)
	}
}
