package bridge_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mdqs/db/dbtest"
	"mdqs/internal/bridge"
	"mdqs/internal/bridge/bridgetest"
	"mdqs/internal/indexmembers"
	"mdqs/internal/market"
	"mdqs/internal/tdx"
)

// Each import records the index lists of the block files that changed,
// dated by the file's day: block_zs.dat's (capped) until spblock.dat
// lists the index, spblock.dat's from then on; a member spblock.dat no
// longer lists leaves, and block_zs.dat's differing list is flagged, never
// taken.
func TestRefreshRecordsIndexLists(t *testing.T) {
	dir := t.TempDir()
	bridgetest.Write(t, dir)
	store := dbtest.Open(t)
	clock := market.NewFixedClock(time.Date(2026, 12, 11, 16, 0, 0, 0, market.Shanghai()))
	b, err := bridge.New(dir, store, market.DefaultCalendar(), clock, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	hq := filepath.Join(dir, "T0002", "hq_cache")
	touch := func(name string, at time.Time) {
		t.Helper()
		if err := os.Chtimes(filepath.Join(hq, name), at, at); err != nil {
			t.Fatal(err)
		}
	}
	day1 := clock.Now().Add(-time.Hour)
	touch("block_zs.dat", day1)
	rep, err := b.Refresh(ctx, nil)
	if err != nil || rep.IndexLists != 1 {
		t.Fatalf("first refresh: %d index lists, %v; want block_zs.dat's 沪深300", rep.IndexLists, err)
	}
	writeSP := func(at time.Time, members ...string) {
		t.Helper()
		var buf bytes.Buffer
		if err := tdx.WriteSPBlock(&buf, []tdx.SPBlock{{Name: "融资融券", Members: codes(members[:1]...)}, {Name: "沪深300", Members: codes(members...)}}); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(hq, "spblock.dat"), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		touch("spblock.dat", at)
	}
	clock.Set(time.Date(2026, 12, 14, 16, 0, 0, 0, market.Shanghai()))
	writeSP(clock.Now().Add(-time.Hour), "600519.SH", "000001.SZ", "601088.SH", "300750.SZ")
	if rep, err = b.Refresh(ctx, nil); err != nil || rep.IndexLists != 1 {
		t.Fatalf("spblock.dat refresh: %d index lists, %v", rep.IndexLists, err)
	}
	clock.Set(time.Date(2026, 12, 15, 16, 0, 0, 0, market.Shanghai()))
	writeSP(clock.Now().Add(-time.Hour), "600519.SH", "000001.SZ", "300750.SZ")
	touch("block_zs.dat", clock.Now().Add(-time.Hour)) // its 3 members differ from spblock.dat's
	if rep, err = b.Refresh(ctx, nil); err != nil || rep.IndexLists != 1 {
		t.Fatalf("third refresh: %d index lists, %v", rep.IndexLists, err)
	}
	flagged := ""
	for _, f := range rep.Flagged {
		flagged += f.File + ": " + f.Reason + "\n"
	}
	if !strings.Contains(flagged, "T0002/hq_cache/block_zs.dat: index list not taken: 沪深300 (000300.SH): 3 members here, 3 in spblock.dat, which is taken") {
		t.Errorf("flagged:\n%s", flagged)
	}
	svc := indexmembers.New(store)
	ch, err := svc.Changes(ctx, market.MustCode("000300.SH"), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range ch.Changes {
		got = append(got, c.Kind+" "+c.Code.String()+" "+c.Day.String()+" "+c.File)
	}
	if want := "in 300750.SZ 2026-12-14 spblock.dat|out 601088.SH 2026-12-15 spblock.dat"; strings.Join(got, "|") != want {
		t.Errorf("changes = %q, want %q", strings.Join(got, "|"), want)
	}
	m, err := svc.Members(ctx, market.MustCode("000300.SH"), 20261211)
	if err != nil || m.Observed.File != "block_zs.dat" || len(m.Members) != 3 {
		t.Errorf("members on 12-11 = %+v, %v; want block_zs.dat's three", m, err)
	}
	// A refresh with nothing changed records nothing.
	if rep, err = b.Refresh(ctx, nil); err != nil || rep.IndexLists != 0 {
		t.Errorf("an idle refresh recorded %d index lists, %v", rep.IndexLists, err)
	}
}

func codes(s ...string) []market.Code {
	out := make([]market.Code, len(s))
	for i, c := range s {
		out[i] = market.MustCode(c)
	}
	return out
}
