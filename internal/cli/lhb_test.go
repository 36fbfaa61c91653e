package cli

import (
	"context"
	"errors"
	"strings"
	"testing"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/market"
)

// mdqs lhb backfill fills a range from the demo market, skips the days
// it holds, and refuses bad flags with a usage error.
func TestLHBBackfill(t *testing.T) {
	env, dbPath, configPath, out := demoEnv(t, 3, 200)
	ctx := context.Background()
	to := market.DefaultCalendar().Prev(market.DayOf(market.SystemClock{}.Now()))
	from := to.AddDays(-9)
	args := []string{"backfill", "-config", configPath, "-from", from.String(), "-to", to.String()}
	if err := LHB(ctx, env, args); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	want := len(market.DefaultCalendar().Between(from, to))
	if !strings.Contains(out.String(), " days imported of ") || !strings.Contains(out.String(), "to demo") {
		t.Errorf("output %q", out)
	}
	store, err := db.Open(ctx, dbPath, db.Options{SQLiteSchema: dbtest.SQLiteSchema(t)})
	if err != nil {
		t.Fatal(err)
	}
	days, err := store.LHBDays(ctx, from, to)
	store.Close()
	if err != nil || len(days) != want || days[0].Source != "demo" {
		t.Fatalf("stored %d days (%v), want %d", len(days), err, want)
	}
	out.Reset()
	if err := LHB(ctx, env, args); err != nil || !strings.Contains(out.String(), "\n0 days imported") {
		t.Errorf("again: %v, %q (held days must be skipped)", err, out)
	}
	for _, bad := range [][]string{{"backfill", "-config", configPath}, {"backfill", "-config", configPath, "-from", "2026-11-20", "-to", "2026-11-01"}, {"nope"}} {
		var ue *ExitError
		if err := LHB(ctx, env, bad); !errors.As(err, &ue) || ue.Code != 2 {
			t.Errorf("LHB(%q) = %v, want a usage error", bad, err)
		}
	}
}
