package db_test

import (
	"context"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/market"
)

// The timeline: a value seen on consecutive recorded days is one span, a
// change opens another, a code that leaves the universe keeps its past
// (no survivorship), and days go in order, each recorded once.
func TestSecurityTimelineFollowsTheRecordedDays(t *testing.T) {
	s := dbtest.Open(t)
	ctx := context.Background()
	now := time.Now()
	a, b, c := market.MustCode("600001.SH"), market.MustCode("000002.SZ"), market.MustCode("300003.SZ")
	days := []struct {
		day market.Day
		obs []db.SecurityObservation
	}{
		{20261123, []db.SecurityObservation{{Code: a, Name: "甲钢"}, {Code: b, Name: "乙科"}}},
		{20261124, []db.SecurityObservation{{Code: a, Name: "ST甲钢", ST: "ST"}, {Code: b, Name: "乙科", Suspended: true}}},
		{20261125, []db.SecurityObservation{{Code: a, Name: "ST甲钢", ST: "ST"}, {Code: b, Name: "乙科"}, {Code: c, Name: "N丙"}}},
		{20261126, []db.SecurityObservation{{Code: b, Name: "乙科"}, {Code: c, Name: "丙"}}}, // a delisted
	}
	for _, d := range days {
		if ok, err := s.RecordSecurityDay(ctx, "quotes", d.day, d.obs, now); err != nil || !ok {
			t.Fatalf("record %s: %v %v", d.day, ok, err)
		}
	}
	if ok, err := s.RecordSecurityDay(ctx, "quotes", 20261126, nil, now); err != nil || ok {
		t.Errorf("recording a day again = %v, %v; want left as it was", ok, err)
	}
	if _, err := s.RecordSecurityDay(ctx, "quotes", 20261120, nil, now); market.KindOf(err) != market.KindConflict {
		t.Errorf("recording an earlier day: %v; want a conflict", err)
	}
	got, err := s.SecurityTimeline(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"listed  2026-11-23..2026-11-25",
		"name 甲钢 2026-11-23..2026-11-23",
		"name ST甲钢 2026-11-24..2026-11-25",
		"st ST 2026-11-24..2026-11-25",
	}
	if len(got) != len(want) {
		t.Fatalf("timeline of %s = %+v, want %v", a, got, want)
	}
	for i, sp := range got {
		if line := sp.Field + " " + sp.Value + " " + sp.First.String() + ".." + sp.Last.String(); line != want[i] {
			t.Errorf("span %d = %q, want %q", i, line, want[i])
		}
	}
	// A cross-section of 2026-11-25 holds a, delisted since; one of 11-26 does not.
	on := func(day market.Day) map[string]bool {
		spans, err := s.SecuritySpansOn(ctx, "quotes", day)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, sp := range spans {
			out[sp.Code.Symbol+" "+sp.Field+" "+sp.Value] = true
		}
		return out
	}
	if x := on(20261125); !x["600001 listed "] || !x["600001 st ST"] || !x["300003 name N丙"] {
		t.Errorf("2026-11-25: %v", x)
	}
	if x := on(20261126); x["600001 listed "] || !x["300003 name 丙"] || x["000002 suspended "] {
		t.Errorf("2026-11-26: %v", x)
	}
	if x := on(20261124); !x["000002 suspended "] {
		t.Errorf("2026-11-24: %v; want 000002 suspended", x)
	}
	if r, err := s.SecurityDays(ctx, "quotes"); err != nil || r.First != 20261123 || r.Last != 20261126 || r.Count != 4 {
		t.Errorf("recorded days = %+v, %v", r, err)
	}
}
