package movement

import (
	"context"
	"math"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/board"
	"mdqs/internal/market"
)

func TestFuzzyNames(t *testing.T) {
	for _, tt := range []struct {
		name, pattern string
		want          bool
	}{
		{"半导体", "半导", true}, {"AI芯片", "ai", true}, {"TDX 综企", "tdx综企", true},
		{"人工智能", "智能", true}, {"银行", "证券", false}, {"5G概念", "5g", true},
	} {
		if got := fuzzy(tt.name, tt.pattern); got != tt.want {
			t.Errorf("fuzzy(%q, %q) = %v, want %v", tt.name, tt.pattern, got, tt.want)
		}
	}
}

func TestUnknownValuesSortLastBothWays(t *testing.T) {
	sectors := []market.Sector{
		{Name: "a", Amount: 2}, {Name: "b", Amount: math.NaN()}, {Name: "c", Amount: 1},
	}
	for _, asc := range []bool{false, true} {
		f := Filter{Sort: "amount", Asc: asc, MinAmount: NoBound(), MinTurnover: NoBound(), MinMainNet: NoBound()}
		rows, matched := f.apply(market.Industry, sectors, nil)
		if !matched || rows[2].BoardName != "b" {
			t.Errorf("asc=%v: last row %s, want the unknown amount last", asc, rows[2].BoardName)
		}
	}
	f := Filter{MinAmount: 1.5, MinTurnover: NoBound(), MinMainNet: NoBound()}
	if rows, _ := f.apply(market.Industry, sectors, nil); len(rows) != 1 || rows[0].BoardName != "a" {
		t.Errorf("min_amount drops unknown amounts: got %v", rows)
	}
}

func snapshotAt(at time.Time, pcts map[string]float64) board.Stored {
	st := board.Stored{SectorSnapshot: market.SectorSnapshot{Kind: market.Concept, Source: "demo", At: at}, CollectedAt: at}
	for name, p := range pcts {
		st.Sectors = append(st.Sectors, market.Sector{Name: name, Code: "BK" + name, Pct: p, MainNet: 1})
	}
	return st
}

func TestDetectorSpeedAgainstTheOldestCollectionInTheWindow(t *testing.T) {
	store := dbtest.Open(t)
	clock := market.NewFixedClock(time.Date(2026, 11, 23, 10, 0, 0, 0, market.Shanghai()))
	d := NewDetector(Thresholds{Pct: 5, Speed: 1, SpeedWindow: 3 * time.Minute}, store, clock, nil)
	ctx := context.Background()
	// A climbs 0.4 per minute: +1.2 after three minutes, but only against
	// the collection three minutes back.
	for i, p := range []float64{0, 0.4, 0.8, 1.2, 1.6} {
		at := clock.Now().Add(time.Duration(i) * time.Minute)
		if err := d.Observe(ctx, snapshotAt(at, map[string]float64{"A": p, "B": -p * 3})); err != nil {
			t.Fatal(err)
		}
	}
	evs, err := store.Events(ctx, db.EventFilter{Day: 20261123, Kind: market.Concept, Source: "demo"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range evs {
		got[e.BoardName+"/"+e.Trigger] = market.FormatTime(e.At)
	}
	// A: 10:03 is +1.2 against 10:00 (first surge). B falls 1.2 per minute:
	// -1.2 against 10:00 already at 10:01 (plunge).
	want := map[string]string{"A/surge": "2026-11-23 10:03:00", "B/plunge": "2026-11-23 10:01:00"}
	if len(got) != len(want) {
		t.Fatalf("events = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s at %s, want %s", k, got[k], v)
		}
	}
}

func TestDetectorIgnoresReplaysOfPastDays(t *testing.T) {
	store := dbtest.Open(t)
	clock := market.NewFixedClock(time.Date(2026, 11, 23, 10, 0, 0, 0, market.Shanghai()))
	d := NewDetector(Thresholds{Pct: 2, Speed: 1, SpeedWindow: 5 * time.Minute}, store, clock, nil)
	friday := time.Date(2026, 11, 20, 15, 0, 0, 0, market.Shanghai())
	if err := d.Observe(context.Background(), snapshotAt(friday, map[string]float64{"A": 9})); err != nil {
		t.Fatal(err)
	}
	evs, _ := store.Events(context.Background(), db.EventFilter{Day: 20261120, Source: "demo"})
	if len(evs) != 0 {
		t.Fatalf("a replay of Friday made %d events", len(evs))
	}
}
