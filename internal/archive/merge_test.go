package archive_test

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"mdqs/db"
	"mdqs/internal/archive"
	"mdqs/internal/kline"
	"mdqs/internal/market"
)

// minuteDay is what a store holds of a code's day at freq, and its source.
func minuteDay(t *testing.T, st *db.Store, code market.Code, freq market.Freq, day market.Day) ([]market.Bar, string) {
	t.Helper()
	days, err := st.MinuteDays(context.Background(), code, freq, day, day)
	if err != nil {
		t.Fatal(err)
	}
	if len(days) == 0 {
		return nil, ""
	}
	return days[0].Bars, days[0].Source
}

type codeDay struct {
	code market.Code
	day  market.Day
}

// A merge fills exactly the code-days this store lacks and the other kept:
// with the other's bars bit for bit, under the upstream that gave them,
// its origin recorded and each day checked against this store's daily
// bars. A day this store archived (with other bars), a gap the other has,
// bars held here without a record are left alone; a day held at 5 minutes
// only gains the 1-minute bars and keeps its own 5-minute ones; a second
// merge writes nothing.
func TestMergeFillsExactlyTheMissingDays(t *testing.T) {
	ctx := context.Background()
	other := newRig(t, 0)
	if _, err := other.arc.Run(ctx, archive.Request{}); err != nil {
		t.Fatal(err)
	}
	due := other.arc.Due()
	stocks := []market.Code{}
	for c := range other.listed(t, due[2]) {
		if market.Classify(c) == market.TypeStock {
			stocks = append(stocks, c)
		}
	}
	slices.SortFunc(stocks, func(a, b market.Code) int { return strings.Compare(a.String(), b.String()) })
	if len(stocks) < 8 {
		t.Fatalf("%d stocks listed", len(stocks))
	}
	// The other archive has a gap (its bars, left from before, do not
	// count: a merge goes by the records).
	gapAt := codeDay{stocks[0], due[1]}
	if err := other.store.PutArchive(ctx, []db.ArchiveEntry{{Day: db.ArchiveDay{Day: gapAt.day, Code: gapAt.code, Status: db.ArchiveGap,
		Reason: "the source has no minutes of the day", Source: "demo", At: friday}}}); err != nil {
		t.Fatal(err)
	}

	here := newRig(t, 0)
	// This store archived the latest day itself, with a source whose
	// bars differ from the other's: they must stay.
	shifted := codeDay{stocks[1], due[4]}
	here.src.fail = func(code market.Code, n int64) ([]market.Bar, error) {
		if code != shifted.code {
			return nil, nil
		}
		bars, err := here.dm.Trends(ctx, code, 1)
		for i := range bars {
			bars[i].Volume++
		}
		return bars, err
	}
	if _, err := here.arc.Run(ctx, archive.Request{Day: due[4]}); err != nil {
		t.Fatal(err)
	}
	// A gap of its own, which the merge may fill.
	ownGap := codeDay{stocks[2], due[2]}
	// Bars held without a record (a K-line request, the terminal's .lc1).
	heldAt := codeDay{stocks[3], due[3]}
	heldBars, _ := minuteDay(t, other.store, heldAt.code, market.Min1, heldAt.day)
	heldBars = append([]market.Bar(nil), heldBars...)
	heldBars[100].Close = math.Round(heldBars[100].Close*100+1) / 100 // a cent more, as the store keeps prices: in ticks
	// A day at 5 minutes only.
	fiveAt := codeDay{stocks[4], due[0]}
	their1, _ := minuteDay(t, other.store, fiveAt.code, market.Min1, fiveAt.day)
	five := kline.Aggregate(their1, market.Min5)
	five[0].Volume += 100 // this store's own, told apart from the other's aggregate
	// Daily bars this store holds: one agrees with the minutes, one does not.
	agrees, disagrees := codeDay{stocks[5], due[1]}, codeDay{stocks[6], due[1]}
	daily := func(c codeDay, scale int64) market.Bar {
		bars, err := here.dm.Klines(ctx, c.code, market.Daily, c.day, c.day)
		if err != nil || len(bars) != 1 {
			t.Fatalf("the demo's daily bar of %v: %v", c, err)
		}
		bars[0].Volume *= scale
		return bars[0]
	}
	if err := here.store.PutArchive(ctx, []db.ArchiveEntry{
		{Day: db.ArchiveDay{Day: ownGap.day, Code: ownGap.code, Status: db.ArchiveGap, Reason: "the source has no minutes of the day", Source: "demo", At: friday}},
		{Day: db.ArchiveDay{Day: fiveAt.day, Code: fiveAt.code, Status: db.ArchiveArchived, Freq: 5, Bars: 48, OpensGiven: true, Source: "demo", At: friday},
			Batches: []db.BarBatch{{Code: fiveAt.code, Freq: market.Min5, Source: "demo", Bars: five}}},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := here.store.IngestBars(ctx, []db.BarBatch{
		{Code: heldAt.code, Freq: market.Min1, Source: "tdx", Bars: heldBars},
		{Code: agrees.code, Freq: market.Daily, Source: "tdx", Bars: []market.Bar{daily(agrees, 1)}},
		{Code: disagrees.code, Freq: market.Daily, Source: "tdx", Bars: []market.Bar{daily(disagrees, 2)}},
	}); err != nil {
		t.Fatal(err)
	}

	// What this store holds before, and what the merge must fill.
	before := map[codeDay]db.ArchiveDay{}
	want := map[codeDay]bool{}
	for _, d := range due {
		mine, err := here.store.ArchiveDays(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		kept := map[market.Code]bool{}
		for _, a := range mine {
			before[codeDay{a.Code, d}] = a
			if a.Status != db.ArchiveGap && a.Freq == 1 {
				kept[a.Code] = true
			}
		}
		theirs, err := other.store.ArchiveDays(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range theirs {
			at := codeDay{a.Code, d}
			if a.Status != db.ArchiveGap && !kept[a.Code] && at != heldAt {
				want[at] = true
			}
		}
	}
	if !want[ownGap] || !want[fiveAt] || want[shifted] || want[heldAt] || want[gapAt] || len(want) < 100 {
		t.Fatalf("the test's set-up: %d code-days to fill", len(want))
	}

	rep, err := here.arc.Merge(ctx, other.store, "/backups/colleague.db", nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Filled+rep.Upgraded != len(want) || rep.Upgraded != 1 || rep.Flagged != 1 || rep.Days != 5 {
		t.Fatalf("merge: %+v, want %d filled, 1 of them upgraded, 1 flagged", rep, len(want))
	}
	for _, d := range due {
		mine, err := here.store.ArchiveDays(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		got := map[market.Code]db.ArchiveDay{}
		for _, a := range mine {
			got[a.Code] = a
		}
		for c, a := range got {
			at := codeDay{c, d}
			if !want[at] {
				if b, ok := before[at]; !ok || b != a {
					t.Errorf("%v %s: the merge touched a day it had to leave: %+v, was %+v (%v)", d, c, a, b, ok)
				}
				continue
			}
			if a.Origin != "/backups/colleague.db" || a.Source != "demo" || a.Freq != 1 || a.Bars != 240 {
				t.Errorf("%v %s: a filled day's record %+v", d, c, a)
			}
		}
		for at := range want {
			if at.day == d && got[at.code].Origin == "" {
				t.Errorf("%v %s was not filled", d, at.code)
			}
		}
	}
	for at := range want {
		theirs, src := minuteDay(t, other.store, at.code, market.Min1, at.day)
		mine, msrc := minuteDay(t, here.store, at.code, market.Min1, at.day)
		if !same(mine, theirs) || msrc != src {
			t.Fatalf("%v: %d bars from %q here, %d from %q there", at, len(mine), msrc, len(theirs), src)
		}
	}
	check := func(at codeDay, status, reason string) {
		t.Helper()
		recs, _ := here.store.ArchiveDays(ctx, at.day)
		for _, a := range recs {
			if a.Code == at.code {
				if a.Status != status || (reason == "" && a.Reason != "") || !strings.Contains(a.Reason, reason) {
					t.Errorf("%v: %s %q, want %s %q", at, a.Status, a.Reason, status, reason)
				}
				return
			}
		}
		t.Errorf("%v: no record", at)
	}
	check(agrees, db.ArchiveArchived, "")
	check(disagrees, db.ArchiveFlagged, "volume")
	// The 5-minute day keeps its own 5-minute bars beside the new minutes.
	if got, _ := minuteDay(t, here.store, fiveAt.code, market.Min5, fiveAt.day); !same(got, five) {
		t.Errorf("the 5-minute-only day's own bars were replaced")
	}
	// Held bars stay what they were, still without a record.
	if got, src := minuteDay(t, here.store, heldAt.code, market.Min1, heldAt.day); !same(got, heldBars) || src != "tdx" {
		t.Errorf("bars held here were overwritten (source %q)", src)
	}
	if got, _ := minuteDay(t, here.store, shifted.code, market.Min1, shifted.day); got[0].Volume == func() int64 {
		b, _ := minuteDay(t, other.store, shifted.code, market.Min1, shifted.day)
		return b[0].Volume
	}() {
		t.Errorf("a day this store archived took the other's bars")
	}
	again, err := here.arc.Merge(ctx, other.store, "/backups/colleague.db", nil)
	if err != nil || again.Filled+again.Upgraded != 0 || again.Bars != 0 {
		t.Fatalf("a second merge: %+v (%v)", again, err)
	}
	if st, err := here.arc.Status(ctx); err != nil || sumMerged(st) != len(want) {
		t.Fatalf("status counts %d merged code-days (%v), want %d", sumMerged(st), err, len(want))
	}
}

func sumMerged(st archive.Status) int {
	n := 0
	for _, d := range st.Days {
		n += d.Merged
	}
	return n
}
