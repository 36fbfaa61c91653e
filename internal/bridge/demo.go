package bridge

import (
	"context"
	"log/slog"
	"sync"

	"mdqs/db"
	"mdqs/internal/market"
)

// demoSource is what the demo terminal's names and blocks say in the
// store: they are the demo market's, like everything in a demo store.
const demoSource = "demo"

// demoState is the demo terminal's readiness: its folder is written in the
// background at start, and requests wait for it rather than answer 503.
type demoState struct {
	once  sync.Once
	ready chan struct{}
	mu    sync.Mutex
	err   error // the last preparation's failure
}

// NewDemo is the bridge to the demo market's terminal folder, which the
// demo terminal writer keeps (package demotdx): the folder need not exist
// yet, and every request waits until Prepared is first called. Its bar
// files hold the demo market's own bars, which the demo store already
// gets from the demo market with their turnover and flow and exact
// amounts, so a refresh reads and checks them like a live terminal's but
// stores only the names and blocks: importing them would overwrite
// precise rows with the files' float32 amounts, and make the store depend
// on which ran first.
func NewDemo(dir string, store *db.Store, cal *market.Calendar, clock market.Clock, log *slog.Logger) *Service {
	return &Service{dir: dir, store: store, cal: cal, clock: clock, log: log, demo: &demoState{ready: make(chan struct{})}}
}

// Prepared records the outcome of writing and importing the demo folder:
// the first call lets waiting requests go on, and a failure is what they
// answer until a later preparation succeeds. A live bridge ignores it.
func (s *Service) Prepared(err error) {
	if s.demo == nil {
		return
	}
	s.demo.mu.Lock()
	s.demo.err = err
	s.demo.mu.Unlock()
	s.demo.once.Do(func() { close(s.demo.ready) })
}

// Wait returns once the bridge can answer: at once for a live folder, for
// the demo terminal once it has been prepared (or ctx ends). Without a
// folder it is the not-configured error.
func (s *Service) Wait(ctx context.Context) error {
	if !s.Configured() {
		return ErrNotConfigured()
	}
	if s.demo == nil {
		return nil
	}
	select {
	case <-s.demo.ready:
	case <-ctx.Done():
		return ctx.Err()
	}
	s.demo.mu.Lock()
	defer s.demo.mu.Unlock()
	if s.demo.err != nil {
		return market.Wrap(market.KindUnavailable, s.demo.err, "the demo terminal folder could not be prepared: %v", s.demo.err)
	}
	return nil
}

// storeSource is the source the bridge's rows carry in the store.
func (s *Service) storeSource() string {
	if s.demo != nil {
		return demoSource
	}
	return Source
}
