package jobs

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"mdqs/db"
)

// StartupWrites runs the writes serve makes before it listens (the demo
// client, the screen queue's claims) where the store may refuse them:
//   - a read-only store: the write is skipped with a warning, and every
//     write after answers 503 "database not writable";
//   - another process holds the SQLite file's write lock (an import, a
//     second server, a sqlite3 shell): the server still starts and serves
//     reads, writes answer 503 naming the holder, and the skipped writes
//     are tried again in the background until the lock is free.
//
// Any other error stops the start.
type StartupWrites struct {
	store *db.Store
	log   *slog.Logger
	every time.Duration // between background attempts

	pending []startupStep
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

type startupStep struct {
	what string
	run  func(ctx context.Context) error
}

// lockRetry is how long the background waits between attempts at the
// writes a held lock refused (each attempt itself waits busy_timeout).
const lockRetry = 5 * time.Second

// NewStartupWrites runs the start-up writes on store.
func NewStartupWrites(store *db.Store, log *slog.Logger) *StartupWrites {
	return &StartupWrites{store: store, log: log, every: lockRetry}
}

// Do runs one step now.
func (s *StartupWrites) Do(ctx context.Context, what string, run func(ctx context.Context) error) error {
	err := run(ctx)
	var locked *db.LockedError
	switch {
	case err == nil:
		return nil
	case s.store.ReadOnly():
		s.log.Warn(what+" skipped: the database is read-only", "err", err)
		return nil
	case errors.As(err, &locked):
		s.log.Warn(what+" postponed: "+locked.Error()+", which holds the write lock; reads are served, writes answer 503 until it lets go, and this is tried again in the background",
			"every", s.every)
		s.pending = append(s.pending, startupStep{what, run})
		return nil
	}
	return err
}

// Start tries the postponed steps again, in order, until each has run.
func (s *StartupWrites) Start(ctx context.Context) {
	if len(s.pending) == 0 {
		return
	}
	ctx, s.cancel = context.WithCancel(ctx)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		t := time.NewTicker(s.every)
		defer t.Stop()
		for len(s.pending) > 0 {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			step := s.pending[0]
			err := step.run(ctx)
			var locked *db.LockedError
			switch {
			case err == nil:
				s.log.Info(step.what + " done: the database's write lock is free again")
				s.pending = s.pending[1:]
			case errors.As(err, &locked):
			case ctx.Err() == nil:
				s.log.Error(step.what+" failed", "err", err)
				s.pending = s.pending[1:]
			}
		}
	}()
}

// Stop ends the background attempts and waits for the one running.
func (s *StartupWrites) Stop() {
	if s.cancel != nil {
		s.cancel()
	}
	s.wg.Wait()
}
