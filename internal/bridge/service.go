// Package bridge connects the desktop trading terminal's local data files
// (TongDaXin's install folder) to the service: it imports bars, security
// names and blocks into the store incrementally, and reads the terminal's
// bar files directly for source=tdx.
package bridge

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"mdqs/db"
	"mdqs/internal/market"
	"mdqs/internal/tdx"
)

// Source is the name the terminal's data carries in the store.
const Source = "tdx"

// Service is the bridge to one terminal folder; a zero Dir means the bridge
// is not configured and every call says so.
type Service struct {
	dir   string
	store *db.Store
	cal   *market.Calendar
	clock market.Clock
	log   *slog.Logger

	refresh sync.Mutex // one import at a time

	mu      sync.Mutex
	term    *tdx.Terminal
	scanned time.Time

	demo *demoState // the demo market's terminal (NewDemo); nil for a live one
}

// New checks the folder and builds the bridge. An empty dir gives an
// unconfigured bridge; a dir that does not exist, or is not a terminal
// folder, is an error (a typo in the configuration should stop the start,
// not surface later as empty answers).
func New(dir string, store *db.Store, cal *market.Calendar, clock market.Clock, log *slog.Logger) (*Service, error) {
	s := &Service{dir: dir, store: store, cal: cal, clock: clock, log: log}
	if dir == "" {
		return s, nil
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("tdx.dir %q: no such folder (set it to the terminal's install folder, e.g. C:\\new_tdx, or leave it empty)", dir)
	}
	if _, err := s.terminal(true); err != nil {
		return nil, fmt.Errorf("tdx.dir %q: %w", dir, err)
	}
	return s, nil
}

// Configured reports whether a terminal folder is set.
func (s *Service) Configured() bool { return s.dir != "" }

// ErrNotConfigured is what every bridge endpoint answers without a folder:
// no retry time, since only the configuration cures it.
func ErrNotConfigured() error {
	return market.NotConfigured("the terminal folder is not configured: set tdx.dir in config.toml to the TongDaXin install folder (e.g. C:\\new_tdx), " +
		"with sources.default a live mode, or in demo mode to \"demo\" (the demo market's own terminal), and restart")
}

// rescanEvery bounds how stale the file index may be for direct reads.
const rescanEvery = time.Minute

// terminal is the scanned folder, rescanned when forced or stale.
func (s *Service) terminal(force bool) (*tdx.Terminal, error) {
	if !s.Configured() {
		return nil, ErrNotConfigured()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	if s.term != nil && !force && now.Sub(s.scanned) < rescanEvery {
		return s.term, nil
	}
	if s.term == nil {
		t, err := tdx.Open(s.dir)
		if err != nil {
			if errors.Is(err, tdx.ErrNotTerminal) {
				return nil, fmt.Errorf("not a terminal folder: it has neither vipdoc nor T0002")
			}
			return nil, err
		}
		t.Clock = s.clock
		s.term = t
	} else if err := s.term.Rescan(); err != nil {
		return nil, err
	}
	s.scanned = now
	return s.term, nil
}
