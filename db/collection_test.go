package db_test

import (
	"context"
	"math"
	"testing"
	"time"

	"mdqs/db/dbtest"
	"mdqs/internal/market"
)

// TestSaveCollectionStoresOnlyNewData: a collection with the same data
// time and rows as the latest stored one of its family, source and day
// adds nothing (its collected_at moves on); any difference is stored.
func TestSaveCollectionStoresOnlyNewData(t *testing.T) {
	s := dbtest.Open(t)
	ctx := context.Background()
	day := market.Day(20261123)
	at := day.At(10, 0, 0)
	rows := func() []market.Sector {
		return []market.Sector{
			{Name: "银行", Code: "BK0475", Price: 1000, Pct: 1.5, Amount: 5e9, Turnover: math.NaN(), MainNet: 1e8, MainNetRatio: 2,
				Up: 10, Down: 2, Flat: 1, LeaderCode: "600036", LeaderName: "招商银行", LeaderPct: 3.1},
			{Name: "证券", Code: "BK0473", Price: 900, Pct: -0.5, Amount: 4e9, Turnover: 1.2, MainNet: -3e7, MainNetRatio: math.Inf(1),
				Up: -1, Down: -1, Flat: -1, LeaderPct: math.NaN()},
		}
	}
	snap := func(at time.Time, list []market.Sector) market.SectorSnapshot {
		return market.SectorSnapshot{Kind: market.Industry, Source: "push2", At: at, Sectors: list}
	}
	count := func() int {
		t.Helper()
		n, err := s.Collections(ctx, market.Industry, "push2", day)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	first, added, err := s.SaveCollection(ctx, snap(at, rows()), at)
	if err != nil || !added {
		t.Fatalf("first SaveCollection = %d, %v, %v; want added", first, added, err)
	}
	// The same data again, collected later, many times: nothing added.
	for i := 1; i <= 5; i++ {
		id, added, err := s.SaveCollection(ctx, snap(at, rows()), at.Add(time.Duration(i)*time.Minute))
		if err != nil || added || id != first {
			t.Fatalf("repeat %d: SaveCollection = %d, %v, %v; want %d not added", i, id, added, err, first)
		}
	}
	if n := count(); n != 1 {
		t.Fatalf("after 6 identical collections: %d stored, want 1", n)
	}
	if got, ok, err := s.LastCollected(ctx, market.Industry, "push2", day); err != nil || !ok || !got.Equal(at.Add(5*time.Minute)) {
		t.Fatalf("LastCollected = %v %v %v; want the last confirmation %v", got, ok, err, at.Add(5*time.Minute))
	}
	// An earlier confirmation does not move collected_at back.
	if _, _, err := s.SaveCollection(ctx, snap(at, rows()), at.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := s.LastCollected(ctx, market.Industry, "push2", day); !got.Equal(at.Add(5 * time.Minute)) {
		t.Fatalf("LastCollected moved back to %v", got)
	}
	// A name twice keeps its last row, as stored: still the same data.
	dup := append([]market.Sector{{Name: "银行", Code: "BK0475", Pct: 9}}, rows()...)
	if _, err := s.SaveSnapshot(ctx, snap(at.Add(time.Second), dup), at.Add(6*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if _, added, err := s.SaveCollection(ctx, snap(at.Add(time.Second), dup), at.Add(7*time.Minute)); err != nil || added {
		t.Fatalf("a repeated snapshot with a name twice: added %v, %v; want not added", added, err)
	}

	// Anything new is stored: another data time, a changed number, a row
	// more, another family, another day.
	changed := rows()
	changed[1].Pct = -0.6
	nan := rows()
	nan[0].Pct = math.NaN()
	for _, tc := range []struct {
		name string
		snap market.SectorSnapshot
	}{
		{"later data time", snap(at.Add(time.Minute), rows())},
		{"a changed pct", snap(at.Add(time.Minute), changed)},
		{"a pct now unknown", snap(at.Add(time.Minute), nan)},
		{"a row more", snap(at.Add(time.Minute), append(rows(), market.Sector{Name: "保险", Code: "BK0474"}))},
		{"the previous one again", snap(at.Add(time.Minute), rows())},
	} {
		before := count()
		if _, added, err := s.SaveCollection(ctx, tc.snap, at.Add(10*time.Minute)); err != nil || !added {
			t.Errorf("%s: added %v, %v; want added", tc.name, added, err)
		}
		if n := count(); n != before+1 {
			t.Errorf("%s: %d collections, want %d", tc.name, n, before+1)
		}
	}
	other := snap(at, rows())
	other.Kind = market.Concept
	if _, added, err := s.SaveCollection(ctx, other, at); err != nil || !added {
		t.Errorf("another family: added %v, %v", added, err)
	}
	next := snap(day.AddDays(1).At(10, 0, 0), rows())
	if _, added, err := s.SaveCollection(ctx, next, next.At); err != nil || !added {
		t.Errorf("another day: added %v, %v", added, err)
	}
	latest, _, err := s.LatestSnapshot(ctx, market.Industry, "push2", day)
	if err != nil || len(latest.Sectors) != 2 || !latest.At.Equal(at.Add(time.Minute)) {
		t.Fatalf("latest after the changes: %d sectors at %v, %v; want the last one stored", len(latest.Sectors), latest.At, err)
	}
}
