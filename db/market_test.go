package db_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/market"
)

func openMarket(t *testing.T, path, want string) (*db.Store, error) {
	t.Helper()
	s, err := db.Open(context.Background(), path, db.Options{SQLiteSchema: dbtest.SQLiteSchema(t), Market: want})
	if err == nil {
		t.Cleanup(func() { s.Close() })
	}
	return s, err
}

// A store records the market it was first opened for and refuses the
// other one with an error that names the fix.
func TestStoreKeepsToOneMarket(t *testing.T) {
	for _, tt := range []struct{ first, then, fix string }{
		{db.MarketDemo, db.MarketLive, "give live mode its own file"},
		{db.MarketLive, db.MarketDemo, "leave server.db empty (demo mode then uses mdqs-demo.db)"},
	} {
		path := filepath.Join(t.TempDir(), "mdqs.db")
		s, err := openMarket(t, path, tt.first)
		if err != nil {
			t.Fatal(err)
		}
		if s.Market() != tt.first {
			t.Fatalf("Market() = %q, want %q", s.Market(), tt.first)
		}
		s.Close()
		if s, err := openMarket(t, path, tt.first); err != nil || s.Market() != tt.first {
			t.Fatalf("reopen for %s: %v", tt.first, err)
		} else {
			s.Close()
		}
		_, err = openMarket(t, path, tt.then)
		var me *db.MarketError
		if !errors.As(err, &me) || me.Holds != tt.first || !strings.Contains(err.Error(), tt.fix) {
			t.Fatalf("open a %s store for %s: %v; want a MarketError saying %q", tt.first, tt.then, err, tt.fix)
		}
		// Client administration holds no market data and opens either.
		if _, err := openMarket(t, path, ""); err != nil {
			t.Fatalf("open without a market: %v", err)
		}
	}
}

// A file from before markets were recorded is judged by its rows: demo
// rows make it a demo store, live rows a live one, both are refused.
func TestOlderStoreMarketIsInferredFromItsRows(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 11, 20, 15, 0, 0, 0, market.Shanghai())
	snap := func(source string) market.SectorSnapshot {
		return market.SectorSnapshot{Kind: market.Industry, Source: source, At: at,
			Sectors: []market.Sector{{Name: "银行", Code: "BK0475", Pct: 1}}}
	}
	for _, tt := range []struct {
		name     string
		sources  []string
		okFor    string
		refusal  string
		refusals []string
	}{
		{"demo rows", []string{"demo"}, db.MarketDemo, "", []string{db.MarketLive}},
		{"live rows", []string{"push2"}, db.MarketLive, "", []string{db.MarketDemo}},
		{"both", []string{"demo", "akshare"}, "", "both demo-market and live rows", []string{db.MarketDemo, db.MarketLive}},
		{"empty", nil, db.MarketLive, "", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "old.db")
			s, err := openMarket(t, path, "") // writes no market, as an older binary did
			if err != nil {
				t.Fatal(err)
			}
			for _, src := range tt.sources {
				if _, err := s.SaveSnapshot(ctx, snap(src), at); err != nil {
					t.Fatal(err)
				}
			}
			s.Close()
			for _, want := range tt.refusals {
				_, err := openMarket(t, path, want)
				var me *db.MarketError
				if !errors.As(err, &me) || !strings.Contains(err.Error(), tt.refusal) {
					t.Errorf("open for %s: %v; want a MarketError", want, err)
				}
			}
			if tt.okFor == "" {
				return
			}
			s, err = openMarket(t, path, tt.okFor)
			if err != nil {
				t.Fatalf("open for %s: %v", tt.okFor, err)
			}
			s.Close()
			other := map[string]string{db.MarketDemo: db.MarketLive, db.MarketLive: db.MarketDemo}[tt.okFor]
			if _, err := openMarket(t, path, other); err == nil {
				t.Errorf("after opening for %s, the store also opened for %s", tt.okFor, other)
			}
		})
	}
}
