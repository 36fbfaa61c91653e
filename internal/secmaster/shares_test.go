package secmaster_test

import (
	"context"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/market"
	"mdqs/internal/secmaster"
)

// shareAction is a gbbq share-count record as the bridge stores it.
func shareAction(code string, day market.Day, cat int, floatAfter, totalAfter float32) db.Action {
	return db.Action{Code: market.MustCode(code), Day: day, Category: cat,
		F: [4]float64{0, 0, float64(floatAfter), float64(totalAfter)}}
}

// Each security of a day's universe carries the shares in force that day
// (a change dated later does not count), none when no record is dated by
// then; a new import of the gbbq is seen at once; the history lists every
// record.
func TestUniverseCarriesTheSharesOfItsDay(t *testing.T) {
	store := dbtest.Open(t)
	ctx := context.Background()
	clock := market.NewFixedClock(time.Date(2026, 11, 25, 15, 10, 0, 0, market.Shanghai()))
	svc := secmaster.New(store, &quoteList{}, market.DefaultCalendar(), clock, secmaster.Config{RecordAfter: 15*60 + 5})
	a, b := market.MustCode("600001.SH"), market.MustCode("000002.SZ")
	for _, d := range []market.Day{20261124, 20261125} {
		obs := []db.SecurityObservation{{Code: a, Name: "甲钢"}, {Code: b, Name: "乙科"}}
		if _, err := store.RecordSecurityDay(ctx, secmaster.Source, d, obs, clock.Now()); err != nil {
			t.Fatal(err)
		}
	}
	actions := []db.Action{
		shareAction("600001.SH", 20200102, 5, 1000, 4000),
		shareAction("600001.SH", 20261125, 3, 2500, 4000), // locked shares start trading on the 25th
		shareAction("600001.SH", 20261130, 5, 2500, 5000), // announced ahead
		{Code: a, Day: 20261124, Category: 1, F: [4]float64{3, 0, 0, 0}},
	}
	if _, err := store.ReplaceActions(ctx, "tdx", actions); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		day         market.Day
		code        market.Code
		float, tot  int64
		from        market.Day
		cat         int
		wantUnknown bool
	}{
		{20261124, a, 10_000_000, 40_000_000, 20200102, 5, false},
		{20261125, a, 25_000_000, 40_000_000, 20261125, 3, false},
		{20261124, b, 0, 0, 0, 0, true},
	}
	for _, tt := range tests {
		u, _, err := svc.Universe(ctx, tt.day, secmaster.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		var got *secmaster.Security
		for i := range u {
			if u[i].Code == tt.code {
				got = &u[i]
			}
		}
		if got == nil {
			t.Fatalf("%s not in the universe of %s: %+v", tt.code, tt.day, u)
		}
		sh := got.Shares
		if tt.wantUnknown {
			if sh != (db.Shares{}) {
				t.Errorf("%s on %s: shares %+v; want none", tt.code, tt.day, sh)
			}
			continue
		}
		if sh.Float != tt.float || sh.Total != tt.tot || sh.Day != tt.from || sh.Category != tt.cat || sh.Source != "tdx" {
			t.Errorf("%s on %s: shares %+v; want float %d total %d from %s (category %d)", tt.code, tt.day, sh, tt.float, tt.tot, tt.from, tt.cat)
		}
	}
	// A corrected gbbq: the same day's universe gives the new counts.
	actions[1] = shareAction("600001.SH", 20261125, 3, 2600, 4000)
	if _, err := store.ReplaceActions(ctx, "tdx", actions); err != nil {
		t.Fatal(err)
	}
	u, _, err := svc.Universe(ctx, 20261125, secmaster.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if u[1].Code != a || u[1].Shares.Float != 26_000_000 {
		t.Errorf("after the correction: %+v; want 600001.SH with 26,000,000 float shares", u[1])
	}
	tl, err := svc.History(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	if len(tl.Shares) != 3 || tl.Shares[0].Day != 20200102 || tl.Shares[2].Day != 20261130 || tl.Shares[2].Total != 50_000_000 {
		t.Errorf("history's shares = %+v; want the three records, the announced one last", tl.Shares)
	}
	if tl, err := svc.History(ctx, b); err != nil || tl.Shares == nil || len(tl.Shares) != 0 {
		t.Errorf("history of a code without records: %+v, %v; want an empty list", tl.Shares, err)
	}
}
