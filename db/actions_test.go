package db_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/market"
	"mdqs/internal/tdx"
)

// w is a gbbq's float32 as it reaches the store: its shortest decimal.
func w(v float32) float64 { return tdx.Decimal32(v) }

func act(code string, day market.Day, category int, f1, f2, f3, f4 float32) db.Action {
	return db.Action{Code: market.MustCode(code), Day: day, Category: category, F: [4]float64{w(f1), w(f2), w(f3), w(f4)}}
}

// actionsFixture is a small file's worth: two cash dividends and a bonus
// of 600519, a rights issue of 000001 beside a share change on its day,
// and two records of 300750 that share (day, category), which the
// bundled files never have but a newer file might.
func actionsFixture() []db.Action {
	return []db.Action{
		act("600519.SH", 20150717, 1, 43.74, 0, 1, 0),
		act("600519.SH", 20240619, 1, 308.76, 0, 0, 0),
		act("600519.SH", 20250626, 1, 276.24, 0, 0, 0),
		act("000001.SZ", 20001106, 1, 0, 8, 0, 3),
		act("000001.SZ", 20001106, 5, 100, 200, 130, 260),
		act("300750.SZ", 20180611, 5, 0, 0, 21724.4, 217244),
		act("300750.SZ", 20180611, 5, 1, 2, 3, 4),
	}
}

func revision(t *testing.T, s *db.Store) int64 {
	t.Helper()
	r, err := s.ActionsRevision(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func actionsOf(t *testing.T, s *db.Store, code string) []db.Action {
	t.Helper()
	got, err := s.Actions(context.Background(), market.MustCode(code))
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func codes(cs ...string) []market.Code {
	out := make([]market.Code, len(cs))
	for i, c := range cs {
		out[i] = market.MustCode(c)
	}
	return out
}

func withSource(as []db.Action, source string) []db.Action {
	out := slices.Clone(as)
	for i := range out {
		out[i].Source = source
	}
	return out
}

func TestReplaceActionsStoresAFileWhole(t *testing.T) {
	s := dbtest.Open(t)
	ctx := context.Background()
	if r := revision(t, s); r != 0 {
		t.Fatalf("ActionsRevision of a new store = %d, want 0", r)
	}
	all := actionsFixture()
	ch, err := s.ReplaceActions(ctx, "tdx", all)
	if err != nil {
		t.Fatal(err)
	}
	if want := codes("000001.SZ", "300750.SZ", "600519.SH"); !reflect.DeepEqual(ch.Codes, want) || ch.Rows != 7 {
		t.Errorf("first import = %+v, want codes %v and 7 rows", ch, want)
	}
	if r := revision(t, s); r != 1 {
		t.Errorf("revision after the first import = %d, want 1", r)
	}
	if got, want := actionsOf(t, s, "600519.SH"), withSource(all[:3], "tdx"); !reflect.DeepEqual(got, want) {
		t.Errorf("Actions(600519.SH) = %+v, want %+v", got, want)
	}
	// The values come back as they were stored: 43.74, the decimal of the
	// file's float32 (43.7400016784668), not rounded further.
	if got := actionsOf(t, s, "600519.SH")[0].F[0]; got != 43.74 {
		t.Errorf("43.74 came back as %v", got)
	}
	if got, want := actionsOf(t, s, "300750.SZ"), withSource(all[5:], "tdx"); !reflect.DeepEqual(got, want) {
		t.Errorf("two records on one (day, category) = %+v, want both in file order %+v", got, want)
	}
	if got := actionsOf(t, s, "601318.SH"); len(got) != 0 {
		t.Errorf("a code without actions = %+v", got)
	}
}

func TestReplaceActionsRewritesOnlyWhatChanged(t *testing.T) {
	s := dbtest.Open(t)
	ctx := context.Background()
	all := actionsFixture()
	if _, err := s.ReplaceActions(ctx, "tdx", all); err != nil {
		t.Fatal(err)
	}
	// The same file again, its runs in another order: nothing changes.
	again := append(slices.Clone(all[3:]), all[:3]...)
	ch, err := s.ReplaceActions(ctx, "tdx", again)
	if err != nil || len(ch.Codes) != 0 || ch.Rows != 7 {
		t.Fatalf("re-import of the same rows = %+v, %v; want no codes changed, 7 rows", ch, err)
	}
	if r := revision(t, s); r != 1 {
		t.Errorf("revision after a no-op re-import = %d, want 1", r)
	}

	// A newer file revises one dividend (601318's 2018 special dividend
	// was added so between two real files).
	revised := slices.Clone(all)
	revised[1].F[0] = w(310)
	ch, err = s.ReplaceActions(ctx, "tdx", revised)
	if err != nil || !reflect.DeepEqual(ch.Codes, codes("600519.SH")) || ch.Rows != 7 {
		t.Fatalf("one value changed = %+v, %v; want only 600519.SH", ch, err)
	}
	if r := revision(t, s); r != 2 {
		t.Errorf("revision after a change = %d, want 2", r)
	}
	if got := actionsOf(t, s, "600519.SH")[1].F[0]; got != 310 {
		t.Errorf("the revised dividend = %v, want 310", got)
	}
	if got, want := actionsOf(t, s, "000001.SZ"), withSource(all[3:5], "tdx"); !reflect.DeepEqual(got, want) {
		t.Errorf("an unchanged code = %+v, want %+v", got, want)
	}

	// A delisted code leaves the file, and a new listing arrives.
	gone := append(slices.Clone(revised[:5]), act("688001.SH", 20190722, 5, 0, 0, 1, 2))
	ch, err = s.ReplaceActions(ctx, "tdx", gone)
	if err != nil || !reflect.DeepEqual(ch.Codes, codes("300750.SZ", "688001.SH")) || ch.Rows != 6 {
		t.Fatalf("a code removed and one added = %+v, %v", ch, err)
	}
	if got := actionsOf(t, s, "300750.SZ"); len(got) != 0 {
		t.Errorf("a code absent from the file still has %+v", got)
	}
	if got := actionsOf(t, s, "688001.SH"); len(got) != 1 || got[0].Day != 20190722 {
		t.Errorf("the new code = %+v", got)
	}
	// An empty file is a file with no actions.
	ch, err = s.ReplaceActions(ctx, "tdx", nil)
	if err != nil || len(ch.Codes) != 3 || ch.Rows != 0 || revision(t, s) != 4 {
		t.Fatalf("an empty replace = %+v, %v, revision %d", ch, err, revision(t, s))
	}
}

// A store holding two sources lists both, and a replace of one leaves the
// other alone.
func TestActionsOfTwoSources(t *testing.T) {
	s := dbtest.Open(t)
	ctx := context.Background()
	if _, err := s.ReplaceActions(ctx, "tdx", []db.Action{act("600519.SH", 20250626, 1, 276.24, 0, 0, 0)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ReplaceActions(ctx, "demo", []db.Action{act("600519.SH", 20250626, 1, 270, 0, 0, 0),
		act("600519.SH", 20240619, 1, 300, 0, 0, 0)}); err != nil {
		t.Fatal(err)
	}
	got := actionsOf(t, s, "600519.SH")
	if len(got) != 3 || got[0].Source != "demo" || got[0].Day != 20240619 || got[1].Source != "demo" || got[2].Source != "tdx" {
		t.Errorf("Actions by day, category, source = %+v", got)
	}
	if _, err := s.ReplaceActions(ctx, "demo", nil); err != nil {
		t.Fatal(err)
	}
	if got := actionsOf(t, s, "600519.SH"); len(got) != 1 || got[0].Source != "tdx" {
		t.Errorf("after emptying demo = %+v, want the tdx row", got)
	}
	if _, err := s.ReplaceActions(ctx, "tdx", []db.Action{{Code: market.MustCode("600519.SH"), Day: 20250626, Category: 1, Source: "demo"}}); market.KindOf(err) != market.KindInvalid {
		t.Errorf("a row of another source: %v, want invalid", err)
	}
}

// A replace that fails half-way leaves the rows and the revision it found:
// every changed code's rows are deleted before the first insert, so the
// bad row, in the last code, fails after the store was written.
func TestReplaceActionsIsOneTransaction(t *testing.T) {
	s := dbtest.Open(t)
	ctx := context.Background()
	all := actionsFixture()
	if _, err := s.ReplaceActions(ctx, "tdx", all); err != nil {
		t.Fatal(err)
	}
	before := map[string][]db.Action{}
	for _, c := range []string{"000001.SZ", "300750.SZ", "600519.SH"} {
		before[c] = actionsOf(t, s, c)
	}
	bad := slices.Clone(all)
	for i := range bad {
		bad[i].F[3] += 1 // every code changes
	}
	bad = append(bad, db.Action{Code: market.MustCode("603777.SH"), Day: 20170621, Category: 0}) // no category 0 in a gbbq
	if _, err := s.ReplaceActions(ctx, "tdx", bad); market.KindOf(err) != market.KindInvalid {
		t.Fatalf("a replace with a bad row: %v, want invalid", err)
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.ReplaceActions(canceled, "tdx", bad[:len(bad)-1]); err == nil {
		t.Fatal("a replace with a canceled context succeeded")
	}
	for c, want := range before {
		if got := actionsOf(t, s, c); !reflect.DeepEqual(got, want) {
			t.Errorf("%s after failed replaces = %+v, want %+v", c, got, want)
		}
	}
	if got := actionsOf(t, s, "603777.SH"); len(got) != 0 {
		t.Errorf("the failed replace left %+v", got)
	}
	if r := revision(t, s); r != 1 {
		t.Errorf("revision after failed replaces = %d, want 1", r)
	}
}

// A file from before markets were recorded holding only actions is judged
// by their source, as by the other tables' rows.
func TestOlderStoreMarketIsInferredFromActions(t *testing.T) {
	ctx := context.Background()
	for source, want := range map[string]string{"demo": db.MarketDemo, "tdx": db.MarketLive} {
		path := filepath.Join(t.TempDir(), "old.db")
		s, err := openMarket(t, path, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.ReplaceActions(ctx, source, actionsFixture()); err != nil {
			t.Fatal(err)
		}
		s.Close()
		other := map[string]string{db.MarketDemo: db.MarketLive, db.MarketLive: db.MarketDemo}[want]
		if _, err := openMarket(t, path, other); err == nil {
			t.Errorf("a store of %s actions opened for %s", source, other)
		}
		s, err = openMarket(t, path, want)
		if err != nil {
			t.Errorf("a store of %s actions: open for %s: %v", source, want, err)
			continue
		}
		s.Close()
	}
}

// benchActions is a gbbq-sized set: 5,000 codes of 40 records each.
func benchActions(codes, per int, changed func(code int) bool) []db.Action {
	out := make([]db.Action, 0, codes*per)
	for c := range codes {
		code := market.Code{Symbol: fmt.Sprintf("%06d", 600000+c), Exchange: market.SH}
		for i := range per {
			cash := float32(c%97) + float32(i)/8
			if changed(c) && i == per-1 {
				cash += 1
			}
			out = append(out, db.Action{Code: code, Day: market.Day(19950101 + 10000*(i/2) + 100*(i%2)), Category: 1 + i%2,
				F: [4]float64{float64(cash), 0, float64(float32(i % 3)), 0}})
		}
	}
	return out
}

// TestReplaceActionsFigures times a real gbbq's import: 200,000 actions
// into an empty store, then the same file with 1% of its codes changed.
// It runs with MDQS_ACTIONS_FIGURES=1 (on PostgreSQL too when
// MDQS_TEST_POSTGRES is set):
//
//	MDQS_ACTIONS_FIGURES=1 go test -run ActionsFigures -v ./db
func TestReplaceActionsFigures(t *testing.T) {
	if os.Getenv("MDQS_ACTIONS_FIGURES") == "" {
		t.Skip("MDQS_ACTIONS_FIGURES not set")
	}
	targets := [][2]string{{"sqlite", filepath.Join(t.TempDir(), "mdqs.db")}}
	if pg := os.Getenv(dbtest.PostgresEnv); pg != "" {
		targets = append(targets, [2]string{"postgres", dbtest.NewSchema(t, pg)})
	}
	const codes, per = 5000, 40
	first := benchActions(codes, per, func(int) bool { return false })
	second := benchActions(codes, per, func(c int) bool { return c%100 == 7 })
	ctx := context.Background()
	for _, tg := range targets {
		s := dbtest.OpenAt(t, tg[1])
		for _, step := range []struct {
			name string
			all  []db.Action
			want int
		}{{"first import", first, codes}, {"1% changed", second, codes / 100}, {"unchanged", second, 0}} {
			start := time.Now()
			ch, err := s.ReplaceActions(ctx, "tdx", step.all)
			took := time.Since(start)
			if err != nil || len(ch.Codes) != step.want || ch.Rows != codes*per {
				t.Fatalf("%s %s: %d codes, %d rows, %v", tg[0], step.name, len(ch.Codes), ch.Rows, err)
			}
			t.Logf("%-8s %-12s %6d rows, %4d codes changed: %v", tg[0], step.name, ch.Rows, len(ch.Codes), took.Round(time.Millisecond))
		}
	}
}
