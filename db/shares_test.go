package db_test

import (
	"context"
	"slices"
	"testing"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/market"
)

// sharesFixture is 300750's real records (gbbq of 2021-11-09: its listing
// and two changes) beside records that carry no share counts after them,
// and 600000's, one of which the file dates ahead of the others.
func sharesFixture() []db.Action {
	return []db.Action{
		act("300750.SZ", 20180611, 5, 0, 0, 21724.373, 217243.7),
		act("300750.SZ", 20180919, 5, 21724.373, 217243.7, 21724.373, 219501.73),
		act("300750.SZ", 20190611, 5, 21724.373, 219501.73, 119705.62, 219501.73),
		act("300750.SZ", 20190722, 1, 1.42037, 0, 0, 0),           // a dividend: no shares
		act("300750.SZ", 20190801, 4, 0, 0, 0, 0),                 // an unknown change: zeros
		act("300750.SZ", 20190802, 6, 0, 8.45, 30000, 0),          // a placement: price and size
		act("300750.SZ", 20190805, 11, 0, 0, 0.01, 0),             // a split ratio
		act("300750.SZ", 20190806, 5, 119705.62, 219501.73, 0, 0), // no counts after it
		act("600000.SH", 20160318, 5, 1865347.1, 1865347.1, 1865347.1, 1965298.1),
		act("600000.SH", 20160624, 9, 1865347.1, 1965298.1, 2051881.9, 2161828),
		act("600000.SH", 20160624, 3, 2051881.9, 2161828, 2051000, 2161828), // same day, earlier category
		act("600000.SH", 20270101, 5, 2051881.9, 2161828, 3000000, 3000000), // dated ahead
		act("000001.SZ", 20001106, 1, 0, 8, 0, 3),
	}
}

func storeShares(t *testing.T) *db.Store {
	t.Helper()
	s := dbtest.Open(t)
	if _, err := s.ReplaceActions(context.Background(), "tdx", sharesFixture()); err != nil {
		t.Fatal(err)
	}
	return s
}

// The shares in force on a day are the latest record on or before it that
// states counts after the event; the file's ten-thousands become shares
// as the terminal shows them (21724.373 is 217,243,730, not the float32's
// 217,243,730.47).
func TestSharesOnIsTheLatestRecordByThatDay(t *testing.T) {
	s := storeShares(t)
	a, b, c := market.MustCode("300750.SZ"), market.MustCode("600000.SH"), market.MustCode("000001.SZ")
	tests := []struct {
		day  market.Day
		want map[market.Code]db.Shares
	}{
		{20160317, map[market.Code]db.Shares{}},
		{20160318, map[market.Code]db.Shares{b: {Day: 20160318, Category: 5, Float: 18653471000, Total: 19652981000, Source: "tdx"}}},
		{20180611, map[market.Code]db.Shares{
			a: {Day: 20180611, Category: 5, Float: 217243730, Total: 2172437000, Source: "tdx"},
			b: {Day: 20160624, Category: 9, Float: 20518819000, Total: 21618280000, Source: "tdx"},
		}},
		{20180918, map[market.Code]db.Shares{
			a: {Day: 20180611, Category: 5, Float: 217243730, Total: 2172437000, Source: "tdx"},
			b: {Day: 20160624, Category: 9, Float: 20518819000, Total: 21618280000, Source: "tdx"},
		}},
		{20190610, map[market.Code]db.Shares{
			a: {Day: 20180919, Category: 5, Float: 217243730, Total: 2195017300, Source: "tdx"},
			b: {Day: 20160624, Category: 9, Float: 20518819000, Total: 21618280000, Source: "tdx"},
		}},
		// Zeros, a placement, a split ratio and a record without counts
		// after it leave the 2019-06-11 counts in force.
		{20191231, map[market.Code]db.Shares{
			a: {Day: 20190611, Category: 5, Float: 1197056200, Total: 2195017300, Source: "tdx"},
			b: {Day: 20160624, Category: 9, Float: 20518819000, Total: 21618280000, Source: "tdx"},
		}},
		{20270101, map[market.Code]db.Shares{
			a: {Day: 20190611, Category: 5, Float: 1197056200, Total: 2195017300, Source: "tdx"},
			b: {Day: 20270101, Category: 5, Float: 30000000000, Total: 30000000000, Source: "tdx"},
		}},
	}
	for _, tt := range tests {
		got, err := s.SharesOn(context.Background(), tt.day)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(tt.want) {
			t.Errorf("SharesOn(%s) = %+v, want %+v", tt.day, got, tt.want)
			continue
		}
		for code, w := range tt.want {
			if got[code] != w {
				t.Errorf("SharesOn(%s)[%s] = %+v, want %+v", tt.day, code, got[code], w)
			}
		}
		if _, ok := got[c]; ok {
			t.Errorf("SharesOn(%s) holds %s, which has only a dividend", tt.day, c)
		}
	}
}

// A code's history lists its share records only, in order, those dated
// ahead included; SharesAt picks the one in force on a day from it.
func TestShareHistoryListsTheShareRecords(t *testing.T) {
	s := storeShares(t)
	ctx := context.Background()
	tests := []struct {
		code string
		want []market.Day
	}{
		{"300750.SZ", []market.Day{20180611, 20180919, 20190611}},
		{"600000.SH", []market.Day{20160318, 20160624, 20160624, 20270101}},
		{"000001.SZ", nil},
		{"688001.SH", nil},
	}
	for _, tt := range tests {
		got, err := s.ShareHistory(ctx, market.MustCode(tt.code))
		if err != nil {
			t.Fatal(err)
		}
		if got == nil || len(got) != len(tt.want) {
			t.Fatalf("ShareHistory(%s) = %+v, want days %v", tt.code, got, tt.want)
		}
		for i, sh := range got {
			if sh.Day != tt.want[i] || sh.Source != "tdx" || sh.Float <= 0 || sh.Total < sh.Float {
				t.Errorf("ShareHistory(%s)[%d] = %+v, want day %s", tt.code, i, sh, tt.want[i])
			}
		}
	}
	hist, err := s.ShareHistory(ctx, market.MustCode("600000.SH"))
	if err != nil {
		t.Fatal(err)
	}
	if hist[1].Category != 3 || hist[2].Category != 9 {
		t.Errorf("one day's records = %+v, %+v; want category 3 then 9", hist[1], hist[2])
	}
	// ShareHistories holds the same histories, of every code at once.
	all, err := s.ShareHistories(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 {
		t.Errorf("ShareHistories has %d codes, want 300750.SZ and 600000.SH", len(all))
	}
	for _, tt := range tests {
		one, err := s.ShareHistory(ctx, market.MustCode(tt.code))
		if err != nil {
			t.Fatal(err)
		}
		if got := all[market.MustCode(tt.code)]; len(got) != len(one) || (len(one) > 0 && !slices.Equal(got, one)) {
			t.Errorf("ShareHistories[%s] = %+v, ShareHistory says %+v", tt.code, got, one)
		}
	}
	// SharesAt agrees with SharesOn on every day around the records.
	for _, day := range []market.Day{20160317, 20160318, 20160623, 20160624, 20261231, 20270101} {
		on, err := s.SharesOn(ctx, day)
		if err != nil {
			t.Fatal(err)
		}
		want, wantOK := on[market.MustCode("600000.SH")]
		if got, ok := db.SharesAt(hist, day); got != want || ok != wantOK {
			t.Errorf("SharesAt(%s) = %+v %v, SharesOn says %+v %v", day, got, ok, want, wantOK)
		}
	}
}
