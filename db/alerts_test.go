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

func TestAlertsLifecycleAndCooldown(t *testing.T) {
	s := dbtest.Open(t)
	ctx := context.Background()
	t0 := time.Date(2026, 11, 23, 10, 0, 0, 0, market.Shanghai())
	a := db.Alert{ID: "a1", ClientID: "c", Name: "breakout", Expression: "pct > 5", Universe: json.RawMessage(`{}`), Cooldown: 30 * time.Minute, CreatedAt: t0}
	if err := s.CreateAlert(ctx, a, 2); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateAlert(ctx, db.Alert{ID: "a2", ClientID: "c", Expression: "pct < -5", Universe: json.RawMessage(`{}`), CreatedAt: t0}, 2); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateAlert(ctx, db.Alert{ID: "a3", ClientID: "c", Expression: "x", Universe: json.RawMessage(`{}`), CreatedAt: t0}, 2); market.KindOf(err) != market.KindConflict {
		t.Fatalf("a third alert over a cap of 2: %v; want a conflict", err)
	}
	if err := s.CreateAlert(ctx, db.Alert{ID: "b1", ClientID: "other", Expression: "x", Universe: json.RawMessage(`{}`), CreatedAt: t0}, 2); err != nil {
		t.Fatalf("another client's first alert: %v", err)
	}
	mine, _ := s.Alerts(ctx, "c")
	all, _ := s.Alerts(ctx, "")
	if len(mine) != 2 || len(all) != 3 || mine[0].ID != "a1" || mine[0].Cooldown != 30*time.Minute {
		t.Fatalf("alerts of c %+v, all %d", mine, len(all))
	}

	m := func(code string) db.AlertMatch {
		return db.AlertMatch{Code: market.MustCode(code), Name: code, Fields: json.RawMessage(`{"pct":6.1}`)}
	}
	fired, err := s.FireAlert(ctx, a, []db.AlertMatch{m("600519.SH"), m("000001.SZ")}, t0)
	if err != nil || len(fired) != 2 || fired[0].ID >= fired[1].ID {
		t.Fatalf("first evaluation: %v %+v", err, fired)
	}
	// Within the cooldown nothing fires again; a new code does.
	fired, _ = s.FireAlert(ctx, a, []db.AlertMatch{m("600519.SH"), m("300750.SZ")}, t0.Add(29*time.Minute))
	if len(fired) != 1 || fired[0].Code.String() != "300750.SZ" {
		t.Fatalf("within the cooldown: %+v; want only the new code", fired)
	}
	fired, _ = s.FireAlert(ctx, a, []db.AlertMatch{m("600519.SH")}, t0.Add(30*time.Minute))
	if len(fired) != 1 {
		t.Fatalf("a cooldown later: %+v; want it again", fired)
	}

	evs, err := s.AlertEvents(ctx, "c", 0, 100)
	if err != nil || len(evs) != 4 || evs[0].AlertName != "breakout" || string(evs[0].Fields) != `{"pct":6.1}` {
		t.Fatalf("events: %v %+v", err, evs)
	}
	page, _ := s.AlertEvents(ctx, "c", evs[1].ID, 1)
	if len(page) != 1 || page[0].ID != evs[2].ID {
		t.Fatalf("since the second, limit 1: %+v", page)
	}
	if other, _ := s.AlertEvents(ctx, "other", 0, 100); len(other) != 0 {
		t.Fatalf("another client sees c's events: %+v", other)
	}

	if err := s.DeleteAlert(ctx, "a1", t0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AlertByID(ctx, "a1"); market.KindOf(err) != market.KindNotFound {
		t.Fatalf("a deleted alert: %v", err)
	}
	if err := s.DeleteAlert(ctx, "a1", t0); market.KindOf(err) != market.KindNotFound {
		t.Fatalf("deleting twice: %v", err)
	}
	if evs, _ := s.AlertEvents(ctx, "c", 0, 100); len(evs) != 4 {
		t.Fatalf("a deleted alert's events: %d; want them kept", len(evs))
	}
	// Its place is free again.
	if err := s.CreateAlert(ctx, db.Alert{ID: "a4", ClientID: "c", Expression: "x", Universe: json.RawMessage(`{}`), CreatedAt: t0}, 2); err != nil {
		t.Fatalf("an alert after a delete: %v", err)
	}
}
