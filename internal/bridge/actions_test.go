package bridge_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/bridge"
	"mdqs/internal/bridge/bridgetest"
	"mdqs/internal/market"
	"mdqs/internal/tdx"
)

// rewriteGBBQ replaces the folder's gbbq as the terminal does, with a
// later mtime, so the next refresh sees it changed.
func rewriteGBBQ(t *testing.T, dir string, data []byte, step int) {
	t.Helper()
	p := filepath.Join(dir, "T0002", "hq_cache", "gbbq")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	at := time.Now().Add(time.Duration(step) * time.Minute)
	if err := os.Chtimes(p, at, at); err != nil {
		t.Fatal(err)
	}
}

func gbbqBytes(t *testing.T, events []tdx.GBBQEvent) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := tdx.WriteGBBQ(&b, events); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func storedActions(t *testing.T, store *db.Store, code string) []db.Action {
	t.Helper()
	got, err := store.Actions(context.Background(), market.MustCode(code))
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func actionsRevision(t *testing.T, store *db.Store) int64 {
	t.Helper()
	r, err := store.ActionsRevision(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The terminal's gbbq becomes the store's actions of source tdx, read
// again only when it changes; a record that cannot be real is a problem
// and the others are imported; a file that cannot be read whole is a
// problem and leaves the stored actions alone.
func TestRefreshImportsTheGBBQ(t *testing.T) {
	b, store, dir := newBridge(t)
	ctx := context.Background()
	rep, err := b.Refresh(ctx, nil)
	if err != nil || rep.Actions != 6 || rep.ActionCodesChanged != 2 || len(rep.Problems) != 0 {
		t.Fatalf("first refresh = %+v, %v; want 6 actions of 2 codes", rep, err)
	}
	got := storedActions(t, store, "600519.SH")
	if len(got) != 3 || got[0].Day != 20150717 || got[0].Category != 1 || got[0].Source != bridge.Source ||
		got[0].F != [4]float64{43.74, 0, 1, 0} { // the file's float32 43.7400016784668 is the decimal 43.74
		t.Fatalf("600519.SH's actions = %+v", got)
	}
	if got := storedActions(t, store, "000001.SZ"); len(got) != 3 || got[1].Category != 5 || got[2].Day != 20261126 {
		t.Fatalf("000001.SZ's actions (rights issue, share change, announced dividend) = %+v", got)
	}
	rev := actionsRevision(t, store)

	again, err := b.Refresh(ctx, nil)
	if err != nil || again.FilesChanged != 0 || again.Actions != 0 || again.ActionCodesChanged != 0 || actionsRevision(t, store) != rev {
		t.Fatalf("refresh with nothing new = %+v, %v, revision %d (was %d)", again, err, actionsRevision(t, store), rev)
	}

	// A newer file revises one dividend and adds a record that cannot be
	// real (a date that does not exist).
	revised := slices.Clone(bridgetest.GBBQ)
	revised[2].F[0] = 280
	data := gbbqBytes(t, revised)
	data = tdx.AppendGBBQRecord(data, tdx.GBBQEvent{Code: market.MustCode("600036.SH"), Day: 20251340, Category: tdx.Dividend})
	data[0]++ // the header counts the extra record
	rewriteGBBQ(t, dir, data, 1)
	third, err := b.Refresh(ctx, nil)
	if err != nil || third.FilesChanged != 1 || third.Actions != 6 || third.ActionCodesChanged != 1 {
		t.Fatalf("refresh after a revision = %+v, %v; want 6 actions, 1 code changed", third, err)
	}
	if len(third.Problems) != 1 || third.Problems[0].File != "T0002/hq_cache/gbbq" || !strings.Contains(third.Problems[0].Error, "invalid date 20251340") {
		t.Fatalf("problems = %+v, want the bad record named", third.Problems)
	}
	if got := storedActions(t, store, "600519.SH"); got[2].F[0] != 280 {
		t.Fatalf("revised dividend = %+v", got[2])
	}
	if got := actionsRevision(t, store); got != rev+1 {
		t.Fatalf("revision after the revision = %d, want %d", got, rev+1)
	}
	rev++

	// The file caught while being replaced: shorter than its header says.
	rewriteGBBQ(t, dir, gbbqBytes(t, bridgetest.GBBQ[:2])[:2*tdx.GBBQRecordSize], 2)
	fourth, err := b.Refresh(ctx, nil)
	if err != nil || fourth.FilesChanged != 1 || fourth.Actions != 0 || fourth.ActionCodesChanged != 0 {
		t.Fatalf("refresh of a cut file = %+v, %v", fourth, err)
	}
	if len(fourth.Problems) != 1 || fourth.Problems[0].File != "T0002/hq_cache/gbbq" || !strings.Contains(fourth.Problems[0].Error, "does not match the header") {
		t.Fatalf("problems of a cut file = %+v", fourth.Problems)
	}
	if got := storedActions(t, store, "600519.SH"); len(got) != 3 || got[2].F[0] != 280 || actionsRevision(t, store) != rev {
		t.Fatalf("after a cut file the store holds %+v, revision %d (want the revised rows, %d)", got, actionsRevision(t, store), rev)
	}
	// Its state is recorded: the same cut file is not read again.
	if fifth, err := b.Refresh(ctx, nil); err != nil || fifth.FilesChanged != 0 || len(fifth.Problems) != 0 {
		t.Fatalf("refresh of the same cut file = %+v, %v", fifth, err)
	}
	// The terminal finishes: the whole file is imported again.
	rewriteGBBQ(t, dir, gbbqBytes(t, bridgetest.GBBQ), 3)
	sixth, err := b.Refresh(ctx, nil)
	if err != nil || sixth.Actions != 6 || sixth.ActionCodesChanged != 1 || len(sixth.Problems) != 0 {
		t.Fatalf("refresh of the repaired file = %+v, %v", sixth, err)
	}
	if got := storedActions(t, store, "600519.SH"); got[2].F[0] != 276.24 {
		t.Fatalf("dividend after the repair = %+v", got[2])
	}
}

// The demo terminal's gbbq is the demo market's: its actions carry source
// demo, like everything a demo store holds.
func TestDemoRefreshStoresActionsAsTheDemos(t *testing.T) {
	dir := t.TempDir()
	store := dbtest.Open(t)
	clock := market.NewFixedClock(time.Date(2026, 11, 23, 16, 0, 0, 0, market.Shanghai()))
	b := bridge.NewDemo(dir, store, market.DefaultCalendar(), clock, slog.New(slog.NewTextHandler(io.Discard, nil)), 0)
	bridgetest.Write(t, dir)
	rep, err := b.Refresh(context.Background(), nil)
	if err != nil || rep.Actions != len(bridgetest.GBBQ) {
		t.Fatalf("refresh = %+v, %v", rep, err)
	}
	for _, a := range storedActions(t, store, "600519.SH") {
		if a.Source != "demo" {
			t.Errorf("a demo terminal's action of source %q", a.Source)
		}
	}
}

// Issue 28: the terminal's base.dbf gives the listing days (SSDATE) its
// gbbq has no listing record for; a newer file replaces them, and one
// that cannot be read is a problem that leaves them as they were.
func TestRefreshImportsTheListingDaysOfBaseDBF(t *testing.T) {
	b, store, dir := newBridge(t)
	ctx := context.Background()
	if rep, err := b.Refresh(ctx, nil); err != nil || len(rep.Problems) != 0 {
		t.Fatalf("refresh = %+v, %v", rep, err)
	}
	for _, r := range bridgetest.Base {
		if d, src, err := store.ListingDay(ctx, r.Code); err != nil || d != r.Listed || src != tdx.BaseDBFSource {
			t.Errorf("%s: listing day %v from %q, %v; want %v from %q", r.Code, d, src, err, r.Listed, tdx.BaseDBFSource)
		}
	}
	path := filepath.Join(dir, "T0002", "hq_cache", "base.dbf")
	later := time.Now().Add(time.Minute)
	if err := os.WriteFile(path, tdx.EncodeBaseDBF(bridgetest.Base[:1]), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(path, later, later)
	if _, err := b.Refresh(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if d, _, err := store.ListingDay(ctx, bridgetest.Base[2].Code); market.KindOf(err) != market.KindNotFound {
		t.Errorf("a code the newer file leaves out: %v, %v; want none", d, err)
	}
	if err := os.WriteFile(path, []byte("not a dBASE table at all, but long enough to have a header"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(path, later.Add(time.Minute), later.Add(time.Minute))
	rep, err := b.Refresh(ctx, nil)
	if err != nil || len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0].Error, "base.dbf") {
		t.Fatalf("an unreadable base.dbf: %+v, %v; want one problem naming it", rep, err)
	}
	if d, _, err := store.ListingDay(ctx, bridgetest.Base[0].Code); err != nil || d != bridgetest.Base[0].Listed {
		t.Errorf("after an unreadable file: %v, %v; want the days kept", d, err)
	}
}
