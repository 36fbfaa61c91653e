package market

import (
	"testing"
	"time"
)

func TestParseDay(t *testing.T) {
	for in, want := range map[string]Day{"20261121": 20261121, "2026-11-21": 20261121, "20240229": 20240229} {
		got, err := ParseDay(in)
		if err != nil || got != want {
			t.Errorf("ParseDay(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "2026-1-2", "20230229", "2026/11/21", "2026112", "20261301", "abcdefgh", "2026-11-21 10:00"} {
		if d, err := ParseDay(in); err == nil {
			t.Errorf("ParseDay(%q) = %v, want an error", in, d)
		}
	}
}

func TestDayOfUsesShanghaiWhateverTheInstantsZone(t *testing.T) {
	// 2026-11-20 17:30 UTC is already 2026-11-21 01:30 in Shanghai.
	utc := time.Date(2026, 11, 20, 17, 30, 0, 0, time.UTC)
	if got := DayOf(utc); got != 20261121 {
		t.Fatalf("DayOf(%v) = %v, want 20261121", utc, got)
	}
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err) // tzdata is embedded, so this must work everywhere
	}
	if got := DayOf(utc.In(ny)); got != 20261121 {
		t.Fatalf("DayOf(New York time) = %v, want 20261121", got)
	}
}

func TestDayArithmeticAndFormats(t *testing.T) {
	d := Day(20261231)
	if got := d.AddDays(1); got != 20270101 {
		t.Errorf("AddDays(1) = %v, want 20270101", got)
	}
	if got := Day(20240301).AddDays(-1); got != 20240229 {
		t.Errorf("AddDays(-1) over a leap day = %v", got)
	}
	if d.String() != "2026-12-31" || d.Compact() != "20261231" {
		t.Errorf("String, Compact = %q, %q", d.String(), d.Compact())
	}
	at := d.At(15, 0, 0)
	if at.Unix() != time.Date(2026, 12, 31, 7, 0, 0, 0, time.UTC).Unix() {
		t.Errorf("At(15:00) = %v, want 07:00 UTC", at.UTC())
	}
	if got := FormatTime(at.UTC()); got != "2026-12-31 15:00:00" {
		t.Errorf("FormatTime = %q", got)
	}
	back, err := ParseTime("2026-12-31 15:00:00")
	if err != nil || !back.Equal(at) {
		t.Errorf("ParseTime = %v, %v; want %v", back, err, at)
	}
}

func TestWindowAndCurrentTradingDay(t *testing.T) {
	cal := DefaultCalendar()
	start, _ := ParseTimeOfDay("09:25")
	end, _ := ParseTimeOfDay("15:00")
	w := Window{Start: start, End: end}
	at := func(d Day, hh, mm int) time.Time { return d.At(hh, mm, 0) }
	tests := []struct {
		name    string
		t       time.Time
		inside  bool
		current Day
		phase   string
	}{
		{"Monday 08:00", at(20261123, 8, 0), false, 20261120, PhaseClosed},
		{"Monday 09:20", at(20261123, 9, 20), false, 20261120, PhasePreAuction},
		{"Monday 09:25", at(20261123, 9, 25), true, 20261123, PhasePreOpen},
		{"Monday 10:00", at(20261123, 10, 0), true, 20261123, PhaseMorning},
		{"Monday 12:00", at(20261123, 12, 0), true, 20261123, PhaseLunch},
		{"Monday 14:58", at(20261123, 14, 58), true, 20261123, PhaseCloseCall},
		{"Monday 15:00", at(20261123, 15, 0), true, 20261123, PhaseClosed},
		{"Monday 15:01", at(20261123, 15, 1), false, 20261123, PhaseClosed},
		{"Saturday noon", at(20261121, 12, 0), false, 20261120, PhaseClosed},
		{"National Day 10:00", at(20261002, 10, 0), false, 20260930, PhaseClosed},
		// The instant given in UTC still means Shanghai: 01:30 UTC = 09:30 CST.
		{"UTC instant", time.Date(2026, 11, 23, 1, 30, 0, 0, time.UTC), true, 20261123, PhaseMorning},
	}
	for _, tt := range tests {
		if got := w.Contains(cal, tt.t); got != tt.inside {
			t.Errorf("%s: Contains = %v, want %v", tt.name, got, tt.inside)
		}
		if got := w.CurrentTradingDay(cal, tt.t); got != tt.current {
			t.Errorf("%s: CurrentTradingDay = %v, want %v", tt.name, got, tt.current)
		}
		if got := Phase(cal, tt.t); got != tt.phase {
			t.Errorf("%s: Phase = %v, want %v", tt.name, got, tt.phase)
		}
	}
	for _, bad := range []string{"9:25", "25:00", "09:60", "0925", ""} {
		if _, err := ParseTimeOfDay(bad); err == nil {
			t.Errorf("ParseTimeOfDay(%q) accepted", bad)
		}
	}
}
