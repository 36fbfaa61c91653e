package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/bridge/bridgetest"
	"mdqs/internal/market"
)

func TestImportTDX(t *testing.T) {
	env, dbPath, configPath, out := backfillEnv(t)
	folder := t.TempDir()
	bridgetest.Write(t, folder)
	ctx := context.Background()

	if err := Import(ctx, env, []string{"tdx", "-dir", folder, "-config", configPath}); err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	first := out.String()
	for _, want := range []string{"303 bars read, 303 written, 4 names", "3 concept blocks", "1 index member lists", "6 corporate actions (2 codes changed)", "progress: "} {
		if !strings.Contains(first, want) {
			t.Errorf("first import's output lacks %q:\n%s", want, first)
		}
	}
	store, err := db.Open(ctx, dbPath, db.Options{SQLiteSchema: dbtest.SQLiteSchema(t)})
	if err != nil {
		t.Fatal(err)
	}
	n, err := store.BarCount(ctx, market.MustCode("600519.SH"), market.Daily)
	store.Close()
	if err != nil || n == 0 {
		t.Fatalf("600519.SH daily bars after the import: %d %v", n, err)
	}

	// Nothing changed: nothing is read or written.
	out.Reset()
	if err := Import(ctx, env, []string{"tdx", "-dir", folder, "-config", configPath}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "0 changed: 0 bar files, 0 bars read, 0 written") {
		t.Errorf("second import:\n%s", out)
	}

	for _, tc := range []struct {
		args []string
		code int
		text string
	}{
		{nil, 2, "mdqs import: no command given"},
		{[]string{"csv"}, 2, `unknown source "csv"`},
		{[]string{"tdx", "-config", configPath}, 2, "give -dir, or set tdx.dir"},
		{[]string{"tdx", "-config", configPath, "-dir", filepath.Join(folder, "nope")}, 1, "no such folder"},
		{[]string{"tdx", "-config", configPath, "-dir", folder, "extra"}, 2, `unexpected argument "extra"`},
	} {
		err := Import(ctx, env, tc.args)
		var ee *ExitError
		if !errors.As(err, &ee) || ee.Code != tc.code || !strings.Contains(err.Error(), tc.text) {
			t.Errorf("Import(%q) = %v, want exit %d saying %q", tc.args, err, tc.code, tc.text)
		}
	}
}

// A .day file with junk appended changes (its size), so it is read again,
// but holds no new bar: the progress line counts the bars read, as the
// summary does, and claims no rate for a run shorter than a second. It
// once said "250 bars written, 3,125,000,000 bars/s" over a summary of 0.
func TestImportProgressAgreesWithTheSummary(t *testing.T) {
	env, _, configPath, out := backfillEnv(t)
	folder := t.TempDir()
	bridgetest.Write(t, folder)
	ctx := context.Background()
	if err := Import(ctx, env, []string{"tdx", "-dir", folder, "-config", configPath}); err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	f, err := os.OpenFile(filepath.Join(folder, "vipdoc", "sh", "lday", "sh600519.day"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("junk!")) // less than one 32-byte record
	f.Close()
	out.Reset()
	if err := Import(ctx, env, []string{"tdx", "-dir", folder, "-config", configPath}); err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	progress := regexp.MustCompile(`progress: 1/1 files, ([0-9,]+) bars read, elapsed`).FindStringSubmatch(out.String())
	summary := regexp.MustCompile(`([0-9,]+) bars read, 0 written`).FindStringSubmatch(out.String())
	if progress == nil || summary == nil || progress[1] != summary[1] || progress[1] == "0" {
		t.Fatalf("progress and summary disagree (want the same bars read, none written):\n%s", out)
	}
	if strings.Contains(out.String(), "bars/s") || strings.Contains(out.String(), "bars written") {
		t.Errorf("a sub-second import claims a rate or writes:\n%s", out)
	}
}
