package db

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"mdqs/internal/market"
)

// Alert is a client's standing screen.
type Alert struct {
	ID         string
	ClientID   string
	Name       string
	Expression string
	Universe   json.RawMessage
	Cooldown   time.Duration // a code that fired stays quiet this long
	CreatedAt  time.Time
	// Webhook is where its firings are also sent; the zero value: nowhere.
	Webhook Webhook
}

// Webhook is an alert's chat-app or HTTP receiver. Secret is kept in
// clear because signing needs it; nothing shows it (the API says only
// whether one is set) and nothing logs it.
type Webhook struct {
	URL    string
	Format string // generic, dingtalk, wecom, feishu
	Secret string
}

// Set reports that the alert has a webhook.
func (w Webhook) Set() bool { return w.URL != "" }

// AlertMatch is a code an alert's expression matched, with the values of
// the fields the expression used.
type AlertMatch struct {
	Code   market.Code
	Name   string
	Fields json.RawMessage
}

// AlertEvent is an alert that fired for a code.
type AlertEvent struct {
	ID        int64 // increasing: the since= cursor
	AlertID   string
	AlertName string
	ClientID  string
	Code      market.Code
	Name      string // the stock's
	FiredAt   time.Time
	Fields    json.RawMessage
}

const alertColumns = `id, client_id, name, expression, universe, cooldown_ms, created_at, webhook_url, webhook_format, webhook_secret`

func scanAlert(row scanner) (Alert, error) {
	var a Alert
	var universe string
	var cooldown, created int64
	if err := row.Scan(&a.ID, &a.ClientID, &a.Name, &a.Expression, &universe, &cooldown, &created,
		&a.Webhook.URL, &a.Webhook.Format, &a.Webhook.Secret); err != nil {
		return a, err
	}
	a.Universe = json.RawMessage(universe)
	a.Cooldown = time.Duration(cooldown) * time.Millisecond
	a.CreatedAt = time.UnixMilli(created)
	return a, nil
}

// CreateAlert stores a new alert unless the client already has max live
// ones (a conflict saying so).
func (s *Store) CreateAlert(ctx context.Context, a Alert, max int) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM alerts WHERE client_id = ? AND deleted_at IS NULL`, a.ClientID).Scan(&n); err != nil {
			return classify(err, "count alerts")
		}
		if n >= max {
			return market.Errorf(market.KindConflict, "client %s already has %d alerts (the most allowed); delete one first", a.ClientID, n)
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO alerts (`+alertColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			a.ID, a.ClientID, a.Name, a.Expression, string(a.Universe), a.Cooldown.Milliseconds(), a.CreatedAt.UnixMilli(),
			a.Webhook.URL, a.Webhook.Format, a.Webhook.Secret)
		return classify(err, "insert alert")
	})
}

// Alerts lists a client's live alerts, oldest first; "" lists every
// client's (the evaluator's).
func (s *Store) Alerts(ctx context.Context, clientID string) ([]Alert, error) {
	q := `SELECT ` + alertColumns + ` FROM alerts WHERE deleted_at IS NULL`
	var args []any
	if clientID != "" {
		q += ` AND client_id = ?`
		args = append(args, clientID)
	}
	rows, err := s.r.QueryContext(ctx, q+` ORDER BY created_at, id`, args...)
	if err != nil {
		return nil, classify(err, "list alerts")
	}
	defer rows.Close()
	var out []Alert
	for rows.Next() {
		a, err := scanAlert(rows)
		if err != nil {
			return nil, classify(err, "read alert")
		}
		out = append(out, a)
	}
	return out, classify(rows.Err(), "list alerts")
}

// AlertByID is a live alert, whoever owns it (the caller checks); a
// deleted or unknown one is not found.
func (s *Store) AlertByID(ctx context.Context, id string) (Alert, error) {
	a, err := scanAlert(s.r.QueryRowContext(ctx, `SELECT `+alertColumns+` FROM alerts WHERE id = ? AND deleted_at IS NULL`, id))
	if err == sql.ErrNoRows {
		return a, market.Errorf(market.KindNotFound, "no alert %s", id)
	}
	return a, classify(err, "read alert")
}

// DeleteAlert ends an alert; the events it fired stay readable.
func (s *Store) DeleteAlert(ctx context.Context, id string, at time.Time) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE alerts SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL`, at.UnixMilli(), id)
		if err != nil {
			return classify(err, "delete alert")
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return market.Errorf(market.KindNotFound, "no alert %s", id)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM alert_fires WHERE alert_id = ?`, id); err != nil {
			return classify(err, "delete alert")
		}
		// Its messages not sent yet are not sent: the trader ended it.
		_, err = tx.ExecContext(ctx, `UPDATE alert_deliveries SET state = 'canceled', done_ms = ?, claim = ''
			WHERE alert_id = ? AND state IN ('pending', 'sending')`, at.UnixMilli(), id)
		return classify(err, "cancel the alert's deliveries")
	})
}

// FireAlert records the matches of one evaluation of a: a code fires when
// it never fired for a or its last firing is a cooldown old, and then its
// event is stored. One transaction, so an event is stored once whatever
// instance evaluates; the events fired are returned in order. When a has
// a webhook and anything fired, the same transaction writes one delivery
// (the outbox row the worker sends) carrying all of them: an event is
// never stored without its message, nor a message without its events.
func (s *Store) FireAlert(ctx context.Context, a Alert, matches []AlertMatch, now time.Time) ([]AlertEvent, error) {
	var fired []AlertEvent
	err := s.write(ctx, func(tx *sql.Tx) error {
		fired = fired[:0]
		var delivery sql.NullInt64
		for _, m := range matches {
			var last int64
			err := tx.QueryRowContext(ctx, `SELECT fired_ms FROM alert_fires WHERE alert_id = ? AND code = ?`, a.ID, m.Code.String()).Scan(&last)
			switch {
			case err == sql.ErrNoRows:
			case err != nil:
				return classify(err, "read alert firing")
			case now.UnixMilli()-last < a.Cooldown.Milliseconds():
				continue
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO alert_fires (alert_id, code, fired_ms) VALUES (?, ?, ?)
				ON CONFLICT (alert_id, code) DO UPDATE SET fired_ms = excluded.fired_ms`, a.ID, m.Code.String(), now.UnixMilli()); err != nil {
				return classify(err, "record alert firing")
			}
			if a.Webhook.Set() && !delivery.Valid {
				if err := tx.QueryRowContext(ctx, `INSERT INTO alert_deliveries (alert_id, client_id, events, created_ms, state, next_ms)
					VALUES (?, ?, 0, ?, 'pending', ?) RETURNING id`, a.ID, a.ClientID, now.UnixMilli(), now.UnixMilli()).Scan(&delivery); err != nil {
					return classify(err, "store alert delivery")
				}
			}
			ev := AlertEvent{AlertID: a.ID, AlertName: a.Name, ClientID: a.ClientID, Code: m.Code, Name: m.Name, FiredAt: now, Fields: m.Fields}
			if err := tx.QueryRowContext(ctx, `INSERT INTO alert_events (alert_id, client_id, code, name, fired_ms, fields, delivery_id)
				VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`, a.ID, a.ClientID, m.Code.String(), m.Name, now.UnixMilli(), string(m.Fields), delivery).Scan(&ev.ID); err != nil {
				return classify(err, "store alert event")
			}
			fired = append(fired, ev)
		}
		if delivery.Valid {
			_, err := tx.ExecContext(ctx, `UPDATE alert_deliveries SET events = ? WHERE id = ?`, len(fired), delivery.Int64)
			return classify(err, "store alert delivery")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return fired, nil
}

// AlertEvents are a client's events after the cursor since, oldest first,
// at most limit, with the name their alert has (or had).
func (s *Store) AlertEvents(ctx context.Context, clientID string, since int64, limit int) ([]AlertEvent, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT e.id, e.alert_id, a.name, e.client_id, e.code, e.name, e.fired_ms, e.fields
		FROM alert_events e JOIN alerts a ON a.id = e.alert_id
		WHERE e.client_id = ? AND e.id > ? ORDER BY e.id LIMIT ?`, clientID, since, limit)
	if err != nil {
		return nil, classify(err, "list alert events")
	}
	defer rows.Close()
	out := []AlertEvent{}
	for rows.Next() {
		var ev AlertEvent
		var code, fields string
		var fired int64
		if err := rows.Scan(&ev.ID, &ev.AlertID, &ev.AlertName, &ev.ClientID, &code, &ev.Name, &fired, &fields); err != nil {
			return nil, classify(err, "read alert event")
		}
		c, err := market.ParseCode(code)
		if err != nil {
			return nil, classify(err, "read alert event")
		}
		ev.Code, ev.FiredAt, ev.Fields = c, time.UnixMilli(fired), json.RawMessage(fields)
		out = append(out, ev)
	}
	return out, classify(rows.Err(), "list alert events")
}
