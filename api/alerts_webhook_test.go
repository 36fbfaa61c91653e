package api

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"mdqs/internal/alert"
	"mdqs/internal/webhook/webhooktest"
)

// Issue 36: an alert's webhook through the API. The secret never comes
// back, the URL comes back with its credential masked, a private address
// is refused unless alerts.webhook_allow_private, deliveries?id= lists
// each try, and webhook_test answers what the receiver said.
func TestAlertWebhooksThroughTheAPI(t *testing.T) {
	const secret = "receiver-shares-this-secret"
	// Without webhook_allow_private, the local receiver is refused at create.
	strict := newHarness(t)
	strict.addClient("c", "secret-c", clientOpts{scopes: "screener"})
	robot := webhooktest.NewReceiver(t, "generic", secret, strict.clock.Now)
	body := `{"name":"放量","expression":"pct > -100","universe":{"codes":["600519.SH","000001"]},"webhook":{"url":"` + robot.URL() + `","format":"generic","secret":"` + secret + `"}}`
	r := strict.signed(http.MethodPost, "/v1/api/alerts", strict.token("c", "secret-c"), []byte(body))
	if r.status != 400 || !strings.Contains(r.detail, "alerts.webhook_allow_private = true") {
		t.Fatalf("a receiver on 127.0.0.1 without allow_private: %d %q", r.status, r.detail)
	}

	h := newHarness(t, withAlerts(alert.Config{MaxPerClient: 3, Webhooks: alert.Webhooks{AllowPrivate: true, Timeout: 2 * time.Second,
		Resolve: func(context.Context, string, string) ([]netip.Addr, error) { return nil, nil }}}))
	h.addClient("c", "secret-c", clientOpts{scopes: "screener"})
	h.addClient("d", "secret-d", clientOpts{scopes: "screener"})
	tok, other := h.token("c", "secret-c"), h.token("d", "secret-d")
	robot = webhooktest.NewReceiver(t, "generic", secret, h.clock.Now)
	body = `{"name":"放量","expression":"pct > -100","universe":{"codes":["600519.SH","000001"]},"webhook":{"url":"` + robot.URL() + `?token=abc","format":"generic","secret":"` + secret + `"}}`

	for b, detail := range map[string]string{
		`{"expression":"pct > 1","webhook":{"url":"` + robot.URL() + `","format":"generic","secret":"s","retries":3}}`: "unknown field",
		`{"expression":"pct > 1","webhook":{"url":"` + robot.URL() + `","format":"slack"}}`:                            "webhook.format",
		`{"expression":"pct > 1","webhook":{"url":"ftp://example.com/x","format":"generic","secret":"s"}}`:             "only http and https",
		`{"expression":"pct > 1","webhook":{"url":"` + robot.URL() + `","format":"generic"}}`:                          "give a secret",
	} {
		if r := h.signed(http.MethodPost, "/v1/api/alerts", tok, []byte(b)); r.status != 400 || !strings.Contains(r.detail, detail) {
			t.Errorf("%s: %d %q; want 400 with %q", b, r.status, r.detail, detail)
		}
	}

	r = h.signed(http.MethodPost, "/v1/api/alerts", tok, []byte(body))
	r.expect(t, 200, "OK")
	var created alertView
	json.Unmarshal(r.data, &created)
	if created.Webhook == nil || created.Webhook.Format != "generic" || !created.Webhook.SecretSet ||
		!strings.HasSuffix(created.Webhook.URL, "/mdqs-hook?token=***") {
		t.Fatalf("the created alert's webhook: %+v", created.Webhook)
	}
	for _, path := range []string{"/v1/api/alerts", "/v1/api/alerts?id=" + created.ID, "/v1/api/alerts?format=csv"} {
		r := h.raw(http.MethodGet, path, nil, h.signedHeader(tok, nil))
		if r.status != 200 || bytes.Contains(r.raw, []byte(secret)) || bytes.Contains(r.raw, []byte("token=abc")) || !bytes.Contains(r.raw, []byte("secret_set")) {
			t.Errorf("GET %s: %d %s; want the webhook without its secret or token", path, r.status, r.raw)
		}
	}

	// webhook_test: the receiver's answer, a refusal included, is a 200.
	type testAnswer struct {
		OK         bool   `json:"ok"`
		HTTPStatus int    `json:"http_status"`
		Message    string `json:"message"`
		Delivery   string `json:"delivery"`
		URL        string `json:"url"`
	}
	var ta testAnswer
	r = h.signed(http.MethodPost, "/v1/api/alerts/webhook_test", tok, []byte(`{"id":"`+created.ID+`"}`))
	r.expect(t, 200, "OK")
	json.Unmarshal(r.data, &ta)
	if !ta.OK || ta.HTTPStatus != 200 || !strings.HasPrefix(ta.Delivery, "test.") || strings.Contains(ta.URL, "abc") || len(robot.Received()) != 1 {
		t.Errorf("webhook_test: %+v (%s)", ta, r.raw)
	}
	robot.SetFail(http.StatusServiceUnavailable)
	r = h.signed(http.MethodPost, "/v1/api/alerts/webhook_test", tok, []byte(`{"id":"`+created.ID+`"}`))
	r.expect(t, 200, "OK")
	json.Unmarshal(r.data, &ta)
	if ta.OK || ta.HTTPStatus != 503 || !strings.Contains(ta.Message, "HTTP 503") {
		t.Errorf("webhook_test of a receiver that is down: %+v", ta)
	}
	robot.SetFail(0)
	h.signed(http.MethodPost, "/v1/api/alerts/webhook_test", other, []byte(`{"id":"`+created.ID+`"}`)).expect(t, 403, "")
	h.signed(http.MethodPost, "/v1/api/alerts/webhook_test", tok, []byte(`{}`)).expect(t, 400, "")

	// A firing goes out once and is listed with its try.
	if n, err := h.api.Alerts.Evaluate(context.Background()); err != nil || n != 2 {
		t.Fatalf("evaluate: %d, %v", n, err)
	}
	if n, err := h.api.Alerts.Deliver(context.Background()); err != nil || n != 1 {
		t.Fatalf("deliver: %d, %v", n, err)
	}
	var ds struct {
		Count int            `json:"count"`
		Items []deliveryView `json:"items"`
	}
	r = h.signed(http.MethodGet, "/v1/api/alerts/deliveries?id="+created.ID, tok, nil)
	r.expect(t, 200, "OK")
	json.Unmarshal(r.data, &ds)
	if ds.Count != 1 || ds.Items[0].State != "sent" || ds.Items[0].Events != 2 || len(ds.Items[0].Tries) != 1 || !ds.Items[0].Tries[0].OK ||
		ds.Items[0].Tries[0].HTTPStatus != 200 || ds.Items[0].DoneAt == "" {
		t.Errorf("deliveries: %s", r.data)
	}
	got := robot.Received()
	if len(got) != 3 || got[2].Header.Get("X-Mdqs-Delivery") != created.ID+"."+itoa(ds.Items[0].ID) {
		t.Errorf("the receiver got %d requests; the last's delivery id %q", len(got), got[len(got)-1].Header.Get("X-Mdqs-Delivery"))
	}
	h.signed(http.MethodGet, "/v1/api/alerts/deliveries?id="+created.ID, other, nil).expect(t, 403, "")
	h.signed(http.MethodGet, "/v1/api/alerts/deliveries", tok, nil).expect(t, 400, "")
	h.signed(http.MethodGet, "/v1/api/alerts/deliveries?id=nosuch", tok, nil).expect(t, 404, "")
	if r := h.raw(http.MethodGet, "/v1/api/alerts/deliveries?id="+created.ID+"&format=csv", nil, h.signedHeader(tok, nil)); r.status != 200 ||
		!strings.HasPrefix(string(r.raw), "id,alert_id,state,events,created_at,") {
		t.Errorf("deliveries as CSV: %d %s", r.status, r.raw)
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }
