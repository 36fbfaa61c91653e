package cli

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/market"
)

// reportsEnv is a demo configuration of 60 stocks writing into a temp
// database.
func reportsEnv(t *testing.T) (env Env, dbPath, configPath string, out *bytes.Buffer) {
	return demoEnv(t, 3, 60)
}

func TestReportsImport(t *testing.T) {
	env, dbPath, configPath, out := reportsEnv(t)
	ctx := context.Background()
	// A past period, so the demo's notice dates have all passed whatever
	// the host's date.
	if err := Reports(ctx, env, []string{"import", "-config", configPath, "-period", "2024Q3"}); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !strings.Contains(out.String(), "\n2024Q3: ") || !strings.Contains(out.String(), "from demo") {
		t.Errorf("output %q", out)
	}
	out.Reset()
	if err := Reports(ctx, env, []string{"import", "-config", configPath, "-period", "2024-09-30"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), " 0 new, 0 updated, ") {
		t.Errorf("a second import changed rows: %q", out)
	}
	out.Reset()
	if err := Reports(ctx, env, []string{"import", "-config", configPath, "-code", "600519", "-db", dbPath}); err != nil {
		t.Fatal(err)
	}
	store, err := db.Open(ctx, dbPath, db.Options{SQLiteSchema: dbtest.SQLiteSchema(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	q3, total, err := store.Reports(ctx, db.ReportQuery{Period: 20240930})
	if err != nil || total < 40 || q3[0].Source != "demo" {
		t.Fatalf("2024Q3 rows %d, %v", total, err)
	}
	mine, _, _ := store.Reports(ctx, db.ReportQuery{Codes: []market.Code{market.MustCode("600519.SH")}})
	if len(mine) < 20 {
		t.Errorf("600519: %d periods", len(mine))
	}
}

func TestReportsUsage(t *testing.T) {
	env, _, configPath, _ := reportsEnv(t)
	for _, args := range [][]string{{}, {"export"}, {"import", "-period", "2024Q5"}, {"import", "-code", "60051"},
		{"import", "-latest", "9"}, {"import", "extra"}} {
		var ee *ExitError
		if err := Reports(context.Background(), env, append(args, "-config", configPath)); !errors.As(err, &ee) || ee.Code != 2 {
			t.Errorf("Reports(%q) = %v, want a usage error", args, err)
		}
	}
}
