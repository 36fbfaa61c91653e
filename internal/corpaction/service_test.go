package corpaction_test

import (
	"context"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/adjust"
	"mdqs/internal/corpaction"
	"mdqs/internal/market"
)

func TestAdjustmentAnchorsAndEvents(t *testing.T) {
	store := dbtest.Open(t)
	clock := market.NewFixedClock(time.Date(2026, 11, 23, 10, 0, 0, 0, market.Shanghai()))
	svc := corpaction.New(store, market.DefaultCalendar(), clock, market.Window{Start: 9*60 + 25, End: 15 * 60})
	ctx := context.Background()
	code := market.MustCode("600000.SH")

	if _, err := svc.Adjustment(ctx, code, adjust.QFQ, 0); market.KindOf(err) != market.KindUnavailable {
		t.Fatalf("before any import: %v; want unavailable", err)
	}
	_, err := store.ReplaceActions(ctx, "tdx", []db.Action{
		{Code: code, Day: 19991110, Category: 5, F: [4]float64{0, 0, 40000, 140000}, Source: "tdx"}, // listing
		{Code: code, Day: 20240701, Category: 1, F: [4]float64{4, 0, 0, 0}, Source: "tdx"},
		{Code: code, Day: 20250701, Category: 1, F: [4]float64{4, 0, 3, 0}, Source: "tdx"},
		{Code: code, Day: 20250701, Category: 5, F: [4]float64{1, 2, 3, 4}, Source: "tdx"}, // not a price event
		{Code: code, Day: 20261201, Category: 1, F: [4]float64{5, 0, 0, 0}, Source: "tdx"}, // announced
	})
	if err != nil {
		t.Fatal(err)
	}
	q, err := svc.Adjustment(ctx, code, adjust.QFQ, 0)
	if err != nil || q.Anchor != 20261123 || len(q.Events) != 2 || q.Source != "tdx" {
		t.Fatalf("qfq: %v anchor %v events %d source %q; want today, the 2 events up to it", err, q.Anchor, len(q.Events), q.Source)
	}
	// Only the events after a range's first bar move it.
	if got := q.Affecting(20250101, 20250801); len(got) != 1 || got[0].Day != 20250701 {
		t.Fatalf("qfq events moving 2025: %v", got)
	}
	h, err := svc.Adjustment(ctx, code, adjust.HFQ, 0)
	if err != nil || h.Anchor != 19991110 || len(h.Events) != 3 {
		t.Fatalf("hfq: %v anchor %v events %d; want the listing, every event after it", err, h.Anchor, len(h.Events))
	}
	if got := h.Affecting(20240101, 20241231); len(got) != 1 || got[0].Day != 20240701 {
		t.Fatalf("hfq events moving 2024: %v", got)
	}
	// A code without events is unadjusted, not an error.
	none, err := svc.Adjustment(ctx, market.MustCode("000002.SZ"), adjust.QFQ, 0)
	if err != nil || none.Source != "" || none.Schedule.At(20200101) != adjust.Identity {
		t.Fatalf("a code without events: %v %+v", err, none)
	}
}
