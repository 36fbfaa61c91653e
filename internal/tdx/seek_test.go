package tdx

import (
	"bytes"
	"errors"
	"iter"
	"testing"

	"mdqs/internal/market"
)

// seekTerminals are real terminal folders (testdata/README.md): every
// .day and .lc1 file in them is read both ways below.
var seekTerminals = []string{"testdata/mootdx-2022", "testdata/redmine-2023"}

// In real files, every day a full decode yields is found by the seek with
// the same bar (bonds and repo included, which Terminal.DayOn reads whole
// for their divisor), the day before the first and after the last are
// not held, and every day of a .lc1 file gives exactly its full decode's
// minutes of that day.
func TestSeekAgreesWithFullDecode(t *testing.T) {
	files, days, minuteDays := 0, 0, 0
	for _, dir := range seekTerminals {
		term, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range term.Find(KindDay, KindLC1) {
			bf, err := term.Bars(f)
			if bf == nil || len(bf.Bars) == 0 {
				t.Fatalf("%s: %v", f.Path, err)
			}
			files++
			if f.Kind == KindDay {
				for _, want := range bf.Bars {
					got, ok, err := term.DayOn(f.Code, want.Day)
					if err != nil || !ok || !sameBar(got, want) {
						t.Fatalf("%s %v: DayOn = %+v, %v, %v; full decode %+v", f.Path, want.Day, got, ok, err, want)
					}
					days++
				}
				for _, d := range []market.Day{bf.Bars[0].Day.AddDays(-1), bf.Bars[len(bf.Bars)-1].Day.AddDays(1)} {
					if got, ok, err := term.DayOn(f.Code, d); ok || err != nil {
						t.Fatalf("%s %v: a day outside the file = %+v, %v", f.Path, d, got, err)
					}
				}
				continue
			}
			byDay := map[market.Day][]market.Bar{}
			for _, b := range bf.Bars {
				byDay[b.Day] = append(byDay[b.Day], b)
			}
			for d, want := range byDay {
				got, err := term.MinutesOn(f.Code, d)
				if err != nil || len(got) != len(want) {
					t.Fatalf("%s %v: %d minutes (%v), full decode %d", f.Path, d, len(got), err, len(want))
				}
				for i := range want {
					if !sameBar(got[i], want[i]) {
						t.Fatalf("%s %v minute %d: %+v, full decode %+v", f.Path, d, i, got[i], want[i])
					}
				}
				minuteDays++
			}
		}
	}
	// The folders' own counts (testdata/README.md): a change in them is a
	// change in the fixtures, not a pass by reading less.
	if files != 20 || minuteDays != 12 || days != 35942 {
		t.Fatalf("read %d files, %d days, %d minute days", files, days, minuteDays)
	}
}

// An index's minute volumes (stored as amount ÷ 100) come out in shares
// with its .day bar of the day, as a whole-file read makes them; without
// that bar they cannot, and the minutes are an error rather than wrong
// volumes. A code without files, or a day no file holds, is nothing.
func TestSeekIndexMinutesAndAbsentDays(t *testing.T) {
	dir := t.TempDir()
	code := market.MustCode("000001.SH")
	days := []market.Day{20261123, 20261124, 20261125}
	var daily, mins []market.Bar
	for i, d := range days[:2] { // the .day file lacks the third day
		daily = append(daily, market.Bar{Day: d, Open: 3000, High: 3010, Low: 2990, Close: 3005 + float64(i),
			Volume: 3e10, Amount: 4e11})
	}
	for _, d := range days {
		for m := range 240 {
			mins = append(mins, market.Bar{Day: d, TS: d.At(9, 31+m, 0).Unix(), Open: 3000, High: 3001, Low: 2999, Close: 3000,
				Volume: 1e8, Amount: 1e9 + float64(m)*1e6})
		}
	}
	if err := errors.Join(WriteBars(dir, code, KindDay, daily), WriteBars(dir, code, KindLC1, mins)); err != nil {
		t.Fatal(err)
	}
	term, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	lc1, _ := term.First(KindLC1)
	whole, err := term.Bars(lc1)
	if err != nil {
		t.Fatal(err)
	}
	got, err := term.MinutesOn(code, days[1])
	if err != nil || len(got) != 240 {
		t.Fatalf("the second day: %d minutes, %v", len(got), err)
	}
	for i := range got {
		if want := whole.Bars[240+i]; !sameBar(got[i], want) || got[i].Volume == 0 {
			t.Fatalf("minute %d: %+v, full decode %+v", i, got[i], want)
		}
	}
	if got, err := term.MinutesOn(code, days[2]); err == nil || got != nil {
		t.Fatalf("a day without its .day bar: %d minutes, %v", len(got), err)
	}
	if got, err := term.MinutesOn(code, 20261126); err != nil || got != nil {
		t.Fatalf("a day the file lacks: %d minutes, %v", len(got), err)
	}
	if got, err := term.MinutesOn(market.MustCode("600000.SH"), days[0]); err != nil || got != nil {
		t.Fatalf("a code without a file: %d minutes, %v", len(got), err)
	}
	if _, ok, err := term.DayOn(market.MustCode("600000.SH"), days[0]); ok || err != nil {
		t.Fatalf("a code without a .day file: %v, %v", ok, err)
	}
}

// A bad record of the day asked is reported with its file and offset; the
// good minutes of the day are still returned; a file cut inside the day's
// last record holds the whole records before it.
func TestSeekReportsBadRecords(t *testing.T) {
	s := ScaleFor(market.MustCode("600000.SH"))
	good := goodDay(20261124)
	bad := good
	bad.Date, bad.High = 20261125, 1 // high below low
	data := dayFile(goodDay(20261123), good, bad)
	if _, ok, err := DayOn(bytes.NewReader(data), int64(len(data)), s, 20261125, 0); ok || !errors.As(err, new(*FormatError)) {
		t.Fatalf("a bad record: %v, %v", ok, err)
	}
	cut := data[:len(data)-5]
	if b, ok, err := DayOn(bytes.NewReader(cut), int64(len(cut)), s, 20261124, 0); !ok || err != nil || b.Close != 10.5 {
		t.Fatalf("before a partial record: %+v, %v, %v", b, ok, err)
	}
	var lc []byte
	for m := range uint16(4) {
		lc = append(lc, minuteRec(35239, 571+m, 10, 11, 9, 10.5, 1000, 100)...)
	}
	copy(lc[2*32+4:], minuteRec(35239, 573, 0, 11, 9, 10.5, 1000, 100)[4:8]) // the third minute's open: 0
	day, _ := packedDay(35239)
	bars, err := MinutesOn(bytes.NewReader(lc), int64(len(lc)), LayoutLC, s, day, 0)
	var fe *FormatError
	if len(bars) != 3 || !errors.As(err, &fe) || fe.Offset != 64 {
		t.Fatalf("%d bars, %v", len(bars), err)
	}
}

// FuzzSeekDay holds DayOn to a full decode: on any bytes it never panics,
// and when the full decode is clean (every record good, hence sorted) the
// seek finds each decoded day with the same bar, and a day between two
// records not at all.
func FuzzSeekDay(f *testing.F) {
	f.Add(dayFile(goodDay(20230222), goodDay(20230223), goodDay(20230227)), uint32(20230223))
	f.Add(dayFile(goodDay(20230222), DayRecord{Date: 20230223}, goodDay(20230227)), uint32(20230223))
	f.Add(append(dayFile(goodDay(20230222)), 1, 2, 3), uint32(20230222))
	f.Fuzz(func(t *testing.T, data []byte, want uint32) {
		s := ScaleFor(market.MustCode("600000.SH"))
		size := int64(len(data))
		DayOn(bytes.NewReader(data), size, s, market.Day(want), 0) // any bytes, any day: no panic
		bars, errs := drain(t, func() iter.Seq2[market.Bar, error] { return DayBars(bytes.NewReader(data[:len(data)/32*32]), s, 0) }, 1)
		if len(errs) > 0 {
			return
		}
		for i, b := range bars {
			got, ok, err := DayOn(bytes.NewReader(data), size, s, b.Day, 0)
			if !ok || err != nil || !sameBar(got, b) {
				t.Fatalf("day %v: %+v, %v, %v; full decode %+v", b.Day, got, ok, err, b)
			}
			if gap := b.Day.AddDays(1); i+1 < len(bars) && gap < bars[i+1].Day {
				if _, ok, err := DayOn(bytes.NewReader(data), size, s, gap, 0); ok || err != nil {
					t.Fatalf("day %v between records: %v, %v", gap, ok, err)
				}
			}
		}
	})
}

// FuzzSeekMinutes holds MinutesOn to a full decode the same way: no panic
// on any bytes, and on a clean file each day's minutes exactly.
func FuzzSeekMinutes(f *testing.F) {
	var two []byte
	for d, w := range []uint16{35239, 35240} {
		for m := range uint16(3) {
			two = append(two, minuteRec(w, 571+m, 10+float32(d), 11+float32(d), 9, 10.5, 1000, 100)...)
		}
	}
	f.Add(two, uint16(35240))
	f.Add(two[:len(two)-7], uint16(35240))
	f.Fuzz(func(t *testing.T, data []byte, word uint16) {
		s := ScaleFor(market.MustCode("600000.SH"))
		size := int64(len(data))
		if d, ok := packedDay(word); ok {
			MinutesOn(bytes.NewReader(data), size, LayoutLC, s, d, 0) // no panic
		}
		bars, errs := drain(t, func() iter.Seq2[market.Bar, error] {
			return MinuteBars(bytes.NewReader(data[:len(data)/32*32]), LayoutLC, s, 0)
		}, 1)
		if len(errs) > 0 {
			return
		}
		byDay := map[market.Day][]market.Bar{}
		for _, b := range bars {
			byDay[b.Day] = append(byDay[b.Day], b)
		}
		for d, want := range byDay {
			got, err := MinutesOn(bytes.NewReader(data), size, LayoutLC, s, d, 0)
			if err != nil || len(got) != len(want) {
				t.Fatalf("%v: %d minutes (%v), full decode %d", d, len(got), err, len(want))
			}
			for i := range want {
				if !sameBar(got[i], want[i]) {
					t.Fatalf("%v minute %d: %+v, full decode %+v", d, i, got[i], want[i])
				}
			}
		}
	})
}
