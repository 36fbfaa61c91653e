package alert_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/internal/alert"
	"mdqs/internal/market"
	"mdqs/internal/screener"
	"mdqs/internal/webhook"
	"mdqs/internal/webhook/webhooktest"
)

const dingSecret = "SEC0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0"

// webhookFixture is a fixture whose webhooks may reach this machine (the
// local robots), with a resolver that never asks the network.
func webhookFixture(t *testing.T, retryFor time.Duration, logs *bytes.Buffer) *fixture {
	t.Helper()
	return newFixtureWith(t, alert.Config{MaxPerClient: 3, Webhooks: alert.Webhooks{AllowPrivate: true, Timeout: 2 * time.Second,
		RetryFor: retryFor, PublicURL: "https://mdqs.example.com/",
		Resolve: func(context.Context, string, string) ([]netip.Addr, error) { return nil, nil }}}, logs)
}

func (f *fixture) deliver(t *testing.T) int {
	t.Helper()
	n, err := f.svc.Deliver(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestBackoff(t *testing.T) {
	for _, tt := range []struct {
		attempts int
		want     time.Duration
	}{{1, 5 * time.Second}, {2, 10 * time.Second}, {3, 20 * time.Second}, {6, 160 * time.Second}, {7, 5 * time.Minute}, {40, 5 * time.Minute}} {
		if got := alert.Backoff(tt.attempts); got != tt.want {
			t.Errorf("Backoff(%d) = %s, want %s", tt.attempts, got, tt.want)
		}
	}
}

// A burst is one message; a robot that is down gets it again after 5 s,
// 10 s, 20 s ..., and once it answers, the message is sent and not again.
// Every try is listed, and nothing logged shows the secret or the token.
func TestWebhookRetriesWithBackoffUntilSent(t *testing.T) {
	var logs bytes.Buffer
	f := webhookFixture(t, time.Hour, &logs)
	ctx := context.Background()
	robot := webhooktest.NewReceiver(t, "dingtalk", dingSecret, f.clock.Now)
	a, err := f.svc.Create(ctx, "c", alert.Request{Name: "涨超5%", Expression: "pct > 5",
		Webhook: &webhook.Target{URL: robot.URL(), Format: "dingtalk", Secret: dingSecret}})
	if err != nil {
		t.Fatal(err)
	}
	robot.SetFail(http.StatusServiceUnavailable)
	if got := f.evaluate(t); len(got) != 2 {
		t.Fatalf("fired %v; want 600519.SH and 300750.SZ", got)
	}
	if n := f.deliver(t); n != 1 || len(robot.Received()) != 1 {
		t.Fatalf("first round: %d tried, the robot got %d; want one message for both codes", n, len(robot.Received()))
	}
	for _, step := range []struct {
		advance time.Duration
		want    int // requests the robot has after it
	}{
		{4 * time.Second, 1}, {time.Second, 2}, // 5 s after the first
		{9 * time.Second, 2}, {time.Second, 3}, // 10 s after the second
	} {
		f.clock.Advance(step.advance)
		f.deliver(t)
		if got := len(robot.Received()); got != step.want {
			t.Fatalf("after %s more: the robot got %d requests, want %d", step.advance, got, step.want)
		}
	}
	robot.SetFail(0)
	f.clock.Advance(20 * time.Second)
	f.deliver(t)
	f.clock.Advance(time.Hour)
	f.deliver(t)
	got := robot.Received()
	if len(got) != 4 {
		t.Fatalf("the robot got %d requests, want 4 (three failures, one success, nothing after)", len(got))
	}
	var body struct {
		Text struct {
			Content string `json:"content"`
		} `json:"text"`
	}
	json.Unmarshal(got[3].Body, &body)
	for _, want := range []string{"【mdqs 预警】涨超5%", "600519.SH n600519.SH  pct=6", "300750.SZ n300750.SZ  pct=9", "查看：https://mdqs.example.com/"} {
		if !strings.Contains(body.Text.Content, want) {
			t.Errorf("the message lacks %q:\n%s", want, body.Text.Content)
		}
	}
	ds, err := f.svc.Deliveries(ctx, "c", a.ID, 10)
	if err != nil || len(ds) != 1 {
		t.Fatalf("Deliveries: %v %+v", err, ds)
	}
	d := ds[0]
	if d.State != db.DeliverySent || d.Events != 2 || len(d.Tries) != 4 || d.Tries[0].HTTPStatus != 503 || d.Tries[0].OK ||
		!d.Tries[3].OK || d.Tries[3].VendorCode == nil || *d.Tries[3].VendorCode != 0 {
		t.Errorf("the delivery: %+v", d)
	}
	if _, err := f.svc.Deliveries(ctx, "other", a.ID, 10); market.KindOf(err) != market.KindForbidden {
		t.Errorf("another client's deliveries: %v; want forbidden", err)
	}
	if strings.Contains(logs.String(), dingSecret) || strings.Contains(logs.String(), "0123456789abcdef0123456789abcdef") ||
		!strings.Contains(logs.String(), "access_token=***") {
		t.Errorf("the logs show the secret or the token, or not the redacted URL:\n%s", logs.String())
	}
}

// A robot that never answers is tried until alerts.webhook_retry_for has
// passed since the firing, then the delivery is failed, saying so.
func TestWebhookGivesUpAfterRetryFor(t *testing.T) {
	f := webhookFixture(t, time.Minute, &bytes.Buffer{})
	ctx := context.Background()
	robot := webhooktest.NewReceiver(t, "generic", "shared", f.clock.Now)
	robot.SetFail(http.StatusBadGateway)
	a, err := f.svc.Create(ctx, "c", alert.Request{Expression: "pct > 8", Webhook: &webhook.Target{URL: robot.URL(), Format: "generic", Secret: "shared"}})
	if err != nil {
		t.Fatal(err)
	}
	f.evaluate(t)
	for range 20 {
		f.deliver(t)
		f.clock.Advance(5 * time.Second)
	}
	// Tries at 0, 5, 15 and 35 s; the next would be at 75 s, past 1 min.
	ds, _ := f.svc.Deliveries(ctx, "c", a.ID, 10)
	if len(ds) != 1 || ds[0].State != db.DeliveryFailed || len(ds[0].Tries) != 4 || len(robot.Received()) != 4 ||
		!strings.Contains(ds[0].LastError, "gave up after try 4, 35s after the firing: HTTP 502 Bad Gateway") {
		t.Fatalf("after a minute of failures: %+v, the robot got %d", ds, len(robot.Received()))
	}
}

// A robot's own refusal of the request (a generic receiver's 4xx) is
// final: trying again would be refused the same way.
func TestWebhookRefusedForGoodIsNotRetried(t *testing.T) {
	f := webhookFixture(t, time.Hour, &bytes.Buffer{})
	ctx := context.Background()
	robot := webhooktest.NewReceiver(t, "generic", "the-receivers-secret", f.clock.Now)
	a, _ := f.svc.Create(ctx, "c", alert.Request{Expression: "pct > 8", Webhook: &webhook.Target{URL: robot.URL(), Format: "generic", Secret: "a-typo"}})
	f.evaluate(t)
	f.deliver(t)
	f.clock.Advance(time.Hour)
	f.deliver(t)
	ds, _ := f.svc.Deliveries(ctx, "c", a.ID, 10)
	if len(ds) != 1 || ds[0].State != db.DeliveryFailed || len(robot.Received()) != 1 || ds[0].Tries[0].HTTPStatus != 401 {
		t.Fatalf("a receiver refusing the signature: %+v, the robot got %d", ds, len(robot.Received()))
	}
}

// POST /v1/api/alerts/webhook_test's work: a sample message sent now, the
// robot's answer returned, nothing stored.
func TestWebhookTest(t *testing.T) {
	f := webhookFixture(t, time.Hour, &bytes.Buffer{})
	ctx := context.Background()
	robot := webhooktest.NewReceiver(t, "feishu", "feishu-secret", f.clock.Now)
	a, _ := f.svc.Create(ctx, "c", alert.Request{Name: "test me", Expression: "pct > 50", Webhook: &webhook.Target{URL: robot.URL(), Format: "feishu", Secret: "feishu-secret"}})
	r, err := f.svc.TestWebhook(ctx, "c", a.ID)
	if err != nil || !r.OK || r.VendorCode == nil || *r.VendorCode != 0 || r.Format != "feishu" || strings.Contains(r.URL, "2f4c0c2e") ||
		!strings.HasPrefix(r.Delivery, "test.") || len(robot.Received()) != 1 || !bytes.Contains(robot.Received()[0].Body, []byte("mdqs 测试")) {
		t.Fatalf("TestWebhook: %v %+v", err, r)
	}
	if ds, _ := f.svc.Deliveries(ctx, "c", a.ID, 10); len(ds) != 0 {
		t.Errorf("a test left deliveries: %+v", ds)
	}
	if _, err := f.svc.TestWebhook(ctx, "other", a.ID); market.KindOf(err) != market.KindForbidden {
		t.Errorf("another client's: %v", err)
	}
	plain, _ := f.svc.Create(ctx, "c", alert.Request{Expression: "pct > 50"})
	if _, err := f.svc.TestWebhook(ctx, "c", plain.ID); market.KindOf(err) != market.KindConflict {
		t.Errorf("an alert without a webhook: %v; want a conflict", err)
	}
	// A wrong secret: the robot's refusal is the answer, not an error.
	bad, _ := f.svc.Create(ctx, "c", alert.Request{Expression: "pct > 50", Webhook: &webhook.Target{URL: robot.URL(), Format: "feishu", Secret: "wrong"}})
	r, err = f.svc.TestWebhook(ctx, "c", bad.ID)
	if err != nil || r.OK || r.VendorCode == nil || *r.VendorCode != 19021 || !strings.Contains(r.Message, "sign match fail") {
		t.Errorf("a wrong secret: %v %+v", err, r)
	}
}

// Create checks the webhook: a private address is refused unless allowed.
func TestCreateChecksTheWebhook(t *testing.T) {
	f := newFixture(t)
	_, err := f.svc.Create(context.Background(), "c", alert.Request{Expression: "pct > 5",
		Webhook: &webhook.Target{URL: "http://192.168.1.20:8080/hook", Format: "generic", Secret: "s"}})
	if market.KindOf(err) != market.KindInvalid || !strings.Contains(err.Error(), "alerts.webhook_allow_private") {
		t.Errorf("a LAN address: %v", err)
	}
	_, err = f.svc.Create(context.Background(), "c", alert.Request{Expression: "pct > 5",
		Webhook: &webhook.Target{URL: "https://oapi.dingtalk.com/robot/send?access_token=x", Format: "dingding"}})
	if market.KindOf(err) != market.KindInvalid || !strings.Contains(err.Error(), "webhook.format") {
		t.Errorf("an unknown format: %v", err)
	}
	a, err := f.svc.Create(context.Background(), "c", alert.Request{Expression: "pct > 5", Universe: screener.Universe{},
		Webhook: &webhook.Target{URL: "https://203.119.128.1/robot/send?access_token=x", Format: "dingtalk", Secret: "SECx"}})
	if err != nil || a.Webhook.Secret != "SECx" || a.Webhook.Format != "dingtalk" {
		t.Errorf("a public robot: %v %+v", err, a.Webhook)
	}
}

// Two instances that both believe they lead (a leadership handing over)
// drain one outbox at once: each message reaches the robot once.
func TestTwoWorkersSendEachMessageOnce(t *testing.T) {
	f := webhookFixture(t, time.Hour, &bytes.Buffer{})
	ctx := context.Background()
	robot := webhooktest.NewReceiver(t, "wecom", "k-123", f.clock.Now)
	for i := range 3 {
		if _, err := f.svc.Create(ctx, "c", alert.Request{Expression: fmt.Sprintf("pct > %d", i),
			Webhook: &webhook.Target{URL: robot.URL(), Format: "wecom"}}); err != nil {
			t.Fatal(err)
		}
	}
	f.evaluate(t)
	f.clock.Advance(time.Hour)
	f.evaluate(t) // a cooldown later: three more messages
	other := alert.New(f.store, screener.NewFrame(f.store, f.board, nil, nil, market.DefaultCalendar(), f.clock, time.Minute),
		market.DefaultCalendar(), f.clock, market.Window{Start: 9*60 + 25, End: 15 * 60}, slog.New(slog.NewTextHandler(io.Discard, nil)),
		alert.Config{Webhooks: alert.Webhooks{AllowPrivate: true, Timeout: 2 * time.Second}})
	var wg sync.WaitGroup
	tried := make([]int, 2)
	for i, svc := range []*alert.Service{f.svc, other} {
		wg.Go(func() {
			n, err := svc.Deliver(ctx)
			if err != nil {
				t.Error(err)
			}
			tried[i] = n
		})
	}
	wg.Wait()
	if got := len(robot.Received()); got != 6 || tried[0]+tried[1] != 6 {
		t.Fatalf("the robot got %d messages, the workers tried %v; want 6 in all", got, tried)
	}
}

// alerts.webhook_retry_for = 0 (WebhooksFrom makes it a negative RetryFor): one try.
func TestWebhookOneTryWithoutRetries(t *testing.T) {
	f := webhookFixture(t, -1, &bytes.Buffer{})
	ctx := context.Background()
	robot := webhooktest.NewReceiver(t, "generic", "s", f.clock.Now)
	robot.SetFail(http.StatusServiceUnavailable)
	a, _ := f.svc.Create(ctx, "c", alert.Request{Expression: "pct > 8", Webhook: &webhook.Target{URL: robot.URL(), Format: "generic", Secret: "s"}})
	f.evaluate(t)
	f.deliver(t)
	f.clock.Advance(time.Hour)
	f.deliver(t)
	ds, _ := f.svc.Deliveries(ctx, "c", a.ID, 10)
	if len(ds) != 1 || ds[0].State != db.DeliveryFailed || len(robot.Received()) != 1 || !strings.Contains(ds[0].LastError, "gave up after try 1, 0s after the firing: HTTP 503") {
		t.Fatalf("one try only: %+v, the robot got %d", ds, len(robot.Received()))
	}
}
