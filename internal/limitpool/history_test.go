package limitpool_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/demo"
	"mdqs/internal/limitpool"
	"mdqs/internal/market"
	"mdqs/internal/quote"
	"mdqs/internal/secmaster"
)

// A demo store holds only the latest day's bars, so the demo's pools read
// its history instead (ReadHistoryFrom): they must be the pools the same
// bars give from the store, day after day, ladder included; and without
// the history the demo store gives none (what the binary served before).
func TestHistoryGivesThePoolsTheStoreGives(t *testing.T) {
	ctx := context.Background()
	cal := market.DefaultCalendar()
	clock := market.NewFixedClock(time.Date(2026, 11, 27, 16, 0, 0, 0, market.Shanghai()))
	dm, err := demo.New(demo.Config{Seed: 11, Stocks: 400, Industries: 5, Concepts: 5, Calendar: cal}, clock)
	if err != nil {
		t.Fatal(err)
	}
	q := quote.New(dm, dm, cal, clock, quote.Config{Age: time.Minute, Source: "demo"})
	stored := dbtest.Open(t)
	sec := secmaster.New(stored, q, cal, clock, secmaster.Config{RecordAfter: 15*60 + 5, History: dm, BackfillDays: 10})
	if err := sec.Record(ctx); err != nil {
		t.Fatal(err)
	}
	if err := dm.EachDailyHistory(ctx, 20261127, 60, func(c market.Code, bars []market.Bar) error {
		_, err := stored.IngestBars(ctx, []db.BarBatch{{Code: c, Freq: market.Daily, Source: "demo", Bars: bars}})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	fromStore := limitpool.New(stored, sec, nil, cal, clock, "demo")

	// The same security master, and no daily bar at all.
	empty := dbtest.Open(t)
	sec2 := secmaster.New(empty, q, cal, clock, secmaster.Config{RecordAfter: 15*60 + 5, History: dm, BackfillDays: 10})
	if err := sec2.Record(ctx); err != nil {
		t.Fatal(err)
	}
	bare := limitpool.New(empty, sec2, nil, cal, clock, "demo")
	fromHistory := limitpool.New(empty, sec2, nil, cal, clock, "demo")
	fromHistory.ReadHistoryFrom(dm)

	sealed := 0
	// Newest first, then an older day (the kept history serves it), then
	// the newest again.
	for _, day := range []market.Day{20261127, 20261126, 20261120, 20261125, 20261127} {
		want, err := fromStore.Derive(ctx, day)
		if err != nil {
			t.Fatal(err)
		}
		got, err := fromHistory.Derive(ctx, day)
		if err != nil {
			t.Fatal(err)
		}
		if len(want.Rows) == 0 {
			t.Fatalf("%v: the stored bars give no row: the test proves nothing", day)
		}
		if !reflect.DeepEqual(got.Rows, want.Rows) || got.Universe != want.Universe {
			t.Fatalf("%v: %d rows from the history, %d from the store (universe %d, %d)", day, len(got.Rows), len(want.Rows), got.Universe, want.Universe)
		}
		gl, _ := got.Ladder()
		wl, _ := want.Ladder()
		if !reflect.DeepEqual(gl, wl) {
			t.Fatalf("%v: the ladders differ", day)
		}
		sealed += len(want.Pool("up"))
		if b, err := bare.Derive(ctx, day); err == nil && len(b.Pool("up")) > 0 {
			t.Fatalf("%v: a store without daily bars gave %d limit-ups", day, len(b.Pool("up")))
		}
	}
	if sealed == 0 {
		t.Fatal("no limit-up on any day: the comparison saw no pool")
	}
}
