package market

import (
	"strings"
	"testing"
)

func TestTradingDaysPerYearMatchTheExchanges(t *testing.T) {
	c := DefaultCalendar()
	// Counts cross-checked against Sina's trade-date list (calendar README).
	want := map[int]int{2015: 244, 2019: 244, 2020: 243, 2023: 242, 2024: 242, 2025: 243, 2026: 242}
	for year, n := range want {
		got := len(c.Between(NewDay(year, 1, 1), NewDay(year, 12, 31)))
		if got != n {
			t.Errorf("trading days in %d = %d, want %d", year, got, n)
		}
	}
}

func TestCalendarMapping(t *testing.T) {
	c := DefaultCalendar()
	tests := []struct {
		name       string
		day        Day
		trading    bool
		onOrBefore Day
		prev, next Day
	}{
		{"ordinary Friday", 20261120, true, 20261120, 20261119, 20261123},
		{"Saturday maps to Friday", 20261121, false, 20261120, 20261120, 20261123},
		{"Sunday", 20261122, false, 20261120, 20261120, 20261123},
		{"National Day holiday", 20261005, false, 20260930, 20260930, 20261008},
		{"2024 New Year's Eve (exchange-only closure)", 20240209, false, 20240208, 20240208, 20240219},
		{"Spring Festival 2026", 20260216, false, 20260213, 20260213, 20260224},
		{"Monday after a weekend", 20261123, true, 20261123, 20261120, 20261124},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := c.IsTradingDay(tt.day); got != tt.trading {
				t.Errorf("IsTradingDay(%v) = %v, want %v", tt.day, got, tt.trading)
			}
			if got := c.OnOrBefore(tt.day); got != tt.onOrBefore {
				t.Errorf("OnOrBefore(%v) = %v, want %v", tt.day, got, tt.onOrBefore)
			}
			if got := c.Prev(tt.day); got != tt.prev {
				t.Errorf("Prev(%v) = %v, want %v", tt.day, got, tt.prev)
			}
			if got := c.Next(tt.day); got != tt.next {
				t.Errorf("Next(%v) = %v, want %v", tt.day, got, tt.next)
			}
		})
	}
}

func TestUnpublishedYearIsReportedNotGuessed(t *testing.T) {
	c := DefaultCalendar()
	if c.Covers(20270104) {
		t.Fatal("Covers(2027) = true; the 2027 schedule is not published")
	}
	if !c.Covers(20261231) {
		t.Fatal("Covers(2026) = false")
	}
	first, last := c.Years()
	if first != 2015 || last != 2026 {
		t.Fatalf("Years() = %d..%d, want 2015..2026", first, last)
	}
	// Outside coverage every weekday trades, and nothing else is invented.
	if !c.IsTradingDay(20270211) {
		t.Fatal("an uncovered weekday is not a trading day")
	}
}

func TestMergeAddsAPublishedYear(t *testing.T) {
	c := DefaultCalendar()
	if err := c.Merge(strings.NewReader("2027-02-08,spring_festival\n2027-02-09,spring_festival\n")); err != nil {
		t.Fatal(err)
	}
	if !c.Covers(20270301) || c.IsTradingDay(20270208) || !c.IsTradingDay(20270210) {
		t.Fatal("merged 2027 holidays not applied")
	}
	// A year present in the merge replaces the old list for that year.
	if err := c.Merge(strings.NewReader("2027-02-10,spring_festival\n")); err != nil {
		t.Fatal(err)
	}
	if !c.IsTradingDay(20270208) || c.IsTradingDay(20270210) {
		t.Fatal("re-merging 2027 did not replace its list")
	}
}

func TestParseHolidaysRejectsBadLines(t *testing.T) {
	for _, in := range []string{"2026-13-01,x", "not a date", "2026-11-21,weekend"} {
		if _, err := ParseHolidays(strings.NewReader(in)); err == nil {
			t.Errorf("ParseHolidays(%q) succeeded", in)
		}
	}
}

func TestCountIsLenBetween(t *testing.T) {
	c := DefaultCalendar()
	for _, r := range [][2]Day{{20260101, 20261231}, {20251001, 20251010}, {20261126, 20261126}, {20261128, 20261129},
		{20261231, 20260101}, {19991231, 20000105}, {20150101, 20261126}} {
		if got, want := c.Count(r[0], r[1]), len(c.Between(r[0], r[1])); got != want {
			t.Errorf("%v..%v: Count %d, Between %d", r[0], r[1], got, want)
		}
	}
}
