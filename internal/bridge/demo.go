package bridge

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"mdqs/db"
	"mdqs/internal/market"
	"mdqs/internal/tdx"
)

// demoSource is what the demo terminal's names and blocks say in the
// store: they are the demo market's, like everything in a demo store.
const demoSource = "demo"

const (
	// DefaultWait bounds a request's wait for the demo terminal when the
	// bridge is given no bound (server.upstream_wait gives it one).
	DefaultWait = 20 * time.Second
	// importPoll is how often a waiting request looks whether the store
	// holds the team's import of the demo terminal.
	importPoll = 200 * time.Millisecond
	// retryIn is the Retry-After of a request that waited its bound: a
	// folder is written within two seconds, an import within a few.
	retryIn = 2 * time.Second
)

// demoState is the demo terminal's readiness. Its bar files are read from
// this instance's own folder, which the demo-terminal job writes on every
// instance; its names, blocks and corporate actions are read from the
// store, into which the leader imports its folder (the folders of a team's
// instances hold the same bytes: they are written from the same demo
// market for the same day). A request waits for both, at most wait.
type demoState struct {
	wait    time.Duration
	written chan struct{} // closed at the first outcome of this instance's write
	once    sync.Once

	mu       sync.Mutex
	writeErr error // this instance's last write failed
	prepErr  error // this instance's last import failed (it leads)
	imported bool  // the store holds an import of the demo terminal
}

// NewDemo is the bridge to the demo market's terminal folder, which the
// demo terminal writer keeps (package demotdx): the folder need not exist
// yet, and a request waits, at most wait (DefaultWait when 0), until this
// instance has written its folder (Written or Prepared) and the store
// holds an import of it (this instance's Prepared, or the leader's import
// when this instance follows a team). Its bar files hold the demo market's
// own bars, which the demo store already gets from the demo market with
// their turnover and flow and exact amounts, so a refresh reads and checks
// them like a live terminal's but stores only the names and blocks:
// importing them would overwrite precise rows with the files' float32
// amounts, and make the store depend on which ran first.
func NewDemo(dir string, store *db.Store, cal *market.Calendar, clock market.Clock, log *slog.Logger, wait time.Duration) *Service {
	if wait <= 0 {
		wait = DefaultWait
	}
	return &Service{dir: dir, store: store, cal: cal, clock: clock, log: log,
		demo: &demoState{wait: wait, written: make(chan struct{})}}
}

// Written records the outcome of writing this instance's demo folder (on
// every instance of a team; the leader also imports it, see Prepared). A
// failure is what requests answer until a later write succeeds. A live
// bridge ignores it.
func (s *Service) Written(err error) {
	if s.demo == nil {
		return
	}
	s.demo.mu.Lock()
	s.demo.writeErr = err
	s.demo.mu.Unlock()
	s.demo.once.Do(func() { close(s.demo.written) })
}

// Prepared records the outcome of writing and importing the demo folder
// (the instance that leads): success means the folder is written and the
// store holds its import; a failure is what requests answer until a later
// preparation succeeds. A live bridge ignores it.
func (s *Service) Prepared(err error) {
	if s.demo == nil {
		return
	}
	s.demo.mu.Lock()
	s.demo.prepErr = err
	if err == nil {
		s.demo.writeErr, s.demo.imported = nil, true
	}
	s.demo.mu.Unlock()
	s.demo.once.Do(func() { close(s.demo.written) })
}

// Wait returns once the bridge can answer: at once for a live folder; for
// the demo terminal once this instance's folder is written and the store
// holds an import of it, but never later than the bridge's bound: then it
// is an unavailable error with a retry time, naming what it waits for.
// Without a folder it is the not-configured error; ctx ending first (the
// client left) is ctx's error.
func (s *Service) Wait(ctx context.Context) error {
	if !s.Configured() {
		return ErrNotConfigured()
	}
	d := s.demo
	if d == nil {
		return nil
	}
	bounded, cancel := context.WithTimeout(ctx, d.wait)
	defer cancel()
	select {
	case <-d.written:
	case <-bounded.Done():
		return d.late(ctx, "this instance is still writing its copy of the demo terminal folder (job demo-terminal)")
	}
	for {
		d.mu.Lock()
		writeErr, prepErr, imported := d.writeErr, d.prepErr, d.imported
		d.mu.Unlock()
		switch {
		case writeErr != nil:
			return market.Wrap(market.KindUnavailable, writeErr, "the demo terminal folder could not be written: %v", writeErr)
		case prepErr != nil:
			return market.Wrap(market.KindUnavailable, prepErr, "the demo terminal folder could not be prepared: %v", prepErr)
		case imported:
			return nil
		}
		held, err := s.holdsImport(bounded)
		if err != nil && bounded.Err() == nil {
			return err
		}
		if held {
			d.mu.Lock()
			d.imported = true
			d.mu.Unlock()
			return nil
		}
		t := time.NewTimer(importPoll)
		select {
		case <-t.C:
		case <-bounded.Done():
			t.Stop()
			return d.late(ctx, "the leader of the team has not yet imported the demo terminal's names, blocks and corporate actions into the store (its job demo-terminal-import)")
		}
	}
}

// late is the error of a request that waited the bound: unavailable, with
// a retry time, unless the request itself ended.
func (d *demoState) late(ctx context.Context, what string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return &market.Error{Kind: market.KindUnavailable, Message: market.DefaultMessage(market.KindUnavailable),
		Detail: fmt.Sprintf("not ready after %v (server.upstream_wait): %s; ask again shortly", d.wait, what), RetryAfter: retryIn}
}

// holdsImport reports whether the store holds an import of a demo
// terminal folder: the states of its name files, which an import saves
// after the names, blocks and corporate actions (importMeta).
func (s *Service) holdsImport(ctx context.Context) (bool, error) {
	states, err := s.store.FileStates(ctx)
	if err != nil {
		return false, err
	}
	for _, st := range states {
		if st.Kind == string(tdx.KindTNF) && st.Error == "" {
			return true, nil
		}
	}
	return false, nil
}

// storeSource is the source the bridge's rows carry in the store.
func (s *Service) storeSource() string {
	if s.demo != nil {
		return demoSource
	}
	return Source
}
