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
)

// alertView is an alert as the API shows it.
type alertView struct {
	ID         string          `json:"id"`
	Name       string          `json:"name"`
	Expression string          `json:"expression"`
	Universe   json.RawMessage `json:"universe"`
	Cooldown   string          `json:"cooldown"`
	CreatedAt  string          `json:"created_at"`
}

func alertViewOf(a db.Alert) alertView {
	return alertView{ID: a.ID, Name: a.Name, Expression: a.Expression, Universe: a.Universe, Cooldown: a.Cooldown.String(),
		CreatedAt: market.FormatTime(a.CreatedAt)}
}

// alertEventView is one firing.
type alertEventView struct {
	ID        int64           `json:"id"`
	AlertID   string          `json:"alert_id"`
	AlertName string          `json:"alert_name"`
	Code      string          `json:"code"`
	Name      string          `json:"name"`
	FiredAt   string          `json:"fired_at"`
	Fields    json.RawMessage `json:"fields"`
}

func alertEventViewOf(e db.AlertEvent) alertEventView {
	return alertEventView{ID: e.ID, AlertID: e.AlertID, AlertName: e.AlertName, Code: e.Code.String(), Name: e.Name,
		FiredAt: market.FormatTime(e.FiredAt), Fields: e.Fields}
}

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
		return market.Errorf(market.KindInvalid, `the body must be a JSON object {"expression": "...", "universe": {...}, "cooldown": "30m", "name": "..."}: %v`, err)
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
	body, err := s.readBody(r)
	if err != nil {
		return err
	}
	var req struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(body, &req); err != nil || req.ID == "" {
		return market.Errorf(market.KindInvalid, `the body must be {"id": "<alert id>"}`)
	}
	return s.deleteAlert(w, r, req.ID)
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
