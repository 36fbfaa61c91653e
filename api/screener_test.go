package api

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

type screenView struct {
	ID       string         `json:"id"`
	State    string         `json:"state"`
	Fields   []string       `json:"fields"`
	Matched  int            `json:"matched"`
	Progress map[string]any `json:"progress"`
	Existing bool           `json:"existing"`
}

func (h *harness) screen(t *testing.T, tok, body string) (response, screenView) {
	t.Helper()
	r := h.signed(http.MethodPost, "/v1/api/screener/queue/submit", tok, []byte(body))
	var v screenView
	json.Unmarshal(r.data, &v)
	return r, v
}

func (h *harness) waitScreen(t *testing.T, tok, id string) screenView {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := h.signed(http.MethodGet, "/v1/api/screener/queue/status?id="+id, tok, nil)
		var v screenView
		json.Unmarshal(r.data, &v)
		if v.State == "succeeded" || v.State == "failed" || v.State == "canceled" {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("screen %s still %s", id, v.State)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestScreenerThroughHTTP(t *testing.T) {
	h := newHarness(t)
	h.addClient("a", "secret-a", clientOpts{scopes: "screener"})
	h.addClient("b", "secret-b", clientOpts{scopes: "screener"})
	h.addClient("m", "secret-m", clientOpts{scopes: "market"})
	a, b := h.token("a", "secret-a"), h.token("b", "secret-b")
	if r, _ := h.screen(t, h.token("m", "secret-m"), `{"expression":"price > 0"}`); r.status != 403 {
		t.Fatalf("submit without the screener scope: %d", r.status)
	}
	r, v := h.screen(t, a, `{"expression":"price > 100 && pct > 0","sort":"-price","limit":10,"universe":{"market":"SH"}}`)
	r.expect(t, 200, "OK")
	if v.ID == "" || strings.Join(v.Fields, ",") != "price,pct" {
		t.Fatalf("submit = %s", r.raw)
	}
	done := h.waitScreen(t, a, v.ID)
	if done.State != "succeeded" || done.Matched == 0 {
		t.Fatalf("screen = %+v", done)
	}
	r = h.signed(http.MethodGet, "/v1/api/screener/queue/result?id="+v.ID+"&page_size=5", a, nil)
	r.expect(t, 200, "OK")
	var res struct {
		Items []map[string]any `json:"items"`
		Total int              `json:"total"`
	}
	json.Unmarshal(r.data, &res)
	if res.Total != done.Matched || len(res.Items) != min(5, done.Matched) {
		t.Fatalf("result = %s", r.data)
	}
	for _, it := range res.Items {
		if !strings.HasSuffix(it["code"].(string), ".SH") || it["price"].(float64) <= 100 || it["name"] == "" {
			t.Fatalf("item %v", it)
		}
	}
	// Another client sees nothing of it.
	h.signed(http.MethodGet, "/v1/api/screener/queue/status?id="+v.ID, b, nil).expect(t, 404, "not found")
	h.signed(http.MethodGet, "/v1/api/screener/queue/result?id="+v.ID, b, nil).expect(t, 404, "not found")
	h.signed(http.MethodPost, "/v1/api/screener/queue/cancel", b, []byte(`{"id":"`+v.ID+`"}`)).expect(t, 404, "not found")
	// Cancelling a finished screen is a conflict.
	h.signed(http.MethodPost, "/v1/api/screener/queue/cancel", a, []byte(`{"id":"`+v.ID+`"}`)).expect(t, 409, "conflict")

	for _, tt := range []struct {
		body, detail string
	}{
		{`{"expression":"price > nope"}`, "unknown name nope"},
		{`{"expression":"price >"}`, "line 1, column"},
		{`{"expresion":"price > 1"}`, "unknown field"},
		{`not json`, "JSON object"},
		{`{"expression":"price > 1","sort":"name"}`, "sort"},
	} {
		r, _ := h.screen(t, a, tt.body)
		r.expect(t, 400, "missing or invalid params")
		if !strings.Contains(r.detail, tt.detail) {
			t.Errorf("%s: detail %q, want %q", tt.body, r.detail, tt.detail)
		}
	}
	h.signed(http.MethodGet, "/v1/api/screener/queue/status", a, nil).expect(t, 400, "missing or invalid params")
	r = h.signed(http.MethodGet, "/v1/api/screener/fields", a, nil)
	if r.status != 200 || !strings.Contains(string(r.data), `"name":"ma20"`) {
		t.Fatalf("fields = %d", r.status)
	}
}

func TestScreenerQueueLimitsThroughHTTP(t *testing.T) {
	h := newHarness(t, withScreener(1, true)) // no workers: screens stay queued
	h.addClient("a", "secret-a", clientOpts{scopes: "screener"})
	a := h.token("a", "secret-a")
	_, v := h.screen(t, a, `{"expression":"price > 0","idempotency_key":"x"}`)
	r, again := h.screen(t, a, `{"expression":"pct > 9","idempotency_key":"x"}`)
	if r.status != 200 || again.ID != v.ID || !again.Existing {
		t.Fatalf("same idempotency key: %s", r.raw)
	}
	r, _ = h.screen(t, a, `{"expression":"price > 1"}`)
	r.expect(t, 429, "too many requests")
	if r.header.Get("Retry-After") == "" {
		t.Fatal("429 without Retry-After")
	}
	h.signed(http.MethodGet, "/v1/api/screener/queue/result?id="+v.ID, a, nil).expect(t, 409, "conflict")
	r = h.signed(http.MethodPost, "/v1/api/screener/queue/cancel", a, []byte(`{"id":"`+v.ID+`"}`))
	r.expect(t, 200, "OK")
	var c screenView
	json.Unmarshal(r.data, &c)
	if c.State != "canceled" {
		t.Fatalf("cancel a queued screen: %s", r.data)
	}
	// The slot is free again.
	r, _ = h.screen(t, a, `{"expression":"price > 1"}`)
	r.expect(t, 200, "OK")
}
