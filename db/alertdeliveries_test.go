package db_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/market"
)

// The outbox of alert webhooks (issue 36), on SQLite and PostgreSQL alike:
// a firing and its delivery are one transaction, a claim is exclusive
// until it ends, a try is recorded whoever made it, and the listing shows
// the tries.
func TestAlertDeliveriesOutbox(t *testing.T) {
	s := dbtest.Open(t)
	ctx := context.Background()
	t0 := time.Date(2026, 11, 24, 10, 0, 0, 0, market.Shanghai())
	hook := db.Webhook{URL: "https://oapi.dingtalk.com/robot/send?access_token=abc", Format: "dingtalk", Secret: "SECxyz"}
	a := db.Alert{ID: "w1", ClientID: "c", Name: "放量", Expression: "pct > 5", Universe: json.RawMessage(`{}`),
		Cooldown: 30 * time.Minute, CreatedAt: t0, Webhook: hook}
	plain := db.Alert{ID: "p1", ClientID: "c", Name: "plain", Expression: "pct > 5", Universe: json.RawMessage(`{}`),
		Cooldown: 30 * time.Minute, CreatedAt: t0}
	for _, x := range []db.Alert{a, plain} {
		if err := s.CreateAlert(ctx, x, 5); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := s.AlertByID(ctx, "w1"); err != nil || got.Webhook != hook {
		t.Fatalf("AlertByID(w1).Webhook = %+v, %v; want %+v", got.Webhook, err, hook)
	}
	if _, due, err := s.NextDeliveryDue(ctx); err != nil || due {
		t.Fatalf("NextDeliveryDue on an empty outbox = %v, %v; want none", due, err)
	}

	m := func(code string) db.AlertMatch {
		return db.AlertMatch{Code: market.MustCode(code), Name: "n" + code, Fields: json.RawMessage(`{"pct":6.1}`)}
	}
	// Three codes fire at once: one delivery carrying the three. The
	// alert without a webhook fires without one.
	if evs, err := s.FireAlert(ctx, a, []db.AlertMatch{m("600519.SH"), m("000001.SZ"), m("300750.SZ")}, t0); err != nil || len(evs) != 3 {
		t.Fatalf("FireAlert: %v %+v", err, evs)
	}
	if _, err := s.FireAlert(ctx, plain, []db.AlertMatch{m("600519.SH")}, t0); err != nil {
		t.Fatal(err)
	}
	// Nothing fires within the cooldown: no delivery either.
	if _, err := s.FireAlert(ctx, a, []db.AlertMatch{m("600519.SH")}, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	ds, err := s.AlertDeliveries(ctx, "w1", 10)
	if err != nil || len(ds) != 1 || ds[0].Events != 3 || ds[0].State != db.DeliveryPending || ds[0].Attempts != 0 {
		t.Fatalf("deliveries of w1 = %+v, %v; want one pending of 3 events", ds, err)
	}
	if ds, _ := s.AlertDeliveries(ctx, "p1", 10); len(ds) != 0 {
		t.Fatalf("deliveries of an alert without a webhook = %+v; want none", ds)
	}
	if next, due, err := s.NextDeliveryDue(ctx); err != nil || !due || !next.Equal(t0) {
		t.Fatalf("NextDeliveryDue = %s, %v, %v; want %s", next, due, err, t0)
	}

	// A claim: the delivery with its alert (the secret to sign with) and
	// its events in order; a second claim meanwhile gets nothing.
	lease := time.Minute
	c, ok, err := s.ClaimDelivery(ctx, t0.Add(time.Second), lease)
	if err != nil || !ok || c.ID != ds[0].ID || c.Alert.Webhook != hook || len(c.Fired) != 3 ||
		c.Fired[0].Code.String() != "600519.SH" || c.Fired[2].Code.String() != "300750.SZ" || c.Fired[0].AlertName != "放量" || c.Claim == "" {
		t.Fatalf("ClaimDelivery = %+v, %v, %v", c, ok, err)
	}
	if _, ok, err := s.ClaimDelivery(ctx, t0.Add(2*time.Second), lease); err != nil || ok {
		t.Fatalf("a second claim while the first holds: %v, %v; want none", ok, err)
	}
	code := 410100
	at := t0.Add(3 * time.Second)
	if err := s.RecordDeliveryAttempt(ctx, c.ID, c.Claim, db.DeliveryAttempt{At: at, Duration: 120 * time.Millisecond, HTTPStatus: 200,
		VendorCode: &code, Message: "send too fast"}, db.DeliveryOutcome{State: db.DeliveryPending, NextAt: at.Add(5 * time.Second), LastError: "send too fast"}); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.ClaimDelivery(ctx, at.Add(4*time.Second), lease); ok {
		t.Fatal("claimed before its back-off ended")
	}
	// The worker that claims next dies: its claim ends and another worker
	// takes the delivery again.
	dead, ok, err := s.ClaimDelivery(ctx, at.Add(5*time.Second), lease)
	if err != nil || !ok {
		t.Fatalf("a claim after the back-off: %v, %v", ok, err)
	}
	if _, ok, _ := s.ClaimDelivery(ctx, at.Add(5*time.Second+lease-time.Millisecond), lease); ok {
		t.Fatal("claimed while the first claim still held")
	}
	live, ok, err := s.ClaimDelivery(ctx, at.Add(5*time.Second+lease), lease)
	if err != nil || !ok || live.Claim == dead.Claim {
		t.Fatalf("a claim after a dead worker's claim ended: %v, %v", ok, err)
	}
	sentAt := at.Add(5*time.Second + lease + time.Second)
	if err := s.RecordDeliveryAttempt(ctx, live.ID, live.Claim, db.DeliveryAttempt{At: sentAt, Duration: 80 * time.Millisecond, HTTPStatus: 200, OK: true,
		VendorCode: new(int), Message: "ok"}, db.DeliveryOutcome{State: db.DeliverySent}); err != nil {
		t.Fatal(err)
	}
	// The dead worker's try, recorded late (it was not dead after all):
	// kept as a try, but it no longer decides the state.
	if err := s.RecordDeliveryAttempt(ctx, dead.ID, dead.Claim, db.DeliveryAttempt{At: sentAt, HTTPStatus: 0, Message: "timeout"},
		db.DeliveryOutcome{State: db.DeliveryPending, NextAt: sentAt.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	ds, err = s.AlertDeliveries(ctx, "w1", 10)
	if err != nil || len(ds) != 1 {
		t.Fatalf("deliveries: %+v %v", ds, err)
	}
	d := ds[0]
	if d.State != db.DeliverySent || !d.DoneAt.Equal(sentAt) || d.Attempts != 2 || len(d.Tries) != 3 {
		t.Fatalf("after success: %+v; want sent at %s, 2 attempts counted, 3 tries listed", d, sentAt)
	}
	if tr := d.Tries[0]; tr.Attempt != 1 || tr.VendorCode == nil || *tr.VendorCode != 410100 || tr.Message != "send too fast" || tr.OK ||
		tr.Duration != 120*time.Millisecond || !tr.At.Equal(at) {
		t.Errorf("the first try: %+v", tr)
	}
	if tr := d.Tries[1]; !tr.OK || tr.VendorCode == nil || *tr.VendorCode != 0 {
		t.Errorf("the second try: %+v", tr)
	}
	if tr := d.Tries[2]; tr.OK || tr.VendorCode != nil || tr.HTTPStatus != 0 {
		t.Errorf("the late try: %+v", tr)
	}
	if _, due, _ := s.NextDeliveryDue(ctx); due {
		t.Error("a sent delivery is still due")
	}

	// A cooldown later it fires again: a second delivery, listed first.
	// Deleting the alert cancels it before it goes.
	if _, err := s.FireAlert(ctx, a, []db.AlertMatch{m("600519.SH")}, t0.Add(30*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteAlert(ctx, "w1", t0.Add(31*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.ClaimDelivery(ctx, t0.Add(32*time.Minute), lease); ok {
		t.Error("claimed a delivery of a deleted alert")
	}
	ds, _ = s.AlertDeliveries(ctx, "w1", 10)
	if len(ds) != 2 || ds[0].State != db.DeliveryCanceled || ds[0].Events != 1 || ds[1].State != db.DeliverySent {
		t.Errorf("after the delete: %+v; want the new one canceled first, the old one sent", ds)
	}
	if ds, _ := s.AlertDeliveries(ctx, "w1", 1); len(ds) != 1 || ds[0].State != db.DeliveryCanceled || len(ds[0].Tries) != 0 {
		t.Errorf("limit 1: %+v", ds)
	}
}
