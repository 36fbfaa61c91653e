package db_test

import (
	"context"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/market"
)

// A list's rows are replaced whole: a code it no longer names loses its
// row, the other list's rows stay, and an unknown day reads back as 0.
func TestDelistingsAreReplacedPerSource(t *testing.T) {
	s := dbtest.Open(t)
	ctx := context.Background()
	t1 := time.Date(2026, 11, 23, 3, 0, 0, 0, time.UTC)
	t2 := t1.Add(7 * 24 * time.Hour)
	a, b, c := market.MustCode("000003.SZ"), market.MustCode("000013.SZ"), market.MustCode("600001.SH")
	if err := s.ReplaceDelistings(ctx, "szse", []db.Delisting{
		{Code: a, Name: "PT金田Ａ", Listed: 19910703, Delisted: 20020614},
		{Code: b, Name: "石化A", Delisted: 20040920},
		{Code: b, Name: "repeated: its first row counts"},
	}, t1); err != nil {
		t.Fatal(err)
	}
	if err := s.ReplaceDelistings(ctx, "sse", []db.Delisting{{Code: c, Name: "邯郸钢铁", Listed: 19980122, Delisted: 20091229}}, t1); err != nil {
		t.Fatal(err)
	}
	if err := s.ReplaceDelistings(ctx, "szse", []db.Delisting{{Code: b, Name: "石化A", Listed: 19920506, Delisted: 20040920}}, t2); err != nil {
		t.Fatal(err)
	}
	all, err := s.Delistings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []db.Delisting{
		{Code: b, Source: "szse", Name: "石化A", Listed: 19920506, Delisted: 20040920, FetchedAt: t2},
		{Code: c, Source: "sse", Name: "邯郸钢铁", Listed: 19980122, Delisted: 20091229, FetchedAt: t1},
	}
	if len(all) != len(want) {
		t.Fatalf("Delistings = %+v, want %d rows", all, len(want))
	}
	for i := range want {
		if g := all[i]; g.Code != want[i].Code || g.Source != want[i].Source || g.Name != want[i].Name || g.Listed != want[i].Listed ||
			g.Delisted != want[i].Delisted || !g.FetchedAt.Equal(want[i].FetchedAt) {
			t.Errorf("row %d = %+v, want %+v", i, g, want[i])
		}
	}
	if _, err := s.Delisting(ctx, a); market.KindOf(err) != market.KindNotFound {
		t.Errorf("Delisting(%s) after its list dropped it = %v, want not found", a, err)
	}
	if at, err := s.DelistingsFetched(ctx, "szse"); err != nil || !at.Equal(t2) {
		t.Errorf("DelistingsFetched(szse) = %v, %v; want %v", at, err, t2)
	}
	if _, err := s.DelistingsFetched(ctx, "bse"); market.KindOf(err) != market.KindNotFound {
		t.Errorf("DelistingsFetched(bse) = %v, want not found", err)
	}
}

func TestDelistingUnknownDaysAndSeveralLists(t *testing.T) {
	s := dbtest.Open(t)
	ctx := context.Background()
	now := time.Date(2026, 11, 23, 3, 0, 0, 0, time.UTC)
	code := market.MustCode("600003.SH")
	for _, src := range []string{"sse", "other"} {
		if err := s.ReplaceDelistings(ctx, src, []db.Delisting{{Code: code, Name: "ST东北高"}}, now); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Delisting(ctx, code)
	if err != nil || len(got) != 2 || got[0].Source != "other" || got[1].Source != "sse" || got[1].Listed != 0 || got[1].Delisted != 0 {
		t.Errorf("Delisting = %+v, %v", got, err)
	}
	for _, tc := range []struct {
		source string
		rows   []db.Delisting
	}{
		{"", nil},
		{"sse", []db.Delisting{{Name: "no code"}}},
	} {
		if err := s.ReplaceDelistings(ctx, tc.source, tc.rows, now); market.KindOf(err) != market.KindInvalid {
			t.Errorf("ReplaceDelistings(%q, %+v) = %v, want invalid", tc.source, tc.rows, err)
		}
	}
	// The refused replacement left the list as it was.
	if got, err := s.Delisting(ctx, code); err != nil || len(got) != 2 {
		t.Errorf("after a refused replacement: %+v, %v", got, err)
	}
}
