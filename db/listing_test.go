package db_test

import (
	"context"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/market"
)

// A source's listing days are replaced whole: a code it no longer names
// has none from it, and another source's stay.
func TestListingDaysAreReplacedPerSource(t *testing.T) {
	s := dbtest.Open(t)
	ctx := context.Background()
	a, b := market.MustCode("000001.SZ"), market.MustCode("600519.SH")
	if err := s.ReplaceListingDays(ctx, "tdx-base", map[market.Code]market.Day{a: 19910403, b: 20010827}); err != nil {
		t.Fatal(err)
	}
	if err := s.ReplaceListingDays(ctx, "other", map[market.Code]market.Day{b: 20010828}); err != nil {
		t.Fatal(err)
	}
	if err := s.ReplaceListingDays(ctx, "tdx-base", map[market.Code]market.Day{a: 19910403}); err != nil {
		t.Fatal(err)
	}
	if d, src, err := s.ListingDay(ctx, a); err != nil || d != 19910403 || src != "tdx-base" {
		t.Errorf("000001 = %v from %q, %v", d, src, err)
	}
	if d, src, err := s.ListingDay(ctx, b); err != nil || d != 20010828 || src != "other" {
		t.Errorf("600519 after it left tdx-base's file = %v from %q, %v; want the other source's", d, src, err)
	}
	if d, _, err := s.ListingDay(ctx, market.MustCode("000002.SZ")); market.KindOf(err) != market.KindNotFound {
		t.Errorf("a code no source names = %v, %v; want not found", d, err)
	}
}

// A list of delisted companies states a listing day last: only for a code
// no other source has, in ListingDay and ListingDays alike.
func TestListingDayFromADelistedListComesLast(t *testing.T) {
	s := dbtest.Open(t)
	ctx := context.Background()
	kept, gone := market.MustCode("600519.SH"), market.MustCode("600001.SH")
	if err := s.ReplaceListingDays(ctx, "tdx-base", map[market.Code]market.Day{kept: 20010827}); err != nil {
		t.Fatal(err)
	}
	if err := s.ReplaceDelistings(ctx, "sse", []db.Delisting{
		{Code: kept, Name: "茅台", Listed: 19990101, Delisted: 20991231}, // a wrong row must not win
		{Code: gone, Name: "邯郸钢铁", Listed: 19980122, Delisted: 20091229},
	}, time.Now()); err != nil {
		t.Fatal(err)
	}
	all, err := s.ListingDays(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for code, want := range map[market.Code]db.ListedOn{kept: {Day: 20010827, Source: "tdx-base"}, gone: {Day: 19980122, Source: "sse"}} {
		if d, src, err := s.ListingDay(ctx, code); err != nil || (db.ListedOn{Day: d, Source: src}) != want || all[code] != want {
			t.Errorf("%v: ListingDay %v from %q (%v), ListingDays %+v; want %+v", code, d, src, err, all[code], want)
		}
	}
}
