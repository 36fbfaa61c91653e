package db_test

import (
	"context"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/market"
)

// A list's rows are replaced whole, another list's stay; a repeated
// change is stored once, two changes of one day both, and an unknown day
// reads back as 0, first.
func TestNameChangesAreReplacedPerSource(t *testing.T) {
	s := dbtest.Open(t)
	ctx := context.Background()
	t1 := time.Date(2026, 11, 23, 3, 0, 0, 0, time.UTC)
	t2 := t1.Add(7 * 24 * time.Hour)
	pa, xy := market.MustCode("000001.SZ"), market.MustCode("000005.SZ")
	if err := s.ReplaceNameChanges(ctx, "szse", []db.NameChange{
		{Code: pa, Day: 20120802, Before: "深发展Ａ", After: "平安银行"},
		{Code: pa, Day: 20120802, Before: "repeated: its first row counts", After: "平安银行"},
		{Code: xy, Day: 20240506, Before: "世纪星源", After: "ST星源"},
	}, t1); err != nil {
		t.Fatal(err)
	}
	if err := s.ReplaceNameChanges(ctx, "other", []db.NameChange{{Code: pa, Day: 19910403, Before: "深发展", After: "深发展Ａ"}}, t1); err != nil {
		t.Fatal(err)
	}
	if err := s.ReplaceNameChanges(ctx, "szse", []db.NameChange{
		{Code: pa, Day: 20120802, Before: "深发展Ａ", After: "平安银行"},
		{Code: pa, Day: 0, Before: "S深发展A", After: "深发展Ａ"},
	}, t2); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		code market.Code
		want []db.NameChange
	}{
		{pa, []db.NameChange{
			{Code: pa, Source: "szse", Day: 0, Before: "S深发展A", After: "深发展Ａ", FetchedAt: t2},
			{Code: pa, Source: "other", Day: 19910403, Before: "深发展", After: "深发展Ａ", FetchedAt: t1},
			{Code: pa, Source: "szse", Day: 20120802, Before: "深发展Ａ", After: "平安银行", FetchedAt: t2},
		}},
		// The second replacement dropped 000005's change.
		{xy, []db.NameChange{}},
	} {
		got, err := s.NameChanges(ctx, tc.code)
		if err != nil {
			t.Fatal(err)
		}
		if got == nil || len(got) != len(tc.want) {
			t.Fatalf("NameChanges(%s) = %+v, want %d rows", tc.code, got, len(tc.want))
		}
		for i, w := range tc.want {
			if g := got[i]; g.Code != w.Code || g.Source != w.Source || g.Day != w.Day || g.Before != w.Before || g.After != w.After || !g.FetchedAt.Equal(w.FetchedAt) {
				t.Errorf("NameChanges(%s)[%d] = %+v, want %+v", tc.code, i, g, w)
			}
		}
	}
	if at, err := s.NameChangesFetched(ctx, "szse"); err != nil || !at.Equal(t2) {
		t.Errorf("NameChangesFetched(szse) = %v, %v; want %v", at, err, t2)
	}
	if _, err := s.NameChangesFetched(ctx, "sse"); market.KindOf(err) != market.KindNotFound {
		t.Errorf("NameChangesFetched(sse) = %v, want not found", err)
	}
}

func TestNameChangesSameDayAndRefusals(t *testing.T) {
	s := dbtest.Open(t)
	ctx := context.Background()
	now := time.Date(2026, 11, 23, 3, 0, 0, 0, time.UTC)
	code := market.MustCode("000005.SZ")
	rows := []db.NameChange{
		{Code: code, Day: 20240506, Before: "世纪星源", After: "ST星源"},
		{Code: code, Day: 20240506, Before: "ST星源", After: "*ST星源"},
	}
	if err := s.ReplaceNameChanges(ctx, "szse", rows, now); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		source string
		rows   []db.NameChange
	}{
		{"", rows},
		{"szse", []db.NameChange{rows[0], {Day: 20240507, After: "no code"}}},
	} {
		if err := s.ReplaceNameChanges(ctx, tc.source, tc.rows, now.Add(time.Hour)); market.KindOf(err) != market.KindInvalid {
			t.Errorf("ReplaceNameChanges(%q, %+v) = %v, want invalid", tc.source, tc.rows, err)
		}
	}
	// Both changes of the day, and the refused replacements changed nothing.
	got, err := s.NameChanges(ctx, code)
	if err != nil || len(got) != 2 {
		t.Fatalf("NameChanges = %+v, %v", got, err)
	}
	afters := map[string]bool{got[0].After: true, got[1].After: true}
	if !afters["ST星源"] || !afters["*ST星源"] || !got[0].FetchedAt.Equal(now) {
		t.Errorf("NameChanges = %+v", got)
	}
}
