package alert

import (
	"context"
	"crypto/rand"
	"fmt"
	"strings"
	"time"

	"mdqs/db"
	"mdqs/internal/market"
	"mdqs/internal/webhook"
)

// Webhooks configures the sending of alerts' webhooks.
type Webhooks struct {
	AllowPrivate bool          // alerts.webhook_allow_private
	Timeout      time.Duration // one try (default 10s)
	RetryFor     time.Duration // from the firing, failed tries are repeated this long (default 1h; negative: one try)
	PublicURL    string        // the dashboard's address the messages link to; "": none
	// Resolve looks names up at create time (default: the system's
	// resolver); tests replace it.
	Resolve webhook.Resolver
}

// The back-off between tries: firstRetry after the first failure,
// doubling, at most maxRetryGap apart, until RetryFor has passed.
const (
	firstRetry  = 5 * time.Second
	maxRetryGap = 5 * time.Minute
	// claimSlack is how long past one try's timeout a claim holds: a
	// worker that died holding it leaves the delivery to the next claim
	// that long after.
	claimSlack = 30 * time.Second
)

// Backoff is the wait after the attempts-th failed try.
func Backoff(attempts int) time.Duration {
	d := firstRetry
	for i := 1; i < attempts && d < maxRetryGap; i++ {
		d *= 2
	}
	return min(d, maxRetryGap)
}

// DeliverJob is the outbox worker as a job's work (the leader's, every
// second): it sends every delivery that is due, one at a time.
func (s *Service) DeliverJob(ctx context.Context) error {
	_, err := s.Deliver(ctx)
	return err
}

// Deliver sends the deliveries due now and returns how many it tried.
// Each is claimed first (so a second instance that also believes it leads
// never sends the same one), sent, and its try recorded; a failure is
// tried again after Backoff until RetryFor has passed since the firing.
func (s *Service) Deliver(ctx context.Context) (int, error) {
	next, due, err := s.store.NextDeliveryDue(ctx)
	if err != nil || !due || next.After(s.clock.Now()) {
		return 0, err
	}
	tried := 0
	for ctx.Err() == nil {
		c, ok, err := s.store.ClaimDelivery(ctx, s.clock.Now(), s.hooks.Timeout+claimSlack)
		if err != nil || !ok {
			return tried, err
		}
		tried++
		if err := s.deliver(ctx, c); err != nil {
			return tried, err
		}
	}
	return tried, nil
}

func (s *Service) deliver(ctx context.Context, c db.ClaimedDelivery) error {
	a := c.Alert
	m := s.message(a, c.Fired)
	m.Delivery = fmt.Sprintf("%s.%d", a.ID, c.ID)
	at := s.clock.Now()
	r := s.sender.Send(ctx, target(a.Webhook), m)
	try := db.DeliveryAttempt{At: at, Duration: r.Duration, HTTPStatus: r.HTTPStatus, VendorCode: r.VendorCode, Message: r.Message, OK: r.OK}
	out := db.DeliveryOutcome{State: db.DeliverySent}
	if !r.OK {
		out = db.DeliveryOutcome{State: db.DeliveryPending, NextAt: at.Add(Backoff(c.Attempts + 1)), LastError: r.Message}
		switch {
		case r.Permanent:
			out.State = db.DeliveryFailed
		case s.hooks.RetryFor < 0 || out.NextAt.Sub(c.CreatedAt) > s.hooks.RetryFor:
			out.State = db.DeliveryFailed
			out.LastError = fmt.Sprintf("gave up after try %d, %s after the firing: %s", c.Attempts+1, at.Sub(c.CreatedAt).Round(time.Second), r.Message)
		}
		// The URL redacted (the robot's credential is in it), never the secret.
		s.log.Warn("alert webhook failed", "alert", a.ID, "client", a.ClientID, "delivery", c.ID, "url", webhook.Redact(a.Webhook.URL),
			"status", r.HTTPStatus, "reason", r.Message, "state", out.State)
	}
	if ctx.Err() != nil {
		// Stopping: record the try on a context of its own, or a message
		// the receiver took would be sent again after the restart.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
	}
	return s.store.RecordDeliveryAttempt(ctx, c.ID, c.Claim, try, out)
}

func target(w db.Webhook) webhook.Target {
	return webhook.Target{URL: w.URL, Format: w.Format, Secret: w.Secret}
}

// message is what a delivery of a's events says.
func (s *Service) message(a db.Alert, evs []db.AlertEvent) webhook.Message {
	m := webhook.Message{AlertID: a.ID, AlertName: a.Name, Expression: a.Expression, Link: s.hooks.PublicURL,
		Events: make([]webhook.Event, len(evs)), SentAt: market.FormatTime(s.clock.Now())}
	for i, e := range evs {
		m.Events[i] = EventOf(e)
	}
	return m
}

// EventOf is a firing as every reader sees it: GET /v1/api/alerts/events,
// the stream's alert events and a generic webhook's body.
func EventOf(e db.AlertEvent) webhook.Event {
	return webhook.Event{ID: e.ID, AlertID: e.AlertID, AlertName: e.AlertName, Code: e.Code.String(), Name: e.Name,
		FiredAt: market.FormatTime(e.FiredAt), Fields: e.Fields}
}

// TestResult is what POST /v1/api/alerts/webhook_test answers: what the
// receiver said to a sample message.
type TestResult struct {
	webhook.Result
	Delivery string
	URL      string // redacted
	Format   string
}

// TestWebhook sends a sample message to one of clientID's alerts' webhook
// now, whatever the hour, and says what the receiver answered: a trader
// checks a robot's setup outside trading hours. Nothing is stored.
func (s *Service) TestWebhook(ctx context.Context, clientID, id string) (TestResult, error) {
	a, err := s.Get(ctx, clientID, id)
	if err != nil {
		return TestResult{}, err
	}
	if !a.Webhook.Set() {
		return TestResult{}, market.Errorf(market.KindConflict, "alert %s has no webhook to test; create one with \"webhook\": {\"url\", \"format\", \"secret\"}", id)
	}
	now := s.clock.Now()
	ev := db.AlertEvent{AlertID: a.ID, AlertName: a.Name, ClientID: a.ClientID, Code: market.MustCode("600519.SH"), Name: "贵州茅台",
		FiredAt: now, Fields: []byte(sampleFields)}
	m := s.message(a, []db.AlertEvent{ev})
	m.Test = true
	m.Delivery = "test." + strings.ToLower(rand.Text()[:10])
	r := s.sender.Send(ctx, target(a.Webhook), m)
	return TestResult{Result: r, Delivery: m.Delivery, URL: webhook.Redact(a.Webhook.URL), Format: a.Webhook.Format}, nil
}

// sampleFields are the sample event's values: a typical pct and price
// (the message shows what a real one looks like, not what the expression
// would compute).
const sampleFields = `{"pct":5.21,"price":1688.00}`

// Deliveries are the latest deliveries of one of clientID's alerts,
// newest first, with their tries.
func (s *Service) Deliveries(ctx context.Context, clientID, id string, limit int) ([]db.AlertDelivery, error) {
	if _, err := s.Get(ctx, clientID, id); err != nil {
		return nil, err
	}
	return s.store.AlertDeliveries(ctx, id, limit)
}
