package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
)

// The markets a store may hold. A store holds one of them, never both: the
// demo market's synthetic bars, rankings and news in a live store would be
// served as real numbers, and its bars' coverage would stop real bars from
// ever being fetched for those days.
const (
	MarketDemo = "demo"
	MarketLive = "live"
)

// marketMixed is what an older file holding rows of both is inferred to be.
const marketMixed = "mixed"

// MarketError is an open refused because the store holds another market
// than the one asked for. Its text names the fix.
type MarketError struct {
	Path  string
	Holds string // MarketDemo, MarketLive, or mixed
	Want  string
}

func (e *MarketError) Error() string {
	name := filepath.Base(e.Path)
	switch {
	case e.Holds == marketMixed:
		return fmt.Sprintf("db: %s holds both demo-market and live rows, written before mdqs kept them apart, so its numbers cannot be told apart: "+
			"give this mode a new database file (server.db in the configuration, or -db), e.g. -db mdqs-%s.db", name, e.Want)
	case e.Holds == MarketDemo:
		return fmt.Sprintf("db: %s holds the demo market, so it cannot serve live data (its synthetic rows would be served as real numbers): "+
			"give live mode its own file (server.db in the configuration, or -db; left empty it is %s), e.g. -db mdqs-live.db, or delete %s, which holds demo data only",
			name, "mdqs.db", name)
	default:
		return fmt.Sprintf("db: %s holds live market data, and demo mode keeps its synthetic market in a file of its own: "+
			"leave server.db empty (demo mode then uses mdqs-demo.db) or pass -db with another file", name)
	}
}

// Market is the market the store was opened for (Options.Market).
func (s *Store) Market() string { return s.market }

// claimMarket checks the store against the market want and records want in
// a store that has none yet. No market asked for checks nothing.
func (s *Store) claimMarket(ctx context.Context, want string) error {
	switch want {
	case "":
		return nil
	case MarketDemo, MarketLive:
	default:
		return fmt.Errorf("db: unknown market %q", want)
	}
	var holds string
	err := s.w.QueryRowContext(ctx, `SELECT value FROM store_meta WHERE key = 'market'`).Scan(&holds)
	recorded := err == nil
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("db: read the store's market: %w", err)
	}
	if !recorded {
		if holds, err = s.inferMarket(ctx); err != nil {
			return err
		}
	}
	if holds != "" && holds != want {
		return &MarketError{Path: s.path, Holds: holds, Want: want}
	}
	s.market = want
	if recorded || s.readOnly {
		return nil
	}
	// Another instance opening the new store at the same moment may have
	// claimed it first: the claim that landed is the store's market.
	if _, err := s.w.ExecContext(ctx, `INSERT INTO store_meta(key, value) VALUES ('market', ?) ON CONFLICT(key) DO NOTHING`, want); err != nil {
		return fmt.Errorf("db: record the store's market: %w", err)
	}
	if err := s.w.QueryRowContext(ctx, `SELECT value FROM store_meta WHERE key = 'market'`).Scan(&holds); err != nil {
		return fmt.Errorf("db: read the store's market: %w", err)
	}
	if holds != want {
		s.market = ""
		return &MarketError{Path: s.path, Holds: holds, Want: want}
	}
	return nil
}

// inferMarket reads a file from before markets were recorded: demo rows
// carry the demo market's source name, live rows an upstream's or the
// terminal's. Only small tables and indexed columns are read; a bar's
// source shows in its coverage. corporate_actions is neither, but came
// after markets were recorded, so a store read here holds none of it
// unless written with no market asked for.
func (s *Store) inferMarket(ctx context.Context) (string, error) {
	var demo, live bool
	err := s.w.QueryRowContext(ctx, `SELECT
		EXISTS (SELECT 1 FROM snapshot_runs WHERE source = 'demo')
		OR EXISTS (SELECT 1 FROM bar_coverage WHERE source = 'demo')
		OR EXISTS (SELECT 1 FROM daily_rankings WHERE source = 'demo')
		OR EXISTS (SELECT 1 FROM hot_rank WHERE source = 'demo')
		OR EXISTS (SELECT 1 FROM news WHERE feed = 'demo')
		OR EXISTS (SELECT 1 FROM financial_reports WHERE source = 'demo')
		OR EXISTS (SELECT 1 FROM stocks WHERE source = 'demo')
		OR EXISTS (SELECT 1 FROM corporate_actions WHERE source = 'demo'),
		EXISTS (SELECT 1 FROM snapshot_runs WHERE source <> 'demo')
		OR EXISTS (SELECT 1 FROM bar_coverage WHERE source <> 'demo')
		OR EXISTS (SELECT 1 FROM daily_rankings WHERE source <> 'demo')
		OR EXISTS (SELECT 1 FROM hot_rank WHERE source <> 'demo')
		OR EXISTS (SELECT 1 FROM news WHERE feed <> 'demo')
		OR EXISTS (SELECT 1 FROM financial_reports WHERE source <> 'demo')
		OR EXISTS (SELECT 1 FROM corporate_actions WHERE source <> 'demo')
		OR EXISTS (SELECT 1 FROM tdx_files)`).Scan(&demo, &live)
	if err != nil {
		return "", fmt.Errorf("db: read what the store holds: %w", err)
	}
	switch {
	case demo && live:
		return marketMixed, nil
	case demo:
		return MarketDemo, nil
	case live:
		return MarketLive, nil
	}
	return "", nil
}
