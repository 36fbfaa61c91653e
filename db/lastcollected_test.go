package db_test

import (
	"context"
	"testing"
	"time"

	"mdqs/db/dbtest"
	"mdqs/internal/market"
)

func TestLastCollectedIsTheNewestCollectionOfTheFamilyDaySource(t *testing.T) {
	s := dbtest.Open(t)
	ctx := context.Background()
	day := market.Day(20261123)
	if _, ok, err := s.LastCollected(ctx, market.Industry, "push2", day); ok || err != nil {
		t.Fatalf("empty store: ok %v, %v", ok, err)
	}
	base := day.At(10, 0, 0)
	save := func(kind market.SectorKind, source string, at time.Time) {
		t.Helper()
		snap := market.SectorSnapshot{Kind: kind, Source: source, At: at, Sectors: []market.Sector{{Name: "银行", Code: "BK0475", Pct: 1}}}
		if _, err := s.SaveSnapshot(ctx, snap, at); err != nil {
			t.Fatal(err)
		}
	}
	save(market.Industry, "push2", base)
	save(market.Industry, "push2", base.Add(time.Minute))
	save(market.Concept, "push2", base.Add(2*time.Minute))      // another family
	save(market.Industry, "akshare", base.Add(3*time.Minute))   // another source
	save(market.Industry, "push2", day.AddDays(1).At(10, 0, 0)) // a later day
	at, ok, err := s.LastCollected(ctx, market.Industry, "push2", day)
	if err != nil || !ok || !at.Equal(base.Add(time.Minute)) {
		t.Fatalf("LastCollected = %v %v %v; want %v", at, ok, err, base.Add(time.Minute))
	}
}
