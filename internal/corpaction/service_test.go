package corpaction_test

import (
	"context"
	"strings"
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

// 前复权 is anchored at the code's latest bar, not today's date: on a stale
// store the events after its last bar are not applied, so that bar shows
// its own close (issue 32: 600028.SH's last bar served 5.85 against a raw
// close of 5.95), and the answer says so.
func TestQFQAnchorsAtTheLatestBar(t *testing.T) {
	store := dbtest.Open(t)
	ctx := context.Background()
	clock := market.NewFixedClock(time.Date(2026, 11, 23, 10, 0, 0, 0, market.Shanghai()))
	svc := corpaction.New(store, market.DefaultCalendar(), clock, market.Window{Start: 9*60 + 25, End: 15 * 60})
	code := market.MustCode("600028.SH")
	bars := []market.Bar{
		{Day: 20261029, Open: 6.0, High: 6.1, Low: 5.9, Close: 6.05},
		{Day: 20261030, Open: 6.0, High: 6.0, Low: 5.9, Close: 5.95},
	}
	for i := range bars {
		bars[i].TS = bars[i].Day.At(15, 0, 0).Unix()
	}
	if _, err := store.IngestBars(ctx, []db.BarBatch{{Code: code, Freq: market.Daily, Source: "tdx", Bars: bars,
		Cover: &db.Span{First: 20261029, Last: 20261030}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.ReplaceActions(ctx, "tdx", []db.Action{
		{Code: code, Day: 20260701, Category: 1, F: [4]float64{2.2, 0, 0, 0}, Source: "tdx"},
		{Code: code, Day: 20261110, Category: 1, F: [4]float64{1, 0, 0, 0}, Source: "tdx"}, // after the last bar
	}); err != nil {
		t.Fatal(err)
	}
	q, err := svc.Adjustment(ctx, code, adjust.QFQ, 0)
	if err != nil {
		t.Fatal(err)
	}
	if q.Anchor != 20261030 || len(q.Events) != 1 || q.Events[0].Day != 20260701 {
		t.Fatalf("qfq anchor %s, events %v; want the last bar's day 2026-10-30 and the one event up to it", q.Anchor, q.Events)
	}
	if got := q.Schedule.Apply(bars)[1].Close; got != 5.95 {
		t.Errorf("the last bar's qfq close %v, want its raw 5.95", got)
	}
	if !strings.Contains(q.Note, "2026-10-30") || !strings.Contains(q.Note, "2026-11-20") {
		t.Errorf("note %q: want it to say the anchor and the last complete trading day", q.Note)
	}
	// An anchor asked for is taken as it is, and says nothing.
	if a, err := svc.Adjustment(ctx, code, adjust.QFQ, 20261120); err != nil || a.Anchor != 20261120 || len(a.Events) != 2 || a.Note != "" {
		t.Errorf("anchor=2026-11-20: %v, anchor %s, %d events, note %q", err, a.Anchor, len(a.Events), a.Note)
	}
	// A store whose bars are current has no note.
	if _, err := store.IngestBars(ctx, []db.BarBatch{{Code: code, Freq: market.Daily, Source: "tdx",
		Bars: []market.Bar{{Day: 20261120, TS: market.Day(20261120).At(15, 0, 0).Unix(), Open: 5, High: 5, Low: 5, Close: 5}}}}); err != nil {
		t.Fatal(err)
	}
	if q, err := svc.Adjustment(ctx, code, adjust.QFQ, 0); err != nil || q.Anchor != 20261120 || q.Note != "" {
		t.Errorf("current store: %v, anchor %s, note %q", err, q.Anchor, q.Note)
	}
}

// 后复权's listing day comes from the gbbq's listing record, else the
// store's (the terminal's base.dbf, the demo's, an exchange's list), named
// as its source states it; events on or before it are not applied; and
// without any the answer says that every event is applied (issue 32).
func TestHFQListingDayAndItsSource(t *testing.T) {
	ctx := context.Background()
	clock := market.NewFixedClock(time.Date(2026, 11, 23, 10, 0, 0, 0, market.Shanghai()))
	code := market.MustCode("300150.SZ")
	// 300150's records of the 2020 terminal file: two dividends before its
	// listing, which holds shares from before (0, 10000 → 2807, 13500).
	actions := []db.Action{
		{Code: code, Day: 20090413, Category: 1, F: [4]float64{6, 0, 6, 0}, Source: "tdx"},
		{Code: code, Day: 20100304, Category: 1, F: [4]float64{2, 0, 0, 0}, Source: "tdx"},
		{Code: code, Day: 20101222, Category: 5, F: [4]float64{0, 10000, 2807, 13500}, Source: "tdx"},
		{Code: code, Day: 20110530, Category: 1, F: [4]float64{1.5, 0, 0, 0}, Source: "tdx"},
	}
	for _, tt := range []struct {
		name    string
		gbbq    bool   // the listing record kept
		source  string // a listing day stored from this source ("": none)
		want    market.Day
		from    string
		applied int
	}{
		{"the gbbq's listing record", true, "", 20101222, "gbbq", 1},
		{"the gbbq's record before base.dbf", true, "base.dbf", 20101222, "gbbq", 1},
		{"base.dbf", false, "base.dbf", 20101222, "base.dbf", 1},
		{"an exchange's list", false, "szse", 20101222, "szse", 1},
		{"none", false, "", 0, "", 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			store := dbtest.Open(t)
			svc := corpaction.New(store, market.DefaultCalendar(), clock, market.Window{Start: 9*60 + 25, End: 15 * 60})
			acts := actions
			if !tt.gbbq {
				acts = []db.Action{actions[0], actions[1], actions[3]}
			}
			if _, err := store.ReplaceActions(ctx, "tdx", acts); err != nil {
				t.Fatal(err)
			}
			switch tt.source {
			case "base.dbf":
				if err := store.ReplaceListingDays(ctx, tt.source, map[market.Code]market.Day{code: 20101222}); err != nil {
					t.Fatal(err)
				}
			case "szse":
				if err := store.ReplaceDelistings(ctx, tt.source, []db.Delisting{{Code: code, Name: "世纪瑞尔", Listed: 20101222}}, clock.Now()); err != nil {
					t.Fatal(err)
				}
			}
			h, err := svc.Adjustment(ctx, code, adjust.HFQ, 0)
			if err != nil {
				t.Fatal(err)
			}
			if h.Listing != tt.want || h.ListingSource != tt.from || h.Anchor != tt.want || len(h.Events) != tt.applied {
				t.Errorf("listing %s from %q, anchor %s, %d events applied; want %s from %q, %d", h.Listing, h.ListingSource, h.Anchor, len(h.Events), tt.want, tt.from, tt.applied)
			}
			// 2011's close of 10 carries the events after the listing only.
			wantPrice := map[int]float64{1: 10.15, 3: 10*1.6 + 0.6 + 1.6*0.2 + 1.6*0.15}[tt.applied]
			if got := h.Schedule.Price(20110601, 10); got != adjust.Round(wantPrice) {
				t.Errorf("hfq of 10 on 2011-06-01 = %v, want %v", got, adjust.Round(wantPrice))
			}
			if tt.want == 0 && !strings.Contains(h.Note, "listing day") {
				t.Errorf("no listing day, note %q: want it said", h.Note)
			}
			if tt.want != 0 && h.Note != "" {
				t.Errorf("note %q with a listing day", h.Note)
			}
		})
	}
}
