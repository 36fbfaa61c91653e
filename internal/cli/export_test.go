package cli

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"mdqs/internal/export"
	"mdqs/internal/market"
)

// The range the export tests use: a fixed past week, so the demo market's
// answers are the same on every run.
const (
	exFrom = "2026-11-02"
	exTo   = "2026-11-06"
)

func TestExportUsage(t *testing.T) {
	env, _, configPath, out := demoEnv(t, 7, 50)
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-from", exFrom}, "-out is required"},
		{[]string{"-out", filepath.Join(dir, "x.csv")}, "-from is required"},
		{[]string{"-what", "ticks", "-from", exFrom, "-out", "x.csv"}, `-what "ticks"`},
		{[]string{"-from", exTo, "-to", exFrom, "-out", "x.csv"}, "is after -to"},
		{[]string{"-what", "rankings", "-freq", "1m", "-from", exFrom, "-out", "x.csv"}, "-freq is for bars and minutes"},
		{[]string{"-what", "lhb", "-codes", "600519.SH", "-from", exFrom, "-out", "x.csv"}, "-codes is for bars"},
		{[]string{"-what", "minutes", "-freq", "D", "-from", exFrom, "-out", "x.csv"}, "takes -freq 1m or 5m"},
		{[]string{"-qlib", "-format", "parquet", "-from", exFrom, "-out", dir}, "-qlib writes qlib's CSVs"},
		{[]string{"-format", "xlsx", "-from", exFrom, "-out", "x.csv"}, `format "xlsx"`},
		{[]string{"-adjust", "xfq", "-from", exFrom, "-out", "x.csv"}, "-adjust"},
		{[]string{"-codes", "60051", "-from", exFrom, "-out", "x.csv"}, "-codes"},
	} {
		out.Reset()
		err := Export(context.Background(), env, append([]string{"-config", configPath}, tc.args...))
		var ee *ExitError
		if !errors.As(err, &ee) || ee.Code != 2 || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("export %v = %v, want exit 2 saying %q", tc.args, err, tc.want)
		}
	}
}

// readCSV is a CSV file's records.
func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	records, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return records
}

// TestExportBars: store-only on a store that lacks the range names what is
// missing and writes nothing (exit 1); without it the store is filled as
// the API fills it (the demo market here) and every code's every day is
// exported, to CSV or (by the extension) Parquet; store-only then finds
// it all.
func TestExportBars(t *testing.T) {
	env, _, configPath, out := demoEnv(t, 7, 50)
	dir := t.TempDir()
	csvPath, pqPath := filepath.Join(dir, "bars.csv"), filepath.Join(dir, "bars.parquet")
	base := []string{"-config", configPath, "-what", "bars", "-from", exFrom, "-to", exTo, "-codes", "600519.SH,000001.SZ"}

	err := Export(context.Background(), env, append(base, "-out", csvPath, "-store-only"))
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 1 || !strings.Contains(err.Error(), "600519.SH (2026-11-02..2026-11-06)") {
		t.Fatalf("store-only on an empty store = %v, want exit 1 naming the missing days\n%s", err, out)
	}
	if _, err := os.Stat(csvPath); !os.IsNotExist(err) {
		t.Fatalf("a refused export wrote %s", csvPath)
	}

	out.Reset()
	if err := Export(context.Background(), env, append(base, "-out", csvPath)); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	records := readCSV(t, csvPath)
	if got := strings.Join(records[0], ","); got != "code,trade_date,ts,open,high,low,close,volume,amount,turnover_rate,large_order_net,source" {
		t.Errorf("header %s", got)
	}
	// The codes in the order named, each in time order.
	if len(records) != 1+2*5 || records[1][0] != "600519.SH" || records[1][1] != exFrom || records[10][0] != "000001.SZ" || records[10][1] != exTo {
		t.Errorf("%d records, first %v, last %v", len(records), records[1], records[len(records)-1])
	}
	if !strings.Contains(out.String(), "done: 10 rows of 2 of 2 codes, 2026-11-02 to 2026-11-06, source demo") {
		t.Errorf("summary:\n%s", out)
	}

	out.Reset()
	if err := Export(context.Background(), env, append(base, "-out", pqPath, "-store-only")); err != nil {
		t.Fatalf("store-only after the fill: %v\n%s", err, out)
	}
	rows, err := parquet.ReadFile[export.BarRow](pqPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 10 {
		t.Fatalf("%d Parquet rows, want 10", len(rows))
	}
	for i, r := range rows {
		close, _ := strconv.ParseFloat(records[i+1][6], 64)
		vol, _ := strconv.ParseInt(records[i+1][7], 10, 64)
		if r.Code != records[i+1][0] || r.Close != close || r.Volume != vol {
			t.Errorf("row %d: Parquet %+v, CSV %v", i, r, records[i+1])
		}
	}
}

// TestExportQlib: -qlib writes a folder of qlib's CSVs, 后复权 by default.
func TestExportQlib(t *testing.T) {
	env, _, configPath, out := demoEnv(t, 7, 50)
	dir := filepath.Join(t.TempDir(), "qlib")
	args := []string{"-config", configPath, "-from", exFrom, "-to", exTo, "-codes", "600519.SH,000001.SZ", "-qlib", "-out", dir}
	// qlib's default is 后复权, which needs the corporate actions: this
	// store has none, and says how to go on without.
	err := Export(context.Background(), env, args)
	if err == nil || !strings.Contains(err.Error(), "no corporate actions imported") || !strings.Contains(err.Error(), "-adjust none") {
		t.Fatalf("qlib without corporate actions = %v", err)
	}
	out.Reset()
	if err := Export(context.Background(), env, append(args, "-adjust", "none")); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, name := range []string{"SH600519.csv", "SZ000001.csv"} {
		records := readCSV(t, filepath.Join(dir, name))
		if strings.Join(records[0], ",") != "date,open,high,low,close,volume,amount,factor" || len(records) != 6 || records[1][0] != exFrom {
			t.Errorf("%s: %v", name, records)
		}
	}
	if !strings.Contains(out.String(), "qlib's layout, one CSV per code, prices none") || !strings.Contains(out.String(), "2 files in") {
		t.Errorf("output:\n%s", out)
	}
}

// TestExportPages: a dataset the API answers (the dragon-tiger list) is
// filled as its job fills it and exported a day at a time, the day in
// front of the answer's own columns; store-only on a store without it
// names the days and writes nothing.
func TestExportPages(t *testing.T) {
	env, _, configPath, out := demoEnv(t, 7, 60)
	dir := t.TempDir()
	path := filepath.Join(dir, "lhb.csv")
	base := []string{"-config", configPath, "-what", "lhb", "-from", exFrom, "-to", exTo, "-out", path}
	err := Export(context.Background(), env, append(base, "-store-only"))
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 1 || !strings.Contains(err.Error(), "/v1/api/lhb?date=2026-11-02") {
		t.Fatalf("store-only = %v, want exit 1 naming the days\n%s", err, out)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("a refused export wrote %s", path)
	}
	out.Reset()
	if err := Export(context.Background(), env, base); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	records := readCSV(t, path)
	if len(records) < 2 || records[0][0] != "trade_date" || records[0][1] != "date" || records[0][2] != "code" {
		t.Fatalf("records %v", records[:min(2, len(records))])
	}
	for _, r := range records[1:] {
		if r[0] < exFrom || r[0] > exTo || r[0] != r[1] {
			t.Errorf("a row of %s (its date %s) in the week's export", r[0], r[1])
		}
	}
	// Every day answered (a day without listings has no rows, not a 404).
	if !strings.Contains(out.String(), "rows of ") || strings.Contains(out.String(), "answered 404") {
		t.Errorf("output:\n%s", out)
	}
	out.Reset()
	if err := Export(context.Background(), env, append(base, "-store-only")); err != nil {
		t.Errorf("store-only after the fill: %v\n%s", err, out)
	}
	if _, err := market.ParseDay(records[1][0]); err != nil {
		t.Error(err)
	}
}
