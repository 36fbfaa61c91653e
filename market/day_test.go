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
