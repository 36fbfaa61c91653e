package db

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"time"

	"mdqs/internal/market"
)

// The states of an alert delivery (the outbox row of one evaluation that
// fired an alert with a webhook).
const (
	DeliveryPending  = "pending"  // waiting for its next try (next_ms)
	DeliverySending  = "sending"  // claimed by a worker until next_ms
	DeliverySent     = "sent"     // the receiver took it
	DeliveryFailed   = "failed"   // every try failed for the retry time, or one failed for good
	DeliveryCanceled = "canceled" // its alert was deleted before it went
)

// AlertDelivery is one message of an alert: the events one evaluation
// fired, sent together.
type AlertDelivery struct {
	ID        int64
	AlertID   string
	ClientID  string
	Events    int
	CreatedAt time.Time
	State     string
	NextAt    time.Time // pending: the next try; sending: the claim's end
	Attempts  int
	DoneAt    time.Time // sent, failed or canceled
	LastError string
	Tries     []DeliveryAttempt // newest last (AlertDeliveries fills it)
}

// DeliveryAttempt is one try of a delivery.
type DeliveryAttempt struct {
	Attempt    int
	At         time.Time
	Duration   time.Duration
	HTTPStatus int  // 0: no answer (refused, timed out, ...)
	VendorCode *int // the chat app's errcode or code; nil for a generic receiver
	Message    string
	OK         bool
}

// ClaimedDelivery is a delivery a worker holds: the row, its alert (with
// the webhook to send to) and its events.
type ClaimedDelivery struct {
	AlertDelivery
	Claim string // the token RecordDeliveryAttempt must show
	Alert Alert
	Fired []AlertEvent // its events, in order
}

// DeliveryOutcome is what a try leaves the delivery as.
type DeliveryOutcome struct {
	State     string    // DeliverySent, DeliveryPending (try again at NextAt) or DeliveryFailed
	NextAt    time.Time // for DeliveryPending
	LastError string
}

// NextDeliveryDue is the earliest instant a delivery is due (a pending
// one's next try or a claim's end), and false when none waits: the worker
// reads this every tick and writes only when something is due.
func (s *Store) NextDeliveryDue(ctx context.Context) (time.Time, bool, error) {
	var next sql.NullInt64
	err := s.r.QueryRowContext(ctx, `SELECT MIN(next_ms) FROM alert_deliveries WHERE state IN ('pending', 'sending')`).Scan(&next)
	if err != nil || !next.Valid {
		return time.Time{}, false, classify(err, "read the due deliveries")
	}
	return time.UnixMilli(next.Int64), true, nil
}

// ClaimDelivery takes the delivery due first (a pending one whose next try
// has come, or one whose claim ended: its worker died) for lease, and
// false when none is due. Writes are serialized (SQLite's one writer,
// PostgreSQL's write lock), so two instances that both believe they lead
// never hold one delivery at once: the second claim sees the first's.
func (s *Store) ClaimDelivery(ctx context.Context, now time.Time, lease time.Duration) (ClaimedDelivery, bool, error) {
	var c ClaimedDelivery
	found := false
	err := s.write(ctx, func(tx *sql.Tx) error {
		var created, next int64
		err := tx.QueryRowContext(ctx, `SELECT id, alert_id, client_id, events, created_ms, attempts FROM alert_deliveries
			WHERE state IN ('pending', 'sending') AND next_ms <= ? ORDER BY next_ms, id LIMIT 1`, now.UnixMilli()).
			Scan(&c.ID, &c.AlertID, &c.ClientID, &c.Events, &created, &c.Attempts)
		if err == sql.ErrNoRows {
			return nil
		}
		if err != nil {
			return classify(err, "read a due delivery")
		}
		c.CreatedAt = time.UnixMilli(created)
		c.Claim = rand.Text()
		next = now.Add(lease).UnixMilli()
		if _, err := tx.ExecContext(ctx, `UPDATE alert_deliveries SET state = 'sending', claim = ?, next_ms = ? WHERE id = ?`,
			c.Claim, next, c.ID); err != nil {
			return classify(err, "claim a delivery")
		}
		c.State, c.NextAt = DeliverySending, time.UnixMilli(next)
		c.Alert, err = scanAlert(tx.QueryRowContext(ctx, `SELECT `+alertColumns+` FROM alerts WHERE id = ?`, c.AlertID))
		if err != nil {
			return classify(err, "read a delivery's alert")
		}
		c.Fired, err = deliveryEvents(ctx, tx, c.ID, c.Alert.Name)
		found = err == nil
		return err
	})
	return c, found, err
}

func deliveryEvents(ctx context.Context, tx *sql.Tx, id int64, alertName string) ([]AlertEvent, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id, alert_id, client_id, code, name, fired_ms, fields FROM alert_events
		WHERE delivery_id = ? ORDER BY id`, id)
	if err != nil {
		return nil, classify(err, "read a delivery's events")
	}
	defer rows.Close()
	var out []AlertEvent
	for rows.Next() {
		ev := AlertEvent{AlertName: alertName}
		var code, fields string
		var fired int64
		if err := rows.Scan(&ev.ID, &ev.AlertID, &ev.ClientID, &code, &ev.Name, &fired, &fields); err != nil {
			return nil, classify(err, "read a delivery's events")
		}
		c, err := market.ParseCode(code)
		if err != nil {
			return nil, classify(err, "read a delivery's events")
		}
		ev.Code, ev.FiredAt, ev.Fields = c, time.UnixMilli(fired), json.RawMessage(fields)
		out = append(out, ev)
	}
	return out, classify(rows.Err(), "read a delivery's events")
}

// RecordDeliveryAttempt stores a try of delivery id and, while claim is
// still the delivery's, what it leaves the delivery as. A worker whose
// claim ended and was taken by another records its try (it happened) but
// changes nothing else: the current holder decides.
func (s *Store) RecordDeliveryAttempt(ctx context.Context, id int64, claim string, a DeliveryAttempt, out DeliveryOutcome) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		var code sql.NullInt64
		if a.VendorCode != nil {
			code = sql.NullInt64{Int64: int64(*a.VendorCode), Valid: true}
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM alert_delivery_attempts WHERE delivery_id = ?`, id).Scan(&n); err != nil {
			return classify(err, "record a delivery attempt")
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO alert_delivery_attempts (delivery_id, attempt, at_ms, duration_ms, http_status, vendor_code, message, ok)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, id, n+1, a.At.UnixMilli(), a.Duration.Milliseconds(), a.HTTPStatus, code, a.Message, boolInt(a.OK)); err != nil {
			return classify(err, "record a delivery attempt")
		}
		var done, next any
		switch out.State {
		case DeliveryPending:
			next = out.NextAt.UnixMilli()
		default:
			done, next = a.At.UnixMilli(), a.At.UnixMilli()
		}
		_, err := tx.ExecContext(ctx, `UPDATE alert_deliveries SET attempts = attempts + 1, state = ?, next_ms = ?, done_ms = ?,
			last_error = ?, claim = '' WHERE id = ? AND claim = ? AND state = 'sending'`, out.State, next, done, out.LastError, id, claim)
		return classify(err, "record a delivery attempt")
	})
}

// AlertDeliveries are an alert's deliveries, newest first, at most limit,
// each with its tries in order.
func (s *Store) AlertDeliveries(ctx context.Context, alertID string, limit int) ([]AlertDelivery, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT id, alert_id, client_id, events, created_ms, state, next_ms, attempts, done_ms, last_error
		FROM alert_deliveries WHERE alert_id = ? ORDER BY id DESC LIMIT ?`, alertID, limit)
	if err != nil {
		return nil, classify(err, "list alert deliveries")
	}
	out := []AlertDelivery{}
	byID := map[int64]int{}
	for rows.Next() {
		var d AlertDelivery
		var created, next int64
		var done sql.NullInt64
		if err := rows.Scan(&d.ID, &d.AlertID, &d.ClientID, &d.Events, &created, &d.State, &next, &d.Attempts, &done, &d.LastError); err != nil {
			rows.Close()
			return nil, classify(err, "read alert delivery")
		}
		d.CreatedAt, d.NextAt = time.UnixMilli(created), time.UnixMilli(next)
		if done.Valid {
			d.DoneAt = time.UnixMilli(done.Int64)
		}
		byID[d.ID] = len(out)
		out = append(out, d)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(out) == 0 {
		return out, classify(err, "list alert deliveries")
	}
	tries, err := s.r.QueryContext(ctx, `SELECT t.delivery_id, t.attempt, t.at_ms, t.duration_ms, t.http_status, t.vendor_code, t.message, t.ok
		FROM alert_delivery_attempts t JOIN alert_deliveries d ON d.id = t.delivery_id
		WHERE d.alert_id = ? AND d.id >= ? ORDER BY t.delivery_id, t.attempt`, alertID, out[len(out)-1].ID)
	if err != nil {
		return nil, classify(err, "list delivery attempts")
	}
	defer tries.Close()
	for tries.Next() {
		var id, at, dur int64
		var code sql.NullInt64
		var ok int
		var a DeliveryAttempt
		if err := tries.Scan(&id, &a.Attempt, &at, &dur, &a.HTTPStatus, &code, &a.Message, &ok); err != nil {
			return nil, classify(err, "read delivery attempt")
		}
		a.At, a.Duration, a.OK = time.UnixMilli(at), time.Duration(dur)*time.Millisecond, ok != 0
		if code.Valid {
			c := int(code.Int64)
			a.VendorCode = &c
		}
		if i, found := byID[id]; found {
			out[i].Tries = append(out[i].Tries, a)
		}
	}
	return out, classify(tries.Err(), "list delivery attempts")
}
