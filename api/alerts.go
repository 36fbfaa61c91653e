package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"

	"mdqs/db"
	"mdqs/internal/alert"
	"mdqs/internal/market"
	"mdqs/internal/stream"
	"mdqs/internal/webhook"
)

// alertView is an alert as the API shows it.
type alertView struct {
	ID         string          `json:"id"`
	Name       string          `json:"name"`
	Expression string          `json:"expression"`
	Universe   json.RawMessage `json:"universe"`
	Cooldown   string          `json:"cooldown"`
	CreatedAt  string          `json:"created_at"`
	Webhook    *webhookView    `json:"webhook,omitempty"`
}

// webhookView is an alert's webhook as the API shows it: never the
// secret (only whether one is set), and the URL with its credential
// masked (DingTalk's access_token and WeCom's key are in the query,
// Feishu's hook id in the path).
type webhookView struct {
	URL       string `json:"url"`
	Format    string `json:"format"`
	SecretSet bool   `json:"secret_set"`
}

func alertViewOf(a db.Alert) alertView {
	v := alertView{ID: a.ID, Name: a.Name, Expression: a.Expression, Universe: a.Universe, Cooldown: a.Cooldown.String(),
		CreatedAt: market.FormatTime(a.CreatedAt)}
	if a.Webhook.Set() {
		v.Webhook = &webhookView{URL: webhook.Redact(a.Webhook.URL), Format: a.Webhook.Format, SecretSet: a.Webhook.Secret != ""}
	}
	return v
}

// alertEventView is one firing, in the one shape the events endpoint, the
// stream and a generic webhook share.
type alertEventView = webhook.Event

var alertEventViewOf = alert.EventOf

// handleAlertCreate is POST /v1/api/alerts.
func (s *Server) handleAlertCreate(w http.ResponseWriter, r *http.Request) error {
	body, err := s.readBody(r)
	if err != nil {
		return err
	}
	var req alert.Request
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return market.Errorf(market.KindInvalid, `the body must be a JSON object {"expression": "...", "universe": {...}, "cooldown": "30m", "name": "...", `+
			`"webhook": {"url": "...", "format": "generic|dingtalk|wecom|feishu", "secret": "..."}}: %v`, err)
	}
	a, err := s.Alerts.Create(r.Context(), principal(w).ClientID, req)
	if err != nil {
		return err
	}
	return ok(w, alertViewOf(a))
}

// handleAlertList is GET /v1/api/alerts: the client's live alerts, or one
// with ?id=.
func (s *Server) handleAlertList(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	if id := q.str("id"); id != "" {
		a, err := s.Alerts.Get(r.Context(), principal(w).ClientID, id)
		if err != nil {
			return err
		}
		return ok(w, alertViewOf(a))
	}
	if err := q.Err(); err != nil {
		return err
	}
	alerts, err := s.Alerts.List(r.Context(), principal(w).ClientID)
	if err != nil {
		return err
	}
	items := make([]alertView, len(alerts))
	for i, a := range alerts {
		items[i] = alertViewOf(a)
	}
	return ok(w, map[string]any{"count": len(items), "items": items})
}

// handleAlertDelete is DELETE /v1/api/alerts?id=.
func (s *Server) handleAlertDelete(w http.ResponseWriter, r *http.Request) error {
	id, err := jobID(newQuery(r))
	if err != nil {
		return err
	}
	return s.deleteAlert(w, r, id)
}

// handleAlertCancel is POST /v1/api/alerts/cancel {"id"}: DELETE in the
// house style of the screener's cancel, for clients that only POST.
func (s *Server) handleAlertCancel(w http.ResponseWriter, r *http.Request) error {
	id, err := s.idBody(r, "alert")
	if err != nil {
		return err
	}
	return s.deleteAlert(w, r, id)
}

func (s *Server) deleteAlert(w http.ResponseWriter, r *http.Request, id string) error {
	a, err := s.Alerts.Delete(r.Context(), principal(w).ClientID, id)
	if err != nil {
		return err
	}
	v := alertViewOf(a)
	return ok(w, map[string]any{"alert": v, "deleted": true})
}

// handleAlertEvents is GET /v1/api/alerts/events?since=&limit=: the
// client's firings after the cursor, oldest first; next_since is the
// cursor of the next call (unchanged when nothing new fired).
func (s *Server) handleAlertEvents(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	var since int64
	if v := q.str("since"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			q.fail("", "since must be the next_since of the previous answer (a non-negative integer), got %q", v)
		}
		since = n
	}
	limit := q.intIn("limit", 100, 1, 1000)
	if err := q.Err(); err != nil {
		return err
	}
	evs, err := s.Alerts.Events(r.Context(), principal(w).ClientID, since, limit)
	if err != nil {
		return err
	}
	items := make([]alertEventView, len(evs))
	next := since
	for i, e := range evs {
		items[i] = alertEventViewOf(e)
		next = e.ID
	}
	return ok(w, map[string]any{"count": len(items), "items": items, "next_since": next})
}

// publishAlerts is the alerts' OnFire: each firing goes to its owner's
// streams only, shaped as /v1/api/alerts/events shows it.
func (s *Server) publishAlerts(events []db.AlertEvent) {
	for _, e := range events {
		b, _ := json.Marshal(alertEventViewOf(e))
		s.Stream.Publish(stream.Event{Topic: stream.Alert, Codes: []market.Code{e.Code}, Client: e.ClientID, Data: b})
	}
}

// deliveryView is one message of an alert's webhook with its tries.
type deliveryView struct {
	ID        int64     `json:"id"`
	AlertID   string    `json:"alert_id"`
	State     string    `json:"state"`
	Events    int       `json:"events"`
	CreatedAt string    `json:"created_at"`
	NextAt    string    `json:"next_at,omitempty"` // pending: the next try
	DoneAt    string    `json:"done_at,omitempty"`
	Attempts  int       `json:"attempts"`
	LastError string    `json:"last_error"`
	Tries     []tryView `json:"tries"`
}

type tryView struct {
	Attempt    int    `json:"attempt"`
	At         string `json:"at"`
	DurationMS int64  `json:"duration_ms"`
	HTTPStatus int    `json:"http_status"`
	VendorCode *int   `json:"vendor_code"`
	Message    string `json:"message"`
	OK         bool   `json:"ok"`
}

func deliveryViewOf(d db.AlertDelivery) deliveryView {
	v := deliveryView{ID: d.ID, AlertID: d.AlertID, State: d.State, Events: d.Events, CreatedAt: market.FormatTime(d.CreatedAt),
		Attempts: d.Attempts, LastError: d.LastError, Tries: make([]tryView, len(d.Tries))}
	if d.State == db.DeliveryPending {
		v.NextAt = market.FormatTime(d.NextAt)
	}
	if !d.DoneAt.IsZero() {
		v.DoneAt = market.FormatTime(d.DoneAt)
	}
	for i, t := range d.Tries {
		v.Tries[i] = tryView{Attempt: t.Attempt, At: market.FormatTime(t.At), DurationMS: t.Duration.Milliseconds(), HTTPStatus: t.HTTPStatus,
			VendorCode: t.VendorCode, Message: t.Message, OK: t.OK}
	}
	return v
}

// handleAlertDeliveries is GET /v1/api/alerts/deliveries?id=&limit=: the
// messages of one of the client's alerts' webhook, newest first, each
// with every try.
func (s *Server) handleAlertDeliveries(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	id, err := jobID(q)
	if err != nil {
		return err
	}
	limit := q.intIn("limit", 20, 1, 200)
	if err := q.Err(); err != nil {
		return err
	}
	ds, err := s.Alerts.Deliveries(r.Context(), principal(w).ClientID, id, limit)
	if err != nil {
		return err
	}
	items := make([]deliveryView, len(ds))
	for i, d := range ds {
		items[i] = deliveryViewOf(d)
	}
	return ok(w, map[string]any{"count": len(items), "items": items})
}

// handleAlertWebhookTest is POST /v1/api/alerts/webhook_test {"id"}: a
// sample message sent now to the alert's webhook, and what the receiver
// said. A receiver that refuses or does not answer is still a 200, with
// ok false and the reason: mdqs did its part, and the answer is the
// receiver's (a 503 would say mdqs is down, and a client would retry).
func (s *Server) handleAlertWebhookTest(w http.ResponseWriter, r *http.Request) error {
	id, err := s.idBody(r, "alert")
	if err != nil {
		return err
	}
	res, err := s.Alerts.TestWebhook(r.Context(), principal(w).ClientID, id)
	if err != nil {
		return err
	}
	return ok(w, map[string]any{"ok": res.OK, "http_status": res.HTTPStatus, "vendor_code": res.VendorCode, "message": res.Message,
		"duration_ms": res.Duration.Milliseconds(), "delivery": res.Delivery, "url": res.URL, "format": res.Format})
}
