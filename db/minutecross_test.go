package db_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"mdqs/db"
	"mdqs/db/dbtest"
	"mdqs/internal/demo"
	"mdqs/internal/market"
)

// The stored 1-minute bar of each code at one minute, by a scan of the day
// or by lookups, is the bar MinuteDays decodes there, with the one before
// it; a code without that day, or without a bar at that minute, has none,
// and other days and frequencies are not read.
func TestMinuteBarsAt(t *testing.T) {
	s := dbtest.Open(t)
	ctx := context.Background()
	clock := market.NewFixedClock(time.Date(2026, 11, 27, 16, 0, 0, 0, market.Shanghai()))
	dm, err := demo.New(demo.Config{Seed: 7, Stocks: 12, Industries: 3, Concepts: 3}, clock)
	if err != nil {
		t.Fatal(err)
	}
	const day, before = market.Day(20261127), market.Day(20261126)
	var codes []market.Code
	var days []db.MinuteDay
	for i, st := range dm.Stocks() {
		codes = append(codes, st.Code)
		for _, f := range []market.Freq{market.Min1, market.Min5} {
			bars, err := dm.Klines(ctx, st.Code, f, before, day)
			if err != nil {
				t.Fatal(err)
			}
			for len(bars) > 0 {
				n := 1
				for n < len(bars) && bars[n].Day == bars[0].Day {
					n++
				}
				one := bars[:n]
				bars = bars[n:]
				switch {
				case i == 0 && one[0].Day == day:
					continue // not stored that day
				case i == 1 && one[0].Day == day && f == market.Min1:
					one = one[:100] // a morning only
				}
				days = append(days, db.MinuteDay{Code: st.Code, Freq: f, Day: one[0].Day, Bars: one, Source: "demo"})
			}
		}
	}
	if err := s.PutMinuteDays(ctx, days); err != nil {
		t.Fatal(err)
	}
	codes = append(codes, market.MustCode("600999.SH")) // never stored
	want := func(c market.Code, ts int64) db.MinuteAt {
		t.Helper()
		got, err := s.MinuteDays(ctx, c, market.Min1, day, day)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range got {
			for i, b := range d.Bars {
				if b.TS == ts {
					var at db.MinuteAt
					at.Bar = b
					if i > 0 {
						at.Prev = d.Bars[i-1]
					}
					return at
				}
			}
		}
		return db.MinuteAt{}
	}
	for _, at := range [][2]int{{9, 31}, {10, 30}, {11, 30}, {13, 1}, {15, 0}, {12, 0}} {
		ts := day.At(at[0], at[1], 0).Unix()
		for _, read := range []struct {
			name string
			fn   func([]market.Code) ([]db.MinuteAt, error)
		}{
			{"scan", func(c []market.Code) ([]db.MinuteAt, error) { return s.MinuteBarsAtBy(ctx, day, ts, c, true) }},
			{"lookups", func(c []market.Code) ([]db.MinuteAt, error) { return s.MinuteBarsAtBy(ctx, day, ts, c, false) }},
			{"MinuteBarsAt", func(c []market.Code) ([]db.MinuteAt, error) { return s.MinuteBarsAt(ctx, day, ts, c) }},
		} {
			for _, asked := range [][]market.Code{codes, codes[len(codes)-4:], nil} {
				got, err := read.fn(asked)
				if err != nil || len(got) != len(asked) {
					t.Fatalf("%s at %02d:%02d of %d codes: %d, %v", read.name, at[0], at[1], len(asked), len(got), err)
				}
				for i, c := range asked {
					w := want(c, ts)
					if !exactBars([]market.Bar{got[i].Bar, got[i].Prev}, []market.Bar{w.Bar, w.Prev}) {
						t.Errorf("%s %v at %02d:%02d: %+v; MinuteDays has %+v", read.name, c, at[0], at[1], got[i], w)
					}
				}
				if n := len(asked); n == len(codes) && at[0] == 10 && (got[0].Bar.TS != 0 || got[n-1].Bar.TS != 0 || got[1].Bar.TS == 0 || got[2].Bar.TS != ts) {
					t.Errorf("%s at 10:30: unstored %v, %v; a morning %v; a day %v", read.name, got[0].Bar.TS, got[n-1].Bar.TS, got[1].Bar.TS, got[2].Bar.TS)
				}
			}
		}
	}
	// A record that does not decode names itself.
	if err := s.WriterExec(ctx, `UPDATE minute_days SET data = substr(data, 1, 20) WHERE code = '`+codes[3].String()+`' AND day = 20261127 AND freq = 1`); err != nil {
		t.Fatal(err)
	}
	for _, scan := range []bool{true, false} {
		_, err := s.MinuteBarsAtBy(ctx, day, day.At(10, 0, 0).Unix(), codes, scan)
		if market.KindOf(err) != market.KindInternal || !strings.Contains(err.Error(), codes[3].String()) {
			t.Errorf("a corrupt record (scan %v): %v; want an internal error naming %v", scan, err, codes[3])
		}
	}
}
