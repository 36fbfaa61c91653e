package api

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestAlertsThroughTheAPI(t *testing.T) {
	h := newHarness(t)
	h.addClient("c", "secret-c", clientOpts{scopes: "screener"})
	h.addClient("d", "secret-d", clientOpts{scopes: "screener"})
	h.addClient("m", "secret-m", clientOpts{scopes: "market"})
	tok, other, market := h.token("c", "secret-c"), h.token("d", "secret-d"), h.token("m", "secret-m")

	r := h.signed(http.MethodPost, "/v1/api/alerts", tok, []byte(`{"name":"涨幅","expression":"pct > -100","universe":{"codes":["600519.SH","000001"]},"cooldown":"15m"}`))
	r.expect(t, 200, "OK")
	var created alertView
	json.Unmarshal(r.data, &created)
	if created.ID == "" || created.Cooldown != "15m0s" || created.Name != "涨幅" {
		t.Fatalf("created: %+v", created)
	}
	h.signed(http.MethodPost, "/v1/api/alerts", market, []byte(`{"expression":"pct > 1"}`)).expect(t, 403, "forbidden")

	// Bad requests say what to fix.
	for body, detail := range map[string]string{
		`{"expression":"pct >"}`:                              "expression error",
		`{"expression":"pct > 1","cooldown":"1s"}`:            "cooldown must be",
		`{"expression":"pct > 1","every":"1m"}`:               "unknown field",
		`not json`:                                            "must be a JSON object",
		`{"expression":"pct > 1","universe":{"market":"NY"}}`: "universe.market",
	} {
		r := h.signed(http.MethodPost, "/v1/api/alerts", tok, []byte(body))
		if r.status != 400 || !strings.Contains(r.detail, detail) {
			t.Errorf("%s: %d %q; want 400 with %q", body, r.status, r.detail, detail)
		}
	}

	// An evaluation at a quote refresh fires the two codes once.
	if n, err := h.api.Alerts.Evaluate(context.Background()); err != nil || n != 2 {
		t.Fatalf("evaluate: %d fired, %v; want 2", n, err)
	}
	h.clock.Advance(time.Minute)
	if n, _ := h.api.Alerts.Evaluate(context.Background()); n != 0 {
		t.Fatalf("a minute later: %d fired; want none within the cooldown", n)
	}
	var evs struct {
		Count     int              `json:"count"`
		Items     []alertEventView `json:"items"`
		NextSince int64            `json:"next_since"`
	}
	r = h.signed(http.MethodGet, "/v1/api/alerts/events", tok, nil)
	r.expect(t, 200, "OK")
	json.Unmarshal(r.data, &evs)
	if evs.Count != 2 || evs.Items[0].AlertID != created.ID || evs.Items[0].AlertName != "涨幅" || evs.NextSince != evs.Items[1].ID {
		t.Fatalf("events: %+v", evs)
	}
	if _, ok := map[string]bool{"600519.SH": true, "000001.SZ": true}[evs.Items[0].Code]; !ok || !strings.Contains(string(evs.Items[0].Fields), "pct") {
		t.Fatalf("event: %+v", evs.Items[0])
	}
	r = h.signed(http.MethodGet, "/v1/api/alerts/events?since="+strconv.FormatInt(evs.NextSince, 10), tok, nil)
	json.Unmarshal(r.data, &evs)
	if evs.Count != 0 {
		t.Fatalf("since the last cursor: %+v", evs)
	}
	h.signed(http.MethodGet, "/v1/api/alerts/events?since=-1", tok, nil).expect(t, 400, "missing or invalid params")
	// Another client sees none of it, and may not read or delete the alert.
	r = h.signed(http.MethodGet, "/v1/api/alerts/events", other, nil)
	json.Unmarshal(r.data, &evs)
	if evs.Count != 0 {
		t.Fatalf("another client's events: %+v", evs)
	}
	h.signed(http.MethodGet, "/v1/api/alerts?id="+created.ID, other, nil).expect(t, 403, "forbidden")
	h.signed(http.MethodPost, "/v1/api/alerts/cancel", other, []byte(`{"id":"`+created.ID+`"}`)).expect(t, 403, "forbidden")

	var list struct {
		Count int         `json:"count"`
		Items []alertView `json:"items"`
	}
	r = h.signed(http.MethodGet, "/v1/api/alerts", tok, nil)
	json.Unmarshal(r.data, &list)
	if list.Count != 1 || list.Items[0].ID != created.ID {
		t.Fatalf("list: %+v", list)
	}
	h.signed(http.MethodDelete, "/v1/api/alerts?id="+created.ID, tok, nil).expect(t, 200, "OK")
	h.signed(http.MethodDelete, "/v1/api/alerts?id="+created.ID, tok, nil).expect(t, 404, "not found")
	h.signed(http.MethodPost, "/v1/api/alerts/cancel", tok, []byte(`{"id":"nope"}`)).expect(t, 404, "not found")
	r = h.signed(http.MethodGet, "/v1/api/alerts", tok, nil)
	json.Unmarshal(r.data, &list)
	if list.Count != 0 {
		t.Fatalf("after delete: %+v", list)
	}
	// Events outlive their alert.
	r = h.signed(http.MethodGet, "/v1/api/alerts/events", tok, nil)
	json.Unmarshal(r.data, &evs)
	if evs.Count != 2 {
		t.Fatalf("events after delete: %d", evs.Count)
	}
}

// A firing is pushed to its owner's streams, never to another client's.
func TestAlertFiringsArePushedToTheirOwnersStreams(t *testing.T) {
	h := newHarness(t)
	h.addClient("c", "secret-c", clientOpts{scopes: "screener,market"})
	h.addClient("d", "secret-d", clientOpts{scopes: "screener,market"})
	tok, other := h.token("c", "secret-c"), h.token("d", "secret-d")
	mine, _ := h.openStream(t, tok, "topics=alerts", nil, false)
	theirs, _ := h.openStream(t, other, "topics=alerts", nil, false)
	h.signed(http.MethodPost, "/v1/api/alerts", tok, []byte(`{"name":"any","expression":"pct > -100","universe":{"codes":["600519.SH"]}}`)).expect(t, 200, "OK")
	if n, err := h.api.Alerts.Evaluate(context.Background()); err != nil || n != 1 {
		t.Fatalf("evaluate: %d, %v", n, err)
	}
	ev, ok := mine.next()
	var got alertEventView
	if !ok || ev.Name != "alert" || json.Unmarshal([]byte(ev.Data), &got) != nil || got.Code != "600519.SH" || got.AlertName != "any" {
		t.Fatalf("the owner's stream: %+v", ev)
	}
	deadline := time.After(300 * time.Millisecond)
	for {
		select {
		case ev := <-theirs.events:
			if ev.Name != "open" {
				t.Fatalf("another client's stream got %+v", ev)
			}
		case <-deadline:
			return
		}
	}
}
