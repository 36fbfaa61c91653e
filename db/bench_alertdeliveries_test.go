package db_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/market"
)

// BenchmarkFireAlert is one evaluation's firing of 30 codes (a burst at
// the open), for an alert without a webhook (the baseline: the events
// alone) and with one (the same transaction also writes the outbox row
// and links the events to it).
//
//	go test -run '^$' -bench 'FireAlert|NextDeliveryDue' -benchtime 200x ./db
func BenchmarkFireAlert(b *testing.B) {
	for _, hooked := range []bool{false, true} {
		name := "plain"
		if hooked {
			name = "webhook"
		}
		b.Run(name, func(b *testing.B) {
			s := dbtest.Open(b)
			ctx := context.Background()
			t0 := time.Date(2026, 11, 24, 9, 30, 0, 0, market.Shanghai())
			a := db.Alert{ID: "a", ClientID: "c", Name: "burst", Expression: "pct > 5", Universe: json.RawMessage(`{}`), Cooldown: time.Minute, CreatedAt: t0}
			if hooked {
				a.Webhook = db.Webhook{URL: "https://oapi.dingtalk.com/robot/send?access_token=x", Format: "dingtalk", Secret: "SECx"}
			}
			if err := s.CreateAlert(ctx, a, 10); err != nil {
				b.Fatal(err)
			}
			ms := make([]db.AlertMatch, 30)
			for i := range ms {
				ms[i] = db.AlertMatch{Code: market.MustCode(fmt.Sprintf("%06d.SZ", i+1)), Name: "n", Fields: json.RawMessage(`{"pct":6.1,"volume_ratio":2.4}`)}
			}
			b.ResetTimer()
			for i := range b.N {
				evs, err := s.FireAlert(ctx, a, ms, t0.Add(time.Duration(i)*time.Minute))
				if err != nil || len(evs) != 30 {
					b.Fatalf("%v %d", err, len(evs))
				}
			}
		})
	}
}

// BenchmarkNextDeliveryDue is the outbox worker's tick while nothing is
// due (every second on the leader), on an outbox of 10,000 sent messages:
// one read of the (state, next_ms) index.
func BenchmarkNextDeliveryDue(b *testing.B) {
	s := dbtest.Open(b)
	ctx := context.Background()
	t0 := time.Date(2026, 11, 24, 9, 30, 0, 0, market.Shanghai())
	a := db.Alert{ID: "a", ClientID: "c", Expression: "pct > 5", Universe: json.RawMessage(`{}`), Cooldown: time.Minute, CreatedAt: t0,
		Webhook: db.Webhook{URL: "https://example.com/h", Format: "generic", Secret: "s"}}
	if err := s.CreateAlert(ctx, a, 10); err != nil {
		b.Fatal(err)
	}
	m := []db.AlertMatch{{Code: market.MustCode("600519.SH"), Name: "n", Fields: json.RawMessage(`{}`)}}
	for i := range 10000 {
		at := t0.Add(time.Duration(i) * time.Minute)
		if _, err := s.FireAlert(ctx, a, m, at); err != nil {
			b.Fatal(err)
		}
		c, ok, err := s.ClaimDelivery(ctx, at, time.Minute)
		if err != nil || !ok {
			b.Fatal(ok, err)
		}
		if err := s.RecordDeliveryAttempt(ctx, c.ID, c.Claim, db.DeliveryAttempt{At: at, HTTPStatus: 200, OK: true}, db.DeliveryOutcome{State: db.DeliverySent}); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for range b.N {
		if _, due, err := s.NextDeliveryDue(ctx); err != nil || due {
			b.Fatal(due, err)
		}
	}
}
