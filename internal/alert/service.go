// Package alert runs standing screens: a client's expression in the
// screener's language over a universe, evaluated at every quote refresh
// inside the trading window. A code's first match fires an event (stored,
// and handed to whoever pushes it, the stream), and the code stays quiet
// for the alert's cooldown. Alerts and their events live in the store, so
// they survive a restart and are shared by the instances of a deployment
// (the evaluation runs on the leader). An alert with a webhook also sends
// each evaluation's firings as one message, through an outbox in the store
// that the leader's worker drains (deliver.go).
package alert

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"mdqs/db"
	"mdqs/internal/market"
	"mdqs/internal/screener"
	"mdqs/internal/webhook"
)

// Config bounds what a client may ask for.
type Config struct {
	MaxPerClient    int           // live alerts per client (default 20)
	DefaultCooldown time.Duration // when a request gives none (default 30m)
	MinCooldown     time.Duration // the shortest allowed (default 1m: the quote refresh)
	MaxCooldown     time.Duration // the longest (default 7 days)
	Webhooks        Webhooks
}

func (c *Config) defaults() {
	if c.MaxPerClient <= 0 {
		c.MaxPerClient = 20
	}
	if c.DefaultCooldown <= 0 {
		c.DefaultCooldown = 30 * time.Minute
	}
	if c.MinCooldown <= 0 {
		c.MinCooldown = time.Minute
	}
	if c.MaxCooldown <= 0 {
		c.MaxCooldown = 7 * 24 * time.Hour
	}
	if c.Webhooks.Timeout <= 0 {
		c.Webhooks.Timeout = 10 * time.Second
	}
	if c.Webhooks.RetryFor == 0 {
		c.Webhooks.RetryFor = time.Hour
	}
	if c.Webhooks.Resolve == nil {
		c.Webhooks.Resolve = net.DefaultResolver.LookupNetIP
	}
}

// Service creates, lists and evaluates alerts.
type Service struct {
	store  *db.Store
	frame  *screener.Frame
	cal    *market.Calendar
	clock  market.Clock
	window market.Window
	log    *slog.Logger
	cfg    Config
	hooks  Webhooks
	sender *webhook.Sender

	mu       sync.Mutex
	programs map[string]*screener.Program // compiled once per alert
	onFire   []func([]db.AlertEvent)
}

func New(store *db.Store, frame *screener.Frame, cal *market.Calendar, clock market.Clock, window market.Window, log *slog.Logger, cfg Config) *Service {
	cfg.defaults()
	return &Service{store: store, frame: frame, cal: cal, clock: clock, window: window, log: log, cfg: cfg, programs: map[string]*screener.Program{},
		hooks: cfg.Webhooks, sender: webhook.NewSender(cfg.Webhooks.AllowPrivate, cfg.Webhooks.Timeout, clock.Now)}
}

// OnFire registers a receiver of every batch of events an evaluation
// fired (the stream's publisher). Call before Evaluate runs.
func (s *Service) OnFire(fn func([]db.AlertEvent)) { s.onFire = append(s.onFire, fn) }

// Request is what a client asks for.
type Request struct {
	Name       string            `json:"name"`
	Expression string            `json:"expression"`
	Universe   screener.Universe `json:"universe"`
	Cooldown   string            `json:"cooldown"` // a Go duration: 30m, 2h; "" the default
	// Webhook, when given, also sends each firing there (see Deliver).
	Webhook *webhook.Target `json:"webhook"`
}

// Create validates and stores an alert of clientID.
func (s *Service) Create(ctx context.Context, clientID string, req Request) (db.Alert, error) {
	prog, err := screener.Compile(req.Expression)
	if err != nil {
		return db.Alert{}, err
	}
	if req.Universe.Date != "" {
		return db.Alert{}, market.Errorf(market.KindInvalid, "universe.date is for screens of a past day; an alert watches the live market")
	}
	if err := screener.CheckUniverse(req.Universe); err != nil {
		return db.Alert{}, err
	}
	name := strings.TrimSpace(req.Name)
	if utf8.RuneCountInString(name) > 64 {
		return db.Alert{}, market.Errorf(market.KindInvalid, "name is at most 64 characters")
	}
	cooldown := s.cfg.DefaultCooldown
	if req.Cooldown != "" {
		d, err := time.ParseDuration(req.Cooldown)
		if err != nil {
			return db.Alert{}, market.Errorf(market.KindInvalid, "cooldown %q: want a duration such as 30m or 2h", req.Cooldown)
		}
		cooldown = d
	}
	if cooldown < s.cfg.MinCooldown || cooldown > s.cfg.MaxCooldown {
		return db.Alert{}, market.Errorf(market.KindInvalid, "cooldown must be %s..%s, got %s", s.cfg.MinCooldown, s.cfg.MaxCooldown, cooldown)
	}
	var hook db.Webhook
	if req.Webhook != nil {
		if err := webhook.Validate(ctx, *req.Webhook, s.hooks.AllowPrivate, s.hooks.Resolve); err != nil {
			return db.Alert{}, err
		}
		hook = db.Webhook{URL: req.Webhook.URL, Format: req.Webhook.Format, Secret: req.Webhook.Secret}
	}
	universe, _ := json.Marshal(req.Universe)
	a := db.Alert{ID: newID(), ClientID: clientID, Name: name, Expression: req.Expression, Universe: universe,
		Cooldown: cooldown, CreatedAt: s.clock.Now(), Webhook: hook}
	if err := s.store.CreateAlert(ctx, a, s.cfg.MaxPerClient); err != nil {
		return db.Alert{}, err
	}
	s.mu.Lock()
	s.programs[a.ID] = prog
	s.mu.Unlock()
	return a, nil
}

// List is the client's live alerts.
func (s *Service) List(ctx context.Context, clientID string) ([]db.Alert, error) {
	return s.store.Alerts(ctx, clientID)
}

// Get is one of the client's alerts; another client's is forbidden (the
// id exists, but it is not yours to read).
func (s *Service) Get(ctx context.Context, clientID, id string) (db.Alert, error) {
	a, err := s.store.AlertByID(ctx, id)
	if err != nil {
		return db.Alert{}, err
	}
	if a.ClientID != clientID {
		return db.Alert{}, market.Errorf(market.KindForbidden, "alert %s belongs to another client", id)
	}
	return a, nil
}

// Delete ends one of the client's alerts; its events stay readable.
func (s *Service) Delete(ctx context.Context, clientID, id string) (db.Alert, error) {
	a, err := s.Get(ctx, clientID, id)
	if err != nil {
		return db.Alert{}, err
	}
	if err := s.store.DeleteAlert(ctx, id, s.clock.Now()); err != nil {
		return db.Alert{}, err
	}
	s.mu.Lock()
	delete(s.programs, id)
	s.mu.Unlock()
	return a, nil
}

// Events are the client's fired events after since, oldest first.
func (s *Service) Events(ctx context.Context, clientID string, since int64, limit int) ([]db.AlertEvent, error) {
	return s.store.AlertEvents(ctx, clientID, since, limit)
}

// InWindow is the evaluation job's gate: quotes move only in the session.
func (s *Service) InWindow(now time.Time) bool { return s.window.Contains(s.cal, now) }

// Job is the evaluation as a job's work.
func (s *Service) Job(ctx context.Context) error {
	_, err := s.Evaluate(ctx)
	return err
}

// Evaluate runs every live alert over the current quotes and fires what
// matched (the job calls it at each quote refresh). One alert failing
// (an expression a newer field catalogue no longer compiles) is logged
// and the others still run.
func (s *Service) Evaluate(ctx context.Context) (fired int, err error) {
	alerts, err := s.store.Alerts(ctx, "")
	if err != nil {
		return 0, err
	}
	now := s.clock.Now()
	var all []db.AlertEvent
	for _, a := range alerts {
		prog, err := s.program(a)
		if err != nil {
			s.log.Warn("alert skipped: its expression does not compile", "alert", a.ID, "client", a.ClientID, "err", err)
			continue
		}
		var u screener.Universe
		json.Unmarshal(a.Universe, &u)
		matches, err := s.frame.Match(ctx, prog, u)
		if err != nil {
			return fired, err // the quotes or the store are away: the next refresh tries again
		}
		ms := make([]db.AlertMatch, 0, len(matches))
		for _, m := range matches {
			code, err := market.ParseCode(m.Code)
			if err != nil {
				continue
			}
			vals, _ := json.Marshal(m.Values)
			ms = append(ms, db.AlertMatch{Code: code, Name: m.Name, Fields: vals})
		}
		evs, err := s.store.FireAlert(ctx, a, ms, now)
		if err != nil {
			return fired, err
		}
		fired += len(evs)
		all = append(all, evs...)
	}
	if len(all) > 0 {
		for _, fn := range s.onFire {
			fn(all)
		}
	}
	return fired, nil
}

func (s *Service) program(a db.Alert) (*screener.Program, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p, ok := s.programs[a.ID]; ok {
		return p, nil
	}
	p, err := screener.Compile(a.Expression)
	if err != nil {
		return nil, err
	}
	s.programs[a.ID] = p
	return p, nil
}

func newID() string {
	b := make([]byte, 12)
	rand.Read(b)
	return hex.EncodeToString(b)
}
